"""The suite end to end on CPU (amd-static track: compile for gfx942/gfx950, ISA checks, CPU correctness through
the Triton interpreter for the Triton tasks, through `kernelpilot check`'s llvm-cpu oracle for the FlyDSL tasks that
have one): the reference agent passes every task, the noop agent fails every task, and a re-run resumes instead of
scoring again.

``KP_EVAL_SUITE_TASKS`` (comma-separated ids or tracks, default ``amd-static``) narrows the selection: .ci/run repeats
the suite on a few tasks to prove the scorer's concurrency stable without recompiling every task.
"""

import os

import pytest

from evals.catalog import load_tasks
from evals.harness.agents import prompt_for
from evals.harness.runner import agent_dir, run_suite
from evals.models import TaskScore

SELECTION = os.environ.get("KP_EVAL_SUITE_TASKS", "amd-static").split(",")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("evals")


def _has_oracle(score) -> bool:
    """Tasks with a ``correctness`` section are checked on CPU (Triton interpreter, or the LLVM-IR oracle)."""
    return next(t for t in load_tasks(SELECTION) if t.id == score.task_id).spec.correctness is not None


@pytest.mark.slow
def test_reference_agent_passes_every_amd_static_task(out):
    scores = run_suite(load_tasks(SELECTION), "reference", out, jobs=2, progress=lambda m: None)
    assert [(s.task_id, s.passed, s.reasons) for s in scores if not s.passed] == []
    assert all(s.isa_ok and s.compiled for s in scores)
    assert all(s.correct is (True if _has_oracle(s) else None) for s in scores)


def _speed_scored(score) -> bool:
    """Tasks with a ``speed_bar`` are scored on the predicted speedup over their baseline."""
    return next(t for t in load_tasks(SELECTION) if t.id == score.task_id).spec.speed_bar is not None


@pytest.mark.slow
def test_noop_agent_fails_every_amd_static_task_on_its_isa_checks(out):
    scores = run_suite(load_tasks(SELECTION), "noop", out, jobs=2, progress=lambda m: None)
    assert [s.task_id for s in scores if s.passed] == []
    # the baseline is correct: it fails on structure, not on results (tasks without a CPU oracle: structure only);
    # a task scored on predicted speed fails as predicted no faster than itself (1.000x, below its bar)
    assert all(s.correct is (True if _has_oracle(s) else None) for s in scores)
    assert all(
        ("slower" in [o.code for o in s.outcomes] and s.speedup == 1.0) if _speed_scored(s) else s.isa_ok is False
        for s in scores
    )


@pytest.mark.slow
def test_rerun_resumes_from_the_written_results(out):
    lines = []
    run_suite(load_tasks(SELECTION), "noop", out, progress=lines.append)
    assert all(line.endswith("already scored, skipped") for line in lines) and len(lines) == len(load_tasks(SELECTION))


def test_stored_results_at_the_run_s_prompt_level_are_loaded_and_no_agent_starts(tmp_path):
    # the resume rule alone, without scoring: every selected task has a result file from an earlier run (the shape
    # run_suite writes), so the run loads each one as it is and reports it skipped; nothing is scored again
    tasks = load_tasks(SELECTION)
    adir = agent_dir(tmp_path, "noop")
    adir.mkdir(parents=True)
    for t in tasks:
        stored = TaskScore(task_id=t.id, track=t.spec.track, agent="noop", passed=False, reasons=["stored earlier"],
                           prompt_level=prompt_for(t, "plain")[1])  # fmt: skip
        (adir / f"{t.id}.json").write_text(stored.model_dump_json())
    lines: list[str] = []
    scores = run_suite(tasks, "noop", tmp_path, progress=lines.append)
    assert lines == [f"{t.id}: already scored, skipped" for t in tasks]
    assert sorted(s.task_id for s in scores) == sorted(t.id for t in tasks)
    assert all(s.reasons == ["stored earlier"] and s.seconds == 0.0 for s in scores)
