"""amd-static scoring by outcome (issue 22): a task with a ``speed_bar`` passes only when the predicted speedup over
its baseline (tools.predict, per arch) clears the bar; no prediction leaves the score incomplete, never passed.

The kernels are the flydsl-gqa-paged-chain-budget baseline and its everything-two-ahead trap, compiled here."""

from __future__ import annotations

import pytest

from evals.catalog import load_tasks
from evals.harness.scoring import predicted_speed, predicted_speed_scored, verdict
from evals.models import TaskScore
from tools.dump_ir import dump_ir

TASK_ID = "flydsl-gqa-paged-chain-budget"


@pytest.fixture(scope="module")
def task():
    return next(t for t in load_tasks([TASK_ID]) if t.spec.id == TASK_ID)


@pytest.fixture(scope="module")
def baseline(task):
    return dump_ir(task.dir / "workspace" / "kernel.py", "gfx942").kernels


def _score(task) -> TaskScore:
    return TaskScore(task_id=task.spec.id, track=task.spec.track, agent="test", passed=False)


@pytest.mark.slow
def test_the_noop_is_predicted_no_faster_and_fails_the_bar(task, baseline):
    assert predicted_speed_scored(task)
    s = _score(task)
    predicted_speed(task, baseline, baseline, s)
    # the same kernel on both sides: the same predicted time, 1.000x, below the task's 2.1 bar
    assert [(o.code, o.passed) for o in s.outcomes] == [("slower", False)]
    assert s.speedup == 1.0 and s.outcomes[0].detail.startswith("predicted speedup 1.000× against the bar 2.1×")
    assert verdict(s, {"faster"}) == (False, "slower")


@pytest.mark.slow
def test_a_trap_that_costs_a_wave_is_predicted_under_the_bar(task, baseline):
    trap = dump_ir(task.dir / "traps" / "everything_two_ahead.py", "gfx942").kernels
    assert trap[0].resources.waves_per_simd == 7  # 66 VGPRs
    s = _score(task)
    predicted_speed(task, baseline, trap, s)
    # 1.19x, far under the task's 2.1 bar: its iteration looks up block i+2's slot and then loads V/scale from it (a
    # load waiting for a load of the same iteration, one latency more, as in the baseline); it gains only by running
    # ahead of its loads (its first wait retires loads of the previous iteration, so its issue cycles hide under the
    # latency, where the baseline's 287 per iteration add to it) and by 38 iterations against the baseline's 40 (two
    # blocks loaded in the prologue)
    assert s.outcomes[-1].code == "slower" and s.speedup == pytest.approx(1.19, abs=0.01)


def test_no_prediction_is_incomplete_not_passed(task, baseline):
    s = _score(task)
    predicted_speed(task, baseline, [], s)  # nothing compiled on the candidate's side for gfx942: nothing to predict
    assert s.outcomes == [] and s.speedup is None
    s = _score(task)
    predicted_speed(task, [], baseline, s)
    assert [o.code for o in s.outcomes] == ["needs_gpu"] and not s.complete
    assert s.outcomes[0].detail.startswith("no predicted speed on gfx942 (no compiled kernels to predict from")
