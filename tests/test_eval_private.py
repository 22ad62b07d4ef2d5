"""Hidden tasks kept outside the repository (`--tasks-dir`), prompt levels and the task
listing's reference diff size."""

import json
import shutil
from pathlib import Path

import pytest
import yaml

from evals.catalog import TASKS_DIR, load_tasks, patch_changed_lines
from evals.harness.agents import run_agent
from evals.models import TaskScore
from tools.cli import main
from tools.errors import InputError

SOURCE = "vgpr-spill-row-norm"  # a small amd-static Triton task: CPU compile + interpreter correctness
PLAIN = "kernel.py spills. Make it stop without slowing it down."


def _private_copy(root: Path, new_id: str, plain: str | None = PLAIN) -> Path:
    dest = root / new_id
    shutil.copytree(TASKS_DIR / SOURCE, dest)
    spec = yaml.safe_load((dest / "task.yaml").read_text())
    spec["id"] = new_id
    if plain:
        spec["prompt_plain"] = plain
    else:
        spec.pop("prompt_plain", None)
    (dest / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return dest


def test_changed_lines_count_added_and_removed_lines_but_not_file_headers():
    patch = "--- a/k.py\n+++ b/k.py\n@@ -1,3 +1,3 @@\n x = 1\n-y = 2\n+y = 3\n+z = 4\n"
    assert patch_changed_lines(patch) == 3  # one removed, two added; the ---/+++ headers are not changes


def test_private_tasks_dir_adds_its_tasks_to_the_catalogue(tmp_path):
    _private_copy(tmp_path, "row-norm-private")
    tasks = {t.id: t for t in load_tasks(tasks_dirs=[tmp_path])}
    assert "row-norm-private" in tasks and SOURCE in tasks
    assert tasks["row-norm-private"].dir == tmp_path / "row-norm-private"
    # the copy's reference changes as many lines as the original's
    assert tasks["row-norm-private"].reference_changed_lines == tasks[SOURCE].reference_changed_lines


def test_a_private_task_reusing_a_public_id_is_an_error_naming_both_folders(tmp_path):
    shutil.copytree(TASKS_DIR / SOURCE, tmp_path / SOURCE)
    with pytest.raises(InputError, match=f"task id '{SOURCE}' is defined twice"):
        load_tasks(tasks_dirs=[tmp_path])


def test_tasks_dir_that_is_not_a_folder_says_what_to_give(tmp_path):
    with pytest.raises(InputError, match="not a folder"):
        load_tasks(tasks_dirs=[tmp_path / "nowhere"])


def test_plain_level_gives_the_plain_prompt_and_falls_back_to_guided_without_one(tmp_path):
    _private_copy(tmp_path / "tasks", "row-norm-private")
    _private_copy(tmp_path / "tasks", "row-norm-guided-only", plain=None)
    guided_only, task = load_tasks(["row-norm-private", "row-norm-guided-only"], tasks_dirs=[tmp_path / "tasks"])
    cases = ((task, "plain", PLAIN), (task, "guided", task.spec.prompt), (guided_only, "plain", None))
    for t, level, expect in cases:
        ws, run = tmp_path / f"ws-{t.id}-{level}", tmp_path / f"run-{t.id}-{level}"
        ws.mkdir()
        run_agent("noop", None, t, ws, run, {}, 60, prompt_level=level)
        prompt = (run / "prompt.md").read_text()
        assert prompt.startswith(expect or guided_only.spec.prompt)


@pytest.mark.slow
def test_private_task_is_listed_run_and_scored_through_the_cli(tmp_path, capsys):
    private = tmp_path / "private"
    _private_copy(private, "row-norm-private")
    assert main(["eval", "tasks", "--tasks-dir", str(private)]) == 0
    listing = capsys.readouterr().out
    line = next(ln for ln in listing.splitlines() if ln.startswith("row-norm-private"))
    assert "amd-static" in line and "plain" in line
    out = tmp_path / "runs"
    rc = main(["eval", "run", "--agent", "reference", "--tasks", "row-norm-private", "--tasks-dir", str(private),
               "--out", str(out)])  # fmt: skip
    assert rc == 0
    s = TaskScore.model_validate_json((out / "reference" / "row-norm-private.json").read_text())
    assert s.passed and s.prompt_level == "plain" and s.reasons == []
    summary = json.loads((out / "reference" / "summary.json").read_text())
    assert summary["prompt_levels"] == {"plain": 1}
