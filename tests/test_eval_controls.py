"""The negative-control suite: every cheating agent, run through the real harness on CPU, gets the failing score it
deserves with its reason recorded. Controls that need a GPU (timing) are reported as not run here; they were run
on an H100 and recorded in benchmarks/RESULTS.md."""

import pytest

from evals.controls import CONTROLS, run_controls

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results():
    return {r.name: r for r in run_controls(progress=lambda m: None, jobs=2)}


@pytest.mark.parametrize("control", [c for c in CONTROLS if not c.needs_gpu], ids=lambda c: c.name)
def test_control_is_caught_with_its_reason(results, control):
    r = results[control.name]
    assert r.ran and r.passed_task is False
    assert r.caught, f"{control.name}: expected {control.expected} recorded, got codes {r.codes}: {r.reasons}"
    assert control.code in r.codes


def test_gpu_controls_are_reported_as_not_run_on_cpu(results):
    for c in CONTROLS:
        if c.needs_gpu and not results[c.name].ran:
            assert "needs a GPU" in results[c.name].note
