"""The suite end to end on CPU (amd-static track: compile for gfx942/gfx950, ISA checks, CPU correctness through
the Triton interpreter for the Triton tasks, through `kernelpilot check`'s llvm-cpu oracle for eleven FlyDSL tasks):
the reference agent passes every task, the noop agent fails every task, and a re-run resumes instead of scoring
again."""

import pytest

from evals.catalog import load_tasks
from evals.harness.runner import run_suite

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("evals")


def test_reference_agent_passes_every_amd_static_task(out):
    scores = run_suite(load_tasks(["amd-static"]), "reference", out, jobs=2, progress=lambda m: None)
    assert [(s.task_id, s.passed, s.reasons) for s in scores if not s.passed] == []
    assert all(s.isa_ok and s.compiled for s in scores)
    oracle = {t.id for t in load_tasks(["amd-static"]) if t.spec.correctness}
    assert all(s.correct is (True if s.task_id in oracle else None) for s in scores)


def test_noop_agent_fails_every_amd_static_task_on_its_isa_checks(out):
    scores = run_suite(load_tasks(["amd-static"]), "noop", out, jobs=2, progress=lambda m: None)
    assert [s.task_id for s in scores if s.passed] == []
    # the baseline is correct: it fails on structure, not on results
    oracle = {t.id for t in load_tasks(["amd-static"]) if t.spec.correctness}
    assert all(s.correct is (True if s.task_id in oracle else None) and s.isa_ok is False for s in scores)


def test_rerun_resumes_from_the_written_results(out):
    lines = []
    run_suite(load_tasks(["amd-static"]), "noop", out, progress=lines.append)
    assert all(line.endswith("already scored, skipped") for line in lines) and len(lines) >= 4
