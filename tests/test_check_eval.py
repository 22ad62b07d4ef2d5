"""The llvm-cpu output oracle in the eval harness: FlyDSL amd-static tasks scored on outputs, without a GPU."""

from __future__ import annotations

import pytest

from evals.catalog import load_tasks
from evals.controls import run_controls
from evals.harness.runner import run_one


@pytest.mark.slow
def test_reference_solution_passes_the_output_oracle_on_every_shape(tmp_path):
    task = load_tasks(["flydsl-paged-decode-prefetch"])[0]
    score = run_one(task, "reference", None, tmp_path, None)
    assert score.passed and score.correct, score.reasons
    # 2 public + 2 hidden shapes, one seed each, on gfx942 and gfx950
    assert len(score.cases) == 8 and sum(c.hidden for c in score.cases) == 4
    assert all(c.detail.startswith("kernelpilot check: same") for c in score.cases)
    assert not any("no output oracle" in f for f in score.flags)


@pytest.mark.slow
def test_hoisted_prefetch_control_now_also_fails_on_outputs():
    (result,) = run_controls(names=["hoisted-prefetch-outputs"], progress=lambda _: None)
    assert result.caught and result.passed_task is False, result.reasons
