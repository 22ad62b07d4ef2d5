"""prefetch-data-load --verify --trace: the launch a profiler recorded decides whether an occupancy drop is felt.

The pair is tests/data/triton_occupancy/rowdot*.py compiled for gfx950 (the test compiles it): 4 → 3 waves/SIMD
(AFTER's carried tile costs VGPRs), 256-thread workgroups, so a CU holds 4 × 4 SIMDs / 4 waves = 4 workgroups
BEFORE and 3 AFTER. The trace is a real rocprofv3 kernel_trace.csv from an MI355X (gfx950, 256 CUs); it records
Grid_Size in work-items, so its grids are divided by Workgroup_Size to count workgroups.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.cli import main
from tools.errors import InputError
from tools.prefetch import verify_prefetch
from tools.prefetch.launch import launch_from_trace

PAIR = Path(__file__).parent / "data" / "triton_occupancy"


@pytest.fixture
def trace(fixtures_dir: Path) -> Path:
    """A real rocprofv3 --kernel-trace of a flash-attention run on an MI355X."""
    return fixtures_dir / "rocprofv3" / "gfx950_flash_attn_kernel_trace.csv"


def _verify(trace: Path, trace_kernel: str):
    return verify_prefetch(
        PAIR / "rowdot.py",
        PAIR / "rowdot_prefetched.py",
        "gfx950",
        gpu=False,
        check=False,
        trace=trace,
        trace_kernel=trace_kernel,
    )


def _occupancy(rep):
    return next(c for c in rep.checks if c.name == "occupancy")


def test_trace_grid_is_counted_in_workgroups(trace):
    # flash_attn_func_kernel_0: Grid_Size_X 131072 work-items / Workgroup_Size_X 256 = 512 workgroups, 9 dispatches
    launch = launch_from_trace(trace, "flash_attn_func_kernel_0")
    assert (launch.grid, launch.programs, launch.block_threads, launch.source) == ([512, 1, 1], 512, 256, "trace")
    assert launch.note == "9 dispatch(es) of flash_attn_func_kernel_0 in gfx950_flash_attn_kernel_trace.csv"


@pytest.mark.slow
def test_a_traced_grid_the_drop_cannot_reach_passes_with_a_note(trace):
    rep = _verify(trace, "flash_attn_func_kernel_0")
    check = _occupancy(rep)
    # the example arguments launch 256 programs; the trace's 512 replace them: ceil(512 / 256 CUs) = 2 per CU at once,
    # which AFTER's 3 still hold
    assert (rep.before.workgroups_per_cu, rep.after.workgroups_per_cu) == (4, 3)
    assert check.ok and check.severity == "note"
    assert (
        "which this launch cannot feel: 512 workgroups on AMD Instinct MI355X (256 CUs) need 2 per CU at once; "
        "BEFORE holds 4, AFTER 3 (grid from the trace: 9 dispatch(es) of flash_attn_func_kernel_0" in check.detail
    )
    assert not [c for c in rep.checks if not c.ok], rep.summary


@pytest.mark.slow
def test_a_traced_grid_that_fills_the_gpu_warns_on_occupancy(trace):
    rep = _verify(trace, "AbsFunctor")
    check = _occupancy(rep)
    # the AbsFunctor kernel: 2097152 work-items / 256 = 8192 workgroups, ceil(8192 / 256) = 32 per CU: every lost
    # slot is felt: fewer resident waves explain a slower time (a warning), they do not decide the verdict
    assert check.ok and check.severity == "warning"
    assert (
        "felt by this launch: 8192 workgroups on AMD Instinct MI355X (256 CUs) need 32 per CU at once" in check.detail
    )
    assert "16 → 12 resident waves per CU" in check.detail
    assert not [c for c in rep.checks if not c.ok] and rep.verdict != "fail"


@pytest.mark.slow
def test_the_traced_workgroup_size_sets_workgroups_per_cu(trace):
    rep = _verify(trace, "attn_fwd")
    # attn_fwd ran 128-thread workgroups (2 waves): a CU holds 4 × 4 / 2 = 8 BEFORE, 3 × 4 / 2 = 6 AFTER;
    # 65536 / 128 = 512 workgroups need 2 per CU
    assert (rep.before.workgroups_per_cu, rep.after.workgroups_per_cu) == (8, 6)
    assert rep.after.launch.block_threads == 128
    assert "512 workgroups on AMD Instinct MI355X (256 CUs) need 2 per CU at once; BEFORE holds 8, AFTER 6" in (
        _occupancy(rep).detail
    )


def test_a_kernel_the_trace_lacks_is_an_input_error_naming_what_it_has(trace):
    with pytest.raises(InputError) as err:
        launch_from_trace(trace, "rowdot_prefetch_kernel")
    assert "has no dispatch of 'rowdot_prefetch_kernel'; it has: __amd_rocclr_copyBuffer; " in err.value.message
    assert "--trace-kernel NAME" in err.value.hint


def test_an_ambiguous_part_of_a_name_is_an_input_error(trace):
    with pytest.raises(InputError, match="kernels match 'reduce_kernel'"):
        launch_from_trace(trace, "reduce_kernel")


def test_cli_trace_without_verify_is_an_error_not_ignored(trace, capsys):
    rc = main(["prefetch-data-load", str(PAIR / "rowdot.py"), "--trace", str(trace)])
    err = capsys.readouterr().err
    assert rc == 2 and "error: --trace and --trace-kernel apply to --verify BEFORE AFTER" in err
