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
