"""Numeric options have upper bounds as well as lower ones, checked when the options are parsed (before any compile)
and again by the engine for callers that are not the CLI: no "inf us", "nanx" or an OverflowError after minutes."""

from __future__ import annotations

import time

import pytest

from tools.check.compare import check
from tools.cli import main
from tools.errors import InputError
from tools.predict.cli import predict_file

from .conftest import EXAMPLES

KERNEL = str(EXAMPLES / "triton" / "vector_add.py")


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    """A dump cache of this test alone: empty afterwards means nothing was compiled."""
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["check", KERNEL, KERNEL, "--max-memory", "1e308"], "argument --max-memory: must be <= 1024, got 1e308"),
        (["check", KERNEL, KERNEL, "--max-memory", "1e-9"], "argument --max-memory: must be >= 0.01, got 1e-9"),
        (["predict", KERNEL, "--arch", "gfx942", "--trips", "1e308"], "argument --trips: must be <= 1e+09, got 1e308"),
        (["predict", KERNEL, "--arch", "gfx942", "--timeout", "1e308"], "argument --timeout: must be <= 604800, got 1e308"),
        (["check", KERNEL, KERNEL, "--timeout", "1e400"], "argument --timeout: must be a finite number, got '1e400'"),
    ],
)  # fmt: skip
def test_an_option_past_its_bound_is_refused_when_parsed(private_cache, capsys, argv, expected):
    t0 = time.monotonic()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {expected}\nhint: 'kernelpilot {argv[0]} --help'"), err
    # refused while parsing: in well under a second (a compile takes seconds), and nothing was compiled
    assert time.monotonic() - t0 < 2 and not list(private_cache.glob("dumps/*"))


@pytest.mark.parametrize("gb", [1e308, 1e-9, float("nan")])
def test_check_refuses_a_memory_cap_outside_its_range_before_compiling(gb, private_cache):
    with pytest.raises(InputError) as exc:
        check(KERNEL, KERNEL, max_memory_gb=gb)
    assert exc.value.message == f"the memory cap of {gb:g} GB is outside 0.01..1024 GB", exc.value.message
    assert "MCP: max_memory_gb" in exc.value.hint and not list(private_cache.glob("dumps/*"))


@pytest.mark.parametrize("trips", [1e308, float("nan"), -3.0])
def test_predict_refuses_trips_outside_its_range_before_compiling(trips, private_cache):
    with pytest.raises(InputError) as exc:
        predict_file(KERNEL, "gfx942", trips=trips)
    assert exc.value.message == f"trips {trips:g} is outside (0, 1e+09]" and "MCP: trips" in exc.value.hint
    assert not list(private_cache.glob("dumps/*"))
