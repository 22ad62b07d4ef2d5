"""Resuming an eval run when a stored result cannot be read back (cut off by a crash or a full disk, emptied, edited,
replaced by a folder or a FIFO): the task is scored again and the run says which file and why; it used to stop the
whole run with exit 70 before anything was scored."""

from __future__ import annotations

import json
import os

import pytest

from evals.catalog import load_tasks
from evals.harness.agents import prompt_for
from evals.harness.runner import already_scored
from evals.models import TaskScore
from tools.cli import main

KEPT, BROKEN = "vgpr-spill-row-norm", "barrier-load-hoist"


def _stored(task_id: str) -> str:
    (t,) = load_tasks([task_id])
    s = TaskScore(task_id=task_id, track="amd-static", agent="noop", passed=False, complete=True)
    s.prompt_level = prompt_for(t, "plain")[1]
    return s.model_dump_json(indent=1)


def _cut(text: str) -> str:
    return text[: len(text) // 2]  # what a crash mid-write leaves without write_atomic


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda f: f.write_text(_cut(_stored(BROKEN))), "Invalid JSON: EOF while parsing"),
        (lambda f: f.write_text(""), "Invalid JSON: EOF while parsing a value at line 1 column 0"),
        (lambda f: f.write_text("[]"), "Input should be an object"),
        (lambda f: f.write_text(json.dumps({"task_id": BROKEN})), "track: Field required"),
        (lambda f: f.write_bytes(b"\xff\xfe"), "Invalid JSON: expected value at line 1 column 1"),
        (lambda f: f.mkdir(), "a folder"),
        (lambda f: os.mkfifo(f), "not a regular file: a FIFO"),  # reading it would block the run
    ],
    ids=["truncated", "empty", "a list", "a field missing", "not utf-8", "a folder", "a fifo"],
)
def test_an_unreadable_stored_result_is_scored_again_and_the_run_says_why(tmp_path, damage, why):
    (tmp_path / f"{KEPT}.json").write_text(_stored(KEPT))
    damage(tmp_path / f"{BROKEN}.json")
    said: list[str] = []
    results, todo = already_scored(load_tasks([KEPT, BROKEN]), tmp_path, True, "plain", said.append)
    assert list(results) == [KEPT] and [t.id for t in todo] == [BROKEN]
    (broken,) = [line for line in said if line.startswith(f"{BROKEN}: ")]
    assert f"{KEPT}: already scored, skipped" in said and len(said) == 2
    assert broken.startswith(f"{BROKEN}: {tmp_path / BROKEN}.json is not a readable result ({why}"), broken
    assert broken.endswith("; scoring the task again")


@pytest.mark.slow
def test_eval_run_resumes_past_a_truncated_result_and_replaces_it(tmp_path, capsys):
    out = tmp_path / "out"
    f = out / "noop" / f"{KEPT}.json"
    f.parent.mkdir(parents=True)
    f.write_text(_cut(_stored(KEPT)))
    assert main(["eval", "run", "--agent", "noop", "--tasks", KEPT, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"{KEPT}: {f} is not a readable result (Invalid JSON: EOF while parsing" in said
    assert f"{KEPT}: FAIL" in said  # scored again: noop leaves the baseline, which fails its ISA checks
    assert TaskScore.model_validate_json(f.read_text()).task_id == KEPT  # the new result replaced the cut one
