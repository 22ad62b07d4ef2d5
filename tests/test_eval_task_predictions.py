"""What each task folder's ``expected:`` pins, on the real predictor and the real scorer (the kernels compiled in the
test, ``tools.outcome.predict_speed`` as the scorer calls it): a task without a ``speed_bar`` keeps a structural check
only with a why in the predictor's own figures (what it predicts for the reference, why that cannot decide, what the
structure guards), so its ``expected.predicted`` figures are pinned here and a predictor that learns to tell the designs
apart fails here and the check is revisited; a task scored on outcomes passes its reference at its
``expected.reference_speedup``; every trap with an ``expected.traps[].score`` fails through the scorer with that code.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from evals.catalog import load_tasks
from tests.test_eval_outcome_tasks import DATA, codes, score_candidate
from tools.dump_ir import dump_ir
from tools.outcome import predict_speed

# Each test compiles and predicts a task's kernels: slow, except the Mojo one (one compile, no scorer), in the fast lane.
slow = pytest.mark.slow


def _reference(task_id: str, tmp_path: Path) -> Path:
    """The task's kernel.py with its solution.patch applied, in a copy of its workspace."""
    task = load_tasks([task_id])[0]
    code = tmp_path / "reference"
    shutil.copytree(task.workspace, code)
    subprocess.run(["git", "apply", str(task.dir / "solution.patch")], cwd=code, check=True, timeout=60)
    return code / "kernel.py"


def _predicted(task_id: str, kernel: Path, arch: str) -> tuple[float, str]:
    """The predicted speedup of ``kernel`` over the task's baseline on ``arch``, as the scorer predicts it."""
    task = load_tasks([task_id])[0]
    base = dump_ir(task.workspace / "kernel.py", arch).kernels
    cand = dump_ir(kernel, arch).kernels
    speed, _ = predict_speed(base, cand, arch)
    assert speed.speedup is not None, speed.note
    return speed.speedup, speed.note


# The reference of every task with expected.predicted is predicted slower than, or within 15 % of, its baseline, so
# none has a speed bar: its budgets are the score and each structural check it keeps says why.
PREDICTED = [
    pytest.param(task.id, p, id=f"{task.id}-{p.arch}") for task in load_tasks() for p in task.spec.expected.predicted
]


@slow
@pytest.mark.parametrize(("task_id", "expected"), PREDICTED)
def test_paid_off_task_references_are_not_predicted_clearly_faster(task_id, expected, tmp_path):
    got, note = _predicted(task_id, _reference(task_id, tmp_path), expected.arch)
    assert got == pytest.approx(expected.speedup, abs=0.006), note
    assert f"bound: {expected.bound}" in note
    assert load_tasks([task_id])[0].spec.speed_bar is None


@slow
def test_swiglu_4_byte_loads_are_predicted_as_fast_as_16_byte_loads(tmp_path):
    # the why of the 16-byte-load check: 512 elements per program (2 per lane, 4-byte loads, 8 waves) moves the same
    # 402.7 MB at the same HBM-bound 93.6 us (MI300X) / 61.9 us (MI355X) as the reference's 2048 (16-byte loads), with
    # a quarter of the bytes in flight per CU: the predictor cannot tell them apart, the check does
    ref = _reference("amd-swiglu-occupancy", tmp_path)
    narrow = tmp_path / "narrow" / "kernel.py"
    shutil.copytree(ref.parent, narrow.parent)
    text = ref.read_text()
    assert "BLOCK = 2048" in text
    narrow.write_text(text.replace("BLOCK = 2048", "BLOCK = 512"))
    for arch in ("gfx942", "gfx950"):
        assert _predicted("amd-swiglu-occupancy", narrow, arch)[0] == pytest.approx(1.0, abs=0.001)
    s = score_candidate("amd-swiglu-occupancy", tmp_path / "score", kernel=narrow)
    assert not s.passed and s.correct and s.code == "isa_check_failed", s.reasons
    failed = sorted({c.name for c in s.checks if not c.passed})
    assert failed == ["16-byte global loads kept"]


@slow
def test_pool_f16_running_max_and_last_token_passes_on_budgets(tmp_path):
    # our own alternative (tests/data/eval_alternatives/pool_f16_state.patch): the running max and the last token are
    # carried in f16 (exact: the max of f16 values is one of them), the sum in fp32: 61 VGPRs, 8 waves per SIMD. It
    # still carries the last token, against the prompt's hint, and has no v_max_f32 in the loop (v_pk_max_f16): the
    # dropped "the loop still takes the running max" check failed it; the oracle and the budgets pass it
    s = score_candidate("flydsl-pool-loop-carried-state", tmp_path, patch=DATA / "pool_f16_state.patch")
    assert s.passed and s.correct, s.reasons
    assert ("isa_ok", True) in codes(s)
    assert {(c.name, c.observed) for c in s.checks if c.name.startswith("waves")} == {("waves_per_simd >= 8", 8)}


def test_mojo_scaled_dot_has_no_predicted_time(tmp_path):
    # the why of its loads_carried_ahead check: kernel.mojo gives no launch grid, so no speed bar could be scored
    task = load_tasks(["mojo-scaled-dot-double-buffer"])[0]
    base = dump_ir(task.workspace / "kernel.mojo", "gfx942").kernels
    speed, _ = predict_speed(base, base, "gfx942")
    assert speed.speedup is None and "the launch grid is unknown" in speed.note


# Tasks scored on outcomes with their reference's predicted speedup in expected.reference_speedup (the LDS-DMA tasks:
# the DMA itself stays a structural check with its why; the prefetch family: correct, faster than the bar, in budget).
REFERENCES = [t.id for t in load_tasks() if t.spec.expected.reference_speedup is not None]


@slow
@pytest.mark.parametrize("task_id", REFERENCES)
def test_reference_passes_on_outcomes_at_its_pinned_speedup(task_id, tmp_path):
    task = load_tasks([task_id])[0]
    s = score_candidate(task_id, tmp_path, patch=task.dir / "solution.patch")
    assert s.passed and s.correct, s.reasons
    assert s.speedup == pytest.approx(task.spec.expected.reference_speedup, abs=0.01), task.spec.expected.reference_why
    assert ("faster", True) in codes(s)


# Every trap whose expected.traps entry gives a score: it fails through the real scorer with that code (and that
# predicted speedup). A trap predicted under the bar fails only where the predictor can tell: the AMD models have no
# validated band, so a speed-only trap is not passed but waits for a GPU (needs_gpu), never a FAIL on a predicted margin.
SCORED_TRAPS = [
    pytest.param(task.id, trap, id=f"{task.id}/{trap.file}")
    for task in load_tasks()
    for trap in task.spec.expected.traps
    if trap.score is not None
]


@slow
@pytest.mark.parametrize(("task_id", "trap"), SCORED_TRAPS)
def test_each_trap_fails_on_outcomes_as_its_task_says(task_id, trap, tmp_path):
    task = load_tasks([task_id])[0]
    s = score_candidate(task_id, tmp_path, kernel=task.dir / "traps" / trap.file)
    assert not s.passed and s.code == trap.score.code, (trap.why, s.reasons)
    if trap.score.speedup is not None:
        assert s.speedup == pytest.approx(trap.score.speedup, abs=0.01)
