"""A failure of the eval harness itself (the scorer, the runner) is recorded as ``infra_error``, retried once, and
never counted as the agent's failure."""

from __future__ import annotations


def test_a_scorer_failure_is_infra_error_not_the_agents_failure(tmp_path):
    # score() cannot create its work directory (a file sits where its parent should be): a harness fault
    from evals.catalog import load_tasks
    from evals.harness.devices import Runtime
    from evals.harness.scoring import score_isolated

    (tmp_path / "blocker").write_text("")
    task = load_tasks(["matmul-tiling"])[0]
    s = score_isolated(
        task, tmp_path, tmp_path, tmp_path / "blocker" / "work", Runtime(), changed=[], diff_problems=[], agent="x"
    )
    assert (s.passed, s.complete) == (False, False)
    assert s.infra_error.startswith("the scorer failed twice: ") and "blocker" in s.infra_error
    assert s.reasons == [f"infra_error: {s.infra_error} (not the agent's failure; re-run the task)"]


def test_runner_retries_a_harness_exception_once_then_records_infra_error(tmp_path, monkeypatch):
    import evals.harness.runner as runner
    from evals.catalog import load_tasks

    calls = []

    def broken(task, *args, **kwargs):
        calls.append(task.id)
        raise SystemError("AST constructor recursion depth mismatch (before=33, after=27)")

    monkeypatch.setattr(runner, "run_one", broken)
    [s] = runner.run_suite(load_tasks(["matmul-tiling"]), "noop", tmp_path, progress=lambda m: None)
    assert calls == ["matmul-tiling", "matmul-tiling"]  # tried, then retried once
    assert s.infra_error == (
        "the harness failed twice on this task: SystemError: AST constructor recursion depth mismatch (before=33, "
        "after=27)"
    )
    assert not s.passed and not s.complete
    # the stored result is not "already scored": a re-run scores the task again
    monkeypatch.setattr(runner, "run_one", broken)
    runner.run_suite(load_tasks(["matmul-tiling"]), "noop", tmp_path, progress=lambda m: None)
    assert len(calls) == 4
