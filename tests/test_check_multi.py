"""check with several launches per entry, a --shape that changes a compile-time value, and a FlyDSL grid computed
from the entry's arguments, on kernels compiled in the test."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tools.check.compare import check, outputs
from tools.check.flydsl_abi import host_values

from .conftest import REPO

MULTI = REPO / "tests" / "data" / "check" / "multi"


def _seed0_vector(n: int) -> torch.Tensor:
    """The x check builds for seed 0 from kernelpilot_entry(): integers uniform in [0, numel), x filled first."""
    g = torch.Generator().manual_seed(0)
    return torch.randint(0, n, (n,), generator=g, dtype=torch.int64).to(torch.int32)


@pytest.mark.slow
def test_split_and_merge_launches_agree_with_a_single_kernel_on_the_final_output():
    rep = check(MULTI / "sum_single.py", MULTI / "sum_split_merge.py")
    assert rep.verdict == "same", rep.reason
    case = rep.cases[0]
    # the host function's scratch (8 partial sums) is AFTER's own: only the entry's output is compared
    assert [(b.name, b.elements, b.written_by) for b in case.buffers] == [("out_ptr", 1, ["before", "after"])]
    assert case.launches.startswith("launch sequences differ (1: sum_kernel; 2: partial_kernel + merge_kernel)")
    assert rep.kernels == ["sum_kernel → partial_kernel + merge_kernel"]


@pytest.mark.slow
def test_a_merge_that_drops_the_last_partial_is_different_by_exactly_that_partial():
    rep = check(MULTI / "sum_single.py", MULTI / "sum_split_merge_bug.py")
    assert rep.verdict == "different"
    x = _seed0_vector(2048)
    (mm,) = rep.cases[0].mismatches
    # BEFORE sums all 2048; the bug's merge adds partials 0..6 of 8 chunks of 256: the first 1792 elements
    assert (mm.buffer, int(mm.before), int(mm.after)) == ("out_ptr", int(x.sum()), int(x[:1792].sum()))


@pytest.mark.slow
def test_the_same_launch_sequence_is_compared_launch_by_launch():
    rep = check(MULTI / "sum_split_merge.py", MULTI / "sum_split_merge_bug.py", shapes=[{"n": 4096}])
    assert rep.verdict == "different"
    # the split kernels write identical partials; only the merge's output differs
    assert rep.cases[0].launches == (
        "2 launches each: buffers agree after 1, first differ after launch 2 (merge_kernel → merge_kernel) in out"
    )
    assert rep.kernels == ["partial_kernel → partial_kernel", "merge_kernel → merge_kernel"]


@pytest.mark.slow
def test_a_shape_that_changes_a_constexpr_runs_its_own_compile():
    # BLOCK is n: the default compile (BLOCK=1024) on a 256-element vector would load past its end on both sides
    rep = check(MULTI / "block_is_n.py", MULTI / "block_is_n.py", shapes=[{"n": 256}, {}])
    assert [c.verdict for c in rep.cases] == ["same", "same"], rep.reason
    assert [c.buffers[0].elements for c in rep.cases] == [256, 1024]
    assert all(not c.events for c in rep.cases)


@pytest.mark.slow
def test_flydsl_grid_computed_from_an_int32_argument_is_evaluated_on_the_entrys_value():
    got = outputs(MULTI / "flydsl_runtime_grid.py", "llvm", seed=3, shape={"m": 192})
    # grid M // 64 = 3 workgroups of 64 lanes: every one of the 192 elements doubled, exactly (x + x)
    assert got["Out"].shape == (192,) and np.array_equal(got["Out"], got["Inp"] * 2)
    rep = check(MULTI / "flydsl_runtime_grid.py", MULTI / "flydsl_runtime_grid.py", shapes=[{"m": 128}])
    assert rep.verdict == "same" and rep.cases[0].buffers[0].elements == 128


def test_host_integer_ops_follow_mlir_semantics():
    body = """
    %c64_i32 = arith.constant 64 : i32
    %0 = arith.floordivsi %arg2, %c64_i32 : i32
    %1 = arith.divsi %arg2, %c64_i32 : i32
    %2 = arith.index_cast %0 : i32 to index
    %3 = arith.ceildivsi %arg3, %c64_i32 : i32
    %4 = arith.muli %arg3, %arg3 : i32
    """
    v = host_values(body, {"%arg2": -130, "%arg3": 65537})
    # floordiv rounds down (-3), divsi toward zero (-2); 65537 * 65537 wraps in i32 to 131073
    assert (v["%0"], v["%1"], v["%2"], v["%3"], v["%4"]) == (-3, -2, -3, 1025, 131073)


@pytest.mark.slow
def test_interpreter_runs_the_host_function_and_compares_the_entrys_outputs():
    x = _seed0_vector(2048)
    same = check(MULTI / "sum_single.py", MULTI / "sum_split_merge.py", engine="interpreter")
    bug = check(MULTI / "sum_single.py", MULTI / "sum_split_merge_bug.py", engine="interpreter")
    assert same.verdict == "same" and bug.verdict == "different"
    (mm,) = bug.cases[0].mismatches  # the same figures as the llvm engine: all 2048 vs the first 1792
    assert (int(mm.before), int(mm.after)) == (int(x.sum()), int(x[:1792].sum()))
