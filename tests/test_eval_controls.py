"""The negative-control suite: every cheating agent, run through the real harness on CPU, gets the failing score it
deserves with its reason recorded. Controls that need a GPU (timing) are reported as not run here; they were run
on an H100 and recorded in benchmarks/RESULTS.md."""

import pytest

from evals.controls import CONTROLS, run_controls
from evals.harness.devices import probe_runtime


@pytest.fixture(scope="module")
def results():
    return {r.name: r for r in run_controls(progress=lambda m: None, jobs=2)}


@pytest.mark.slow
@pytest.mark.parametrize("control", [c for c in CONTROLS if not c.needs_gpu], ids=lambda c: c.name)
def test_control_is_caught_with_its_reason(results, control):
    r = results[control.name]
    assert r.ran and r.passed_task is False
    assert r.caught, f"{control.name}: expected {control.expected} recorded, got codes {r.codes}: {r.reasons}"
    assert control.code in r.codes


@pytest.mark.slow
def test_gpu_controls_are_reported_as_not_run_on_cpu(results):
    for c in CONTROLS:
        if c.needs_gpu and not results[c.name].ran:
            assert "needs a GPU" in results[c.name].note


def test_gpu_only_controls_are_skipped_on_a_cpu_host_before_any_agent_runs(tmp_path):
    # the same rule on the GPU controls alone: on a host without a GPU none of them starts an agent or a scoring
    if probe_runtime().has_gpu:
        pytest.skip("this host has a GPU: the GPU controls run here")
    names = [c.name for c in CONTROLS if c.needs_gpu]
    lines: list[str] = []
    results = run_controls(tmp_path, names=names, progress=lines.append)
    assert names and [r.name for r in results] == names
    assert all(not r.ran and r.note == "needs a GPU: not decidable on this host" for r in results)
    assert lines == [f"{n}: skipped (needs a GPU: not decidable on this host)" for n in names]
    assert not (tmp_path / "controls").exists()  # nothing was scored
