"""The open-ended amd-static tasks: each keeps a good solution.patch and a best solutions/excellent.patch,
and the excellent one is predicted at least 1.3x faster than the good one (``tools.predict.predict_pair`` with
``kernel_time``: the kernels' predicted time, the fixed launch overhead left out where both sides launch as often, as
the scorer compares them), on every arch the task targets; both clear the task's speed bar over the baseline
(the geometric mean over the archs, as the scorer scores it).

The kernels are the tasks' own, patched and compiled here; the figures are tools.predict's on this build."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

from evals.catalog import load_tasks
from tools.dump_ir import dump_ir
from tools.predict import predict_pair

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
@pytest.mark.slow
def test_excellent_is_predicted_at_least_1_3x_faster_than_good(task, tmp_path):
    base = _patched(task, None, tmp_path / "base")
    good = _patched(task, task.dir / "solution.patch", tmp_path / "good")
    best = _patched(task, task.dir / "solutions" / "excellent.patch", tmp_path / "excellent")
    over_base = []
    for arch in task.spec.archs:
        kb, kg, ke = (dump_ir(p, arch).kernels for p in (base, good, best))
        assert (
            predict_pair(kb, kb, arch=arch, kernel_time=True).predicted_speedup == 1.0
        )  # the noop: the same time on both sides
        over_base.append(predict_pair(kb, kg, arch=arch, kernel_time=True).predicted_speedup)
        over_good = predict_pair(kg, ke, arch=arch, kernel_time=True).predicted_speedup
        assert over_good >= 1.3, (task.id, arch, over_good)
    # the good solution clears the bar the way the scorer measures it: the geometric mean over the task's archs
    assert math.prod(over_base) ** (1 / len(over_base)) >= task.spec.speed_bar, (task.id, over_base)


def test_every_open_amd_task_states_the_speed_of_light_of_its_example_launch():
    for task in OPEN_AMD:
        perf = task.spec.performance
        assert perf is not None and perf.bytes and len(perf.shapes) == 1, task.id


@pytest.mark.slow
def test_an_open_amd_score_carries_the_tasks_own_fraction_of_speed_of_light(tmp_path):
    """The reference solution of open-amd-moe-combine through the real scorer, on the CPU: the fraction is the
    task's floor (its bytes on the example launch at peak HBM) over the predicted kernel time, not the predictor's
    byte count (which counts every lane's copy of the uniform Perm/W loads)."""
    from evals.harness.devices import Runtime
    from evals.harness.scoring import score

    task = next(t for t in OPEN_AMD if t.id == "open-amd-moe-combine")
    code = _patched(task, task.dir / "solution.patch", tmp_path / "good").parent
    s = score(task, code, task.workspace, tmp_path / "work", Runtime(), changed=["kernel.py"], diff_problems=[],
              agent="test")  # fmt: skip
    assert s.passed and s.correct, s.reasons
    # 16 tokens x 8 fp16 rows of 4096 read, 16 fp16 rows written, 16 x 8 (int32 + fp32) routing: 1 180 672 bytes;
    # at 5.3 TB/s (MI300X) 0.223 µs, at 8 TB/s (MI355X) 0.148 µs
    floors = [line for line in s.flags if "the task's floor for entry" in line]
    assert [f.split("floor for entry: ")[1].split(" µs")[0] for f in floors] == ["0.223", "0.148"]
    # against the good solution's predicted kernel times, 1.12 µs (gfx942) and 0.95 µs (gfx950): 0.199 and 0.155
    assert s.sol_defined and s.fraction_of_sol == pytest.approx((0.199 * 0.155) ** 0.5, rel=0.02)
