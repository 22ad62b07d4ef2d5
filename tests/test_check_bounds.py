"""check is bounded: the kernels run in a child with a deadline and a memory cap; a kernel file's own exit code is
never read as one of ours (issue 24 #3, issue 23 "one way for a child process to report")."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tools.check.compare import CheckTimeout, check
from tools.cli import main
from tools.dump_ir import dump_ir
from tools.errors import InputError, KernelpilotError

from .conftest import REPO

DATA = REPO / "tests" / "data" / "check" / "bounds"
WIDE = DATA / "wide_add.py"


@pytest.mark.slow
def test_an_endless_kernel_stops_at_the_timeout_with_a_timeout_error():
    dump_ir(DATA / "spin.py", "gfx942")  # the compile cached first: the figure is the run's, on a loaded machine
    t0 = time.monotonic()
    with pytest.raises(CheckTimeout, match="--timeout") as exc:
        check(DATA / "spin.py", DATA / "spin.py", timeout=20)
    elapsed = time.monotonic() - t0
    assert elapsed < 25, elapsed  # 20 s, then the child's process group killed within the runner's grace period
    assert "--timeout ran out" in exc.value.message  # while the kernels ran, unless the machine is very loaded


@pytest.mark.slow
@pytest.mark.parametrize("programs", [200_000, 10**9])
def test_a_grid_too_large_for_the_cpu_engine_is_refused_before_it_allocates(programs, capsys):
    # 200,000 workgroups × 256 threads = 51.2 M lanes; at ≥128 B a lane that is ≥6.5 GB before the kernel's own
    # values: over the 2 GB cap given here. The estimate refuses it in the child before numpy allocates anything.
    code = main(["check", str(WIDE), str(WIDE), "--shape", f"programs={programs}", "--max-memory", "2"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{programs * 256:,} lanes" in err and "the cap is 2.0 GB" in err and "hint:" in err, err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.slow
def test_a_grid_within_the_cap_runs():
    rep = check(WIDE, WIDE, shapes=[{"programs": 8}])
    assert rep.verdict == "same" and rep.cases[0].buffers[0].elements == 1024  # out_ptr: n = 1024 floats


def test_the_inputs_child_reports_a_kernel_files_exit_4_as_its_exit_not_a_convention(tmp_path):
    # the child's exit code is 0 here, and 4 would once have meant "convention not followed": only result.json counts
    argv = [sys.executable, "-m", "tools.check._inputs_child", str(DATA / "exit4.py"), "triton", "[[0, {}]]",
            str(tmp_path)]  # fmt: skip
    subprocess.run(argv, cwd=REPO, env={"PYTHONPATH": str(REPO)}, check=False, timeout=300)
    got = json.loads((tmp_path / "result.json").read_text())
    assert got["status"] == "exited" and "sys.exit(4)" in got["message"]


@pytest.mark.slow
def test_check_diagnoses_exit_4_at_import_as_the_files_own_exit(tmp_path):
    with pytest.raises(InputError) as exc:
        check(WIDE, WIDE, inputs=DATA / "exit4.py", shapes=[{"programs": 2}])
    text = exc.value.render()
    assert "sys.exit(4)" in text and "define kernelpilot_inputs" not in text, text


def test_dump_ir_diagnoses_exit_4_at_import_as_the_files_own_exit():
    with pytest.raises(KernelpilotError) as exc:
        dump_ir(DATA / "exit4.py", "gfx942", frontend="triton")
    assert "sys.exit(4)" in exc.value.render()
