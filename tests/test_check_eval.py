"""The llvm-cpu output oracle in the eval harness: FlyDSL amd-static tasks scored on outputs, without a GPU."""

from __future__ import annotations

import pytest

from evals.catalog import load_tasks
from evals.controls import run_controls
from evals.harness.runner import run_one


@pytest.mark.slow
def test_reference_solution_passes_the_output_oracle_on_every_seed_and_arch(tmp_path):
    task = load_tasks(["flydsl-paged-pv-chain"])[0]
    score = run_one(task, "reference", None, tmp_path, None)
    assert score.passed and score.correct, score.reasons
    # one shape (the entry's arguments), two fresh seeds, on every arch the task compiles for
    assert len(score.cases) == 2 * len(task.spec.archs)
    assert all(c.detail.startswith("kernelpilot check: same") for c in score.cases)
    assert not any("no output oracle" in f for f in score.flags)


@pytest.mark.slow
def test_hoisted_prefetch_control_now_also_fails_on_outputs():
    (result,) = run_controls(names=["hoisted-prefetch-outputs"], progress=lambda _: None)
    assert result.caught and result.passed_task is False, result.reasons


def _oracle_on_trap(task_id: str, trap: str, tmp_path):
    """The task's llvm-cpu oracle (reference solution vs the trap as kernel.py), exactly as the scorer runs it."""
    import random
    import shutil

    from evals.harness.oracle import llvm_cpu_oracle
    from evals.models import TaskScore

    task = load_tasks([task_id])[0]
    code = tmp_path / "candidate"
    shutil.copytree(task.workspace, code)
    shutil.copy(task.workspace.parent / "traps" / trap, code / "kernel.py")
    score = TaskScore(task_id=task.id, track=task.spec.track, agent="trap", passed=False)
    llvm_cpu_oracle(task, code, tmp_path, score, random.Random(7))
    return task, score


@pytest.mark.slow
@pytest.mark.parametrize(
    ("task_id", "trap", "wrong"),
    [
        # the prefetch reissues k-tile kt instead of kt+1: k-tile 0 counted twice, the last one never
        ("flydsl-lds-staged-gemm-prefetch", "stale_k_tile.py", "C"),
        # every wave passes the stage's base to the DMA: the four waves write the same first KiB of each tile
        ("flydsl-lds-dma-double-buffer", "dma_without_wave_base.py", "C"),
        # each iteration computes on the stage the next block's DMA is filling: block 0 never, the last one twice
        ("flydsl-flash-prefill-lds-dma", "wrong_stage.py", "Out"),
        # B's DMA indexed by the tile's row instead of its column: only the diagonal tiles are right
        ("flydsl-fp8-blockscale-gemm-lds-dma", "b_dma_wrong_tile.py", "C"),
    ],
)
def test_wrong_tile_traps_pass_the_isa_but_fail_the_output_oracle(task_id, trap, wrong, tmp_path):
    task, score = _oracle_on_trap(task_id, trap, tmp_path)
    assert score.correct is False
    # every public and hidden shape, two seeds, every arch: each case is a mismatch in the output buffer, none an
    # oracle error
    c = task.spec.correctness
    assert len(score.cases) == 2 * (len(c.shapes) + len(c.hidden_shapes)) * len(task.spec.archs)
    assert not any(case.passed for case in score.cases)
    assert all(x.detail.startswith("kernelpilot check: different") and f" in {wrong}" in x.detail for x in score.cases)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("task_id", "trap"),
    [
        ("flydsl-lds-staged-gemm-prefetch", "loads_after_first_barrier.py"),  # right values, a barrier uncovered
        ("flydsl-lds-dma-double-buffer", "synchronous_single_buffer.py"),  # right values, every DMA drained
        ("flydsl-fp8-blockscale-gemm-lds-dma", "dma_scales_in_iteration.py"),  # right values, DMA drained
        ("flydsl-fp8-blockscale-gemm-lds-dma", "scale_prefetch_register_staging.py"),  # right values, ds_write
    ],
)
def test_coupled_traps_compute_the_right_values_and_fail_only_on_the_isa(task_id, trap, tmp_path):
    _, score = _oracle_on_trap(task_id, trap, tmp_path)
    assert score.correct is True, score.reasons


def test_an_instruction_the_oracle_cannot_run_is_undetermined_never_oracle_failed(tmp_path):
    """The baseline with one `s_sleep` inline asm (right on a GPU, not run by check): incomplete, not the agent's."""
    import random

    from evals.harness.oracle import llvm_cpu_oracle
    from evals.metrics import run_metrics
    from evals.models import INCOMPLETE_CODES, TaskScore

    task = load_tasks(["flydsl-paged-pv-chain"])[0]
    code = tmp_path / "candidate"
    code.mkdir()
    src = (task.workspace / "kernel.py").read_text()
    src = src.replace(
        "from flydsl._mlir import ir\n", "from flydsl._mlir import ir\nfrom flydsl._mlir.dialects import llvm\n"
    )
    src = src.replace("    row = seq * MAX_BLOCKS\n", '    row = seq * MAX_BLOCKS\n    llvm.inline_asm(None, [], "s_sleep 1", "", '
                      "has_side_effects=True)\n")  # fmt: skip
    (code / "kernel.py").write_text(src)
    score = TaskScore(task_id=task.id, track=task.spec.track, agent="asm", passed=False)
    llvm_cpu_oracle(task, code, tmp_path, score, random.Random(7))
    codes = [o.code for o in score.outcomes]
    assert codes == ["oracle_undetermined"] and "oracle_undetermined" in INCOMPLETE_CODES
    assert score.complete is False and score.correct is None
    assert 'inline asm "s_sleep 1"' in score.outcomes[0].detail
    score.code = "oracle_undetermined"
    m = run_metrics("asm", [score])
    assert (m.tasks, m.undetermined, m.infra_errors) == (0, 1, 0)  # counted apart, in no rate
