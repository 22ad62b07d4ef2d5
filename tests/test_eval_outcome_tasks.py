"""The FlyDSL tasks scored on outcomes: a candidate passes when it is correct (the llvm-cpu oracle),
predicted faster than the task's ``speed_bar`` (the kernels' predicted GPU time, the fixed per-launch overhead left
out) and within the task's budgets. Every candidate here goes through the real scorer (``evals.harness.scoring.score``)
on a copy of the task's workspace, on the CPU: the reference solution, the baseline (noop), and each trap, which
must fail because it is wrong, over budget or slower, never because of its shape alone.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from evals.catalog import load_tasks
from evals.harness.devices import Runtime
from evals.harness.scoring import score

# Each test scores a candidate through the whole scorer (compile, oracle, predict): slow, except the noop of one task,
# which the fast lane keeps (parametrized below over every task in the full suite).
slow = pytest.mark.slow

DATA = Path(__file__).parent / "data" / "eval_alternatives"


def score_candidate(task_id: str, tmp_path: Path, *, kernel: Path | None = None, patch: Path | None = None):
    """The task's workspace with ``kernel`` copied over kernel.py or ``patch`` applied (``git apply``), scored."""
    task = load_tasks([task_id])[0]
    code = tmp_path / "candidate"
    shutil.copytree(task.workspace, code)
    if kernel is not None:
        shutil.copy(kernel, code / "kernel.py")
    if patch is not None:
        subprocess.run(["git", "apply", str(patch)], cwd=code, check=True, timeout=60)
    return score(task, code, task.workspace, tmp_path / "work", Runtime(), changed=["kernel.py"], diff_problems=[],
                 agent="test")  # fmt: skip


def codes(s) -> list[tuple[str, bool]]:
    return [(o.code, o.passed) for o in s.outcomes]


GQA = "flydsl-gqa-paged-chain-budget"


@slow
def test_gqa_reference_solution_passes_on_outcomes(tmp_path):
    task = load_tasks([GQA])[0]
    s = score_candidate(GQA, tmp_path, patch=task.dir / "solution.patch")
    assert s.passed and s.correct, s.reasons
    # 2.29x on MI300X (39.9 -> 17.4 µs) and on MI355X (34.9 -> 15.3 µs): a latency-bound loop; the baseline waits
    # its slot, then V/scale (two latencies in series per block, WaveWork.dependent_waits_iter) and, its first wait
    # retiring a load of its own iteration, its 287 issue cycles on top; the reference one latency per block, running
    # ahead of its loads (its issue cycles hide under the latency); each latency the loaded DRAM latency (900 cycles,
    # machines/mi300x.yaml); trips from the loop bounds on the recorded call (n_blocks = 40): the baseline's loop
    # runs 40 times, the reference's 39 (block 0 is loaded in the prologue)
    assert s.speedup == pytest.approx(2.288, abs=0.01)
    assert ("faster", True) in codes(s)
    assert "kernel time (launch overhead left out)" in next(o.detail for o in s.outcomes if o.code == "faster")
    # nothing measured: the fraction of speed-of-light is the prediction's: the bytes requested, capped by the
    # tensor arguments' unique 738.3 kB (V 512 kB, table 1 kB, scales 16 kB, p 64 kB, out 128 kB), at peak HBM
    # (0.1393 µs on an MI300X, 0.0923 µs on an MI355X) against the 17.4 and 15.3 µs kernel times: 0.00800, 0.00603
    assert s.sol_defined and s.fraction_of_sol == pytest.approx((0.00800 * 0.00603) ** 0.5, rel=0.01)


# Alternative designs (our own, tests/data/eval_alternatives/gqa_*.patch on the task's workspace): each is correct
# (the oracle) and faster on its own terms; a design the scorer cannot yet judge is marked with the tool's gap.
GQA_ALTERNATIVES = [
    # the table row in one VGPR (lane l holds entry l; a row has 64 entries, one per lane), read with v_readlane;
    # V / scale / p loaded one block ahead: no table load in the loop, 60 VGPRs, predicted 1.93x like the reference
    pytest.param("gqa_readlane_row.patch", id="readlane_row"),
    # two blocks per iteration, their six loads waited for once (an odd last block masked, no remainder loop): 62
    # VGPRs; predicted 1.94x even though the stated 40 trips are charged to a loop that runs 20 times
    pytest.param("gqa_unroll2.patch", id="unroll2"),
    # the table entry read with s_buffer_load two blocks ahead: the oracle runs it (correct), predicted 1.93x
    pytest.param("gqa_scalar_table.patch", id="scalar_table"),
    # the readlane design plus a plain loop for the blocks past 64 (runs 0 times at n_blocks = 40): trips from the
    # loop bounds on the recorded call (readlane loop 39, fallback loop 0), so the fallback loop costs nothing
    pytest.param("gqa_fallback_loop.patch", id="fallback_loop"),
]


@slow
@pytest.mark.parametrize("patch", GQA_ALTERNATIVES)
def test_gqa_alternative_designs_pass_on_outcomes(patch, tmp_path):
    s = score_candidate(GQA, tmp_path, patch=DATA / patch)
    assert s.correct and s.passed, s.reasons
    assert ("faster", True) in codes(s)


PV = "flydsl-paged-pv-chain"


@slow
def test_paged_pv_reference_solution_passes_on_outcomes(tmp_path):
    task = load_tasks([PV])[0]
    s = score_candidate(PV, tmp_path, patch=task.dir / "solution.patch")
    assert s.passed and s.correct, s.reasons
    # 3.74x: the baseline has 512 B in flight at its first wait (the slot and p) against 1792 B per block, 3.5
    # windows of the loaded DRAM latency per block, plus its issue cycles (its first wait retires a load of its own
    # iteration); the reference has the block's 1792 B in flight, one window, and runs ahead of its loads; trips
    # from the loop bounds on the recorded call: the baseline's loop runs 40 times, the reference's 39 (its first
    # block is loaded in the prologue)
    assert s.speedup == pytest.approx(3.74, abs=0.01)
    assert ("faster", True) in codes(s) and not any(o.code == "isa_check_failed" for o in s.outcomes)


