"""Shared test setup: an isolated kernelpilot cache for the session, and where the shared fixtures live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
FIXTURES = REPO.parent / "shared" / "fixtures"


def _session_cache_dir(tmp_path_factory) -> Path:
    """An empty dump cache for this run. Under pytest-xdist every worker of one run shares it (the folder above the
    workers' own base temp): the cache publishes entries in one rename, so parallel writers of one key are safe, and a
    kernel two workers compile is compiled once."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        cache = base.parent / "kp-cache-shared"
        cache.mkdir(exist_ok=True)
        return cache
    return tmp_path_factory.mktemp("kp-cache")


@pytest.fixture(scope="session", autouse=True)
def isolated_cache(tmp_path_factory):
    """Every test run starts from an empty dump cache (dumps are still shared between tests of one run)."""
    if "KERNELPILOT_CACHE_DIR" in os.environ and os.environ.get("KERNELPILOT_KEEP_CACHE"):
        yield Path(os.environ["KERNELPILOT_CACHE_DIR"])
        return
    cache = _session_cache_dir(tmp_path_factory)
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


# --- the order files run in ----------------------------------------------------------------------------------------
# Under pytest-xdist (`-n auto --dist loadfile`, the README's command 2) each file runs whole on one worker, and a worker
# takes the next file as it finishes one. Longest files first (LPT) keeps a long file from starting last and running
# alone: tests/durations.json holds each file's seconds from the last measured run (benchmarks/suite_times.py writes
# it); a file not in it counts as the median. Tests inside a file keep their order.
DURATIONS = Path(__file__).parent / "durations.json"


def _file_seconds() -> dict[str, float]:
    import json

    try:
        table = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in table.get("seconds", {}).items() if isinstance(v, int | float)}


def pytest_collection_modifyitems(session, config, items):
    seconds = _file_seconds()
    if not seconds or not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    median = sorted(seconds.values())[len(seconds) // 2]
    first_seen: dict[str, int] = {}
    for i, item in enumerate(items):
        first_seen.setdefault(item.nodeid.split("::")[0], i)

    def key(indexed):
        i, item = indexed
        path = item.nodeid.split("::")[0]
        return (-seconds.get(path, median), first_seen[path], i)

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]
