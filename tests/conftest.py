"""Shared test setup: an isolated kernelpilot cache for the session, and where the shared fixtures live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
FIXTURES = REPO.parent / "shared" / "fixtures"


@pytest.fixture(scope="session", autouse=True)
def isolated_cache(tmp_path_factory):
    """Every test run starts from an empty dump cache (dumps are still shared between tests of one run)."""
    if "KERNELPILOT_CACHE_DIR" in os.environ and os.environ.get("KERNELPILOT_KEEP_CACHE"):
        yield Path(os.environ["KERNELPILOT_CACHE_DIR"])
        return
    cache = tmp_path_factory.mktemp("kp-cache")
    old = os.environ.get("KERNELPILOT_CACHE_DIR")
    os.environ["KERNELPILOT_CACHE_DIR"] = str(cache)
    yield cache
    if old is None:
        os.environ.pop("KERNELPILOT_CACHE_DIR", None)
    else:
        os.environ["KERNELPILOT_CACHE_DIR"] = old


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not FIXTURES.exists():
        pytest.skip(f"shared fixtures not found at {FIXTURES} (CI clones the repo with shared/ beside it)")
    return FIXTURES


RECORDED_VARIANT = "predict_data/pair.ew_grid.before"  # one Triton launch of axpy_persistent_kernel on an H100


@pytest.fixture(scope="session")
def recorded_variant(tmp_path_factory) -> Path:
    """A variant folder the H100 validation recorded (benchmarks/predict_data/h100-2026-11-25.tgz): meta.json, SASS,
    cubin and Triton's files of one launch, grid [33, 1, 1] x 128 threads; predicting it compiles nothing."""
    import tarfile

    root = tmp_path_factory.mktemp("h100-variant")
    with tarfile.open(REPO / "benchmarks" / "predict_data" / "h100-2026-11-25.tgz") as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(RECORDED_VARIANT)]
        tar.extractall(root, members=members, filter="data")
    return root / RECORDED_VARIANT