BLOCK_SCALED = "flydsl-block-scaled-gemm-prefetch"


@slow
def test_block_scaled_reference_passes_on_outcomes_and_its_trap_breaks_the_budget(tmp_path):
    task = load_tasks([BLOCK_SCALED])[0]
    s = score_candidate(BLOCK_SCALED, tmp_path / "ref", patch=task.dir / "solution.patch")
    assert s.passed and s.correct, s.reasons
    # 2.09x, both sides bound by memory latency: the baseline has 4096 B per wave in flight at its first wait against
    # the k-block's 7168 B (1.75 windows of the 900-cycle loaded DRAM latency per k-block, 16 iterations) and, that
    # wait retiring loads of its own iteration, its issue cycles on top; the reference the next k-block's 7168 B (one
    # window, 15 iterations: the first k-block is loaded in the prologue), running ahead of its loads; trips from
    # the CPU engine of check
    assert s.speedup == pytest.approx(2.089, abs=0.01)
    assert ("faster", True) in codes(s)
    # the whole-block double buffer is predicted as fast (2.09x) but costs 82 VGPRs: 5 waves per SIMD, not 7
    trap = score_candidate(BLOCK_SCALED, tmp_path / "trap", kernel=task.dir / "traps" / "whole_block_double_buffer.py")
    assert not trap.passed and trap.code == "isa_check_failed", trap.reasons
    assert trap.speedup == pytest.approx(2.089, abs=0.01)
    failed = [(c.name, c.arch, c.observed) for c in trap.checks if not c.passed]
    assert failed == [("waves_per_simd >= 7", "gfx942", 5), ("waves_per_simd >= 7", "gfx950", 5)]


MFMA = "mfma-loop-prefetch"


@slow
def test_mfma_loop_reference_passes_on_outcomes(tmp_path):
    task = load_tasks([MFMA])[0]
    s = score_candidate(MFMA, tmp_path, patch=task.dir / "solution.patch")
    assert s.passed and s.correct, s.reasons
    # at the m4096n4096k4096 launch: on MI355X the baseline waits one latency per 2048 B slice over 128 iterations
    # and, that wait retiring its own iteration's loads, its issue cycles on top; the reference keeps two slices,
    # 4096 B, in flight over 63 iterations and runs ahead of them, leaving LDS the bound (its ds_read_b64_tr_b16
    # reads at 8 B a lane): 1.33x; on MI300X both are bound by the MFMA pipe at ~219 µs: geometric mean 1.15x against
    # the 1.10 bar
    assert s.speedup == pytest.approx(1.148, abs=0.01)
    assert ("faster", True) in codes(s)


GEMV_BUDGET = "flydsl-gemv-prefetch-vgpr-budget"


@slow
def test_gemv_budget_trap_is_faster_but_over_budget(tmp_path):
    # prefetched, but the 32-wide accumulator stays: 4 waves per SIMD where the task keeps 8
    task = load_tasks([GEMV_BUDGET])[0]
    s = score_candidate(GEMV_BUDGET, tmp_path, kernel=task.dir / "traps" / "double_buffer_wide_accumulator.py")
    assert not s.passed and s.code == "isa_check_failed", s.reasons
    failed = [(c.name, c.observed) for c in s.checks if not c.passed]
    assert failed and all(name == "waves_per_simd >= 8" and seen == 4 for name, seen in failed)


@slow
def test_gemv_budget_two_groups_per_iteration_is_correct_but_slower_and_over_budget(tmp_path):
    # Another design of ours (tests/data/eval_alternatives/gemv_unroll2.patch): two groups per iteration, both
    # groups' fourteen loads issued before either is used, nothing carried across iterations, an odd last group
    # weighted by (groups % 2). Correct (the oracle), predicted 1.20x: each pair of groups still waits one latency
    # plus its own issue cycles (nothing in flight runs ahead of it), where the reference runs ahead of the next
    # group's loads (1.53x); and the two groups' 50
    # VGPRs of loads make 70 VGPRs, 7 waves per SIMD. It fails on the budget, not on its shape; its time under the
    # bar is undetermined (the AMD model has no validated band: needs_gpu), never a FAIL on a predicted margin.
    s = score_candidate(GEMV_BUDGET, tmp_path, patch=DATA / "gemv_unroll2.patch")
    assert s.correct and not s.passed, s.reasons
    assert s.speedup == pytest.approx(1.203, abs=0.01)
    assert ("needs_gpu", False) in codes(s) and ("slower", False) not in codes(s)
    failed = [(c.name, c.observed) for c in s.checks if not c.passed]
    assert failed and all(name == "waves_per_simd >= 8" and seen == 7 for name, seen in failed)


# the tasks above and every task with an expected.reference_speedup (tests/test_eval_task_predictions.py)
NOOP_TASKS = [PV] + [
    pytest.param(t, marks=slow)
    for t in sorted(
        {GQA, BLOCK_SCALED, MFMA} | {t.id for t in load_tasks() if t.spec.expected.reference_speedup is not None}
    )
]


@pytest.mark.parametrize("task_id", NOOP_TASKS)
def test_noop_is_correct_but_not_faster(task_id, tmp_path):
    s = score_candidate(task_id, tmp_path)
    assert not s.passed and s.correct
    assert s.speedup == 1.0 and ("slower", False) in codes(s)
