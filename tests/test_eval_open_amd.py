"""The open-ended amd-static tasks (issue 25): each keeps a good solution.patch and a best solutions/excellent.patch,
and the excellent one is predicted at least 1.3x faster than the good one (tools.predict, the score these tasks are
ranked by), on every arch the task targets; both clear the task's speed bar over the baseline.

The kernels are the tasks' own, patched and compiled here; the figures are tools.predict's on this build."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from evals.catalog import load_tasks
from tools.dump_ir import dump_ir
from tools.predict import predict_pair

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
OPEN_AMD = [t for t in load_tasks(["tag:open-ended"]) if t.spec.track == "amd-static" and t.id.startswith("open-amd-")]


def _patched(task, patch: Path | None, dest: Path) -> Path:
    shutil.copytree(task.dir / "workspace", dest)
    if patch is not None:
        subprocess.run(["git", "apply", "-p1", str(patch)], cwd=dest, check=True, capture_output=True, timeout=60)
    return dest / "kernel.py"


def test_there_are_open_ended_amd_tasks_scored_on_predicted_time():
    assert len(OPEN_AMD) >= 2
    for task in OPEN_AMD:
        assert task.spec.speed_bar is not None and task.spec.speed_bar > 1.0, task.id
        assert (task.dir / "solutions" / "excellent.patch").is_file(), task.id


@pytest.mark.parametrize("task", OPEN_AMD, ids=lambda t: t.id)
def test_excellent_is_predicted_at_least_1_3x_faster_than_good(task, tmp_path):
    base = _patched(task, None, tmp_path / "base")
    good = _patched(task, task.dir / "solution.patch", tmp_path / "good")
    best = _patched(task, task.dir / "solutions" / "excellent.patch", tmp_path / "excellent")
    for arch in task.spec.archs:
        kb, kg, ke = (dump_ir(p, arch).kernels for p in (base, good, best))
        assert predict_pair(kb, kb, arch=arch).predicted_speedup == 1.0  # the noop: the same time on both sides
        over_base = predict_pair(kb, kg, arch=arch).predicted_speedup
        over_good = predict_pair(kg, ke, arch=arch).predicted_speedup
        assert over_base >= task.spec.speed_bar, (task.id, arch, over_base)
        assert over_good >= 1.3, (task.id, arch, over_good)
