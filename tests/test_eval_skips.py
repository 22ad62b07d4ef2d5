"""Controls that cannot run on this host are `skipped (reason)`, never MISSED, and only real misses set the exit
status."""

import subprocess
import sys
from pathlib import Path

from evals.controls import CONTROLS, judge
from evals.models import TaskScore

ROOT = Path(__file__).resolve().parents[1]
HOISTED = next(c for c in CONTROLS if c.name == "hoisted-prefetch")

# A host without flydsl, made real for one interpreter: sys.modules["flydsl"] = None is Python's own "not
# importable" marker, so `import flydsl` fails and importlib.util.find_spec("flydsl") is None, as on a GPU host
# without it.
_NO_FLYDSL = """
import sys
sys.modules["flydsl"] = None
from tools.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_incomplete_score_that_did_not_catch_is_skipped_with_the_hosts_reason():
    # the verdict a GPU host without flydsl gave: the compile could not run, so the cheat was never examined
    score = TaskScore(task_id=HOISTED.task, track="amd-static", agent=HOISTED.agent, passed=False, complete=False)
    # the first reason says "here" and "GPU" but is a compile error; the host's lack is the toolchain_missing stage
    score.record("compile_failed", False, "kernel.py does not compile for gfx950: here is a GPU error")
    score.record("toolchain_missing", False, "cannot compile kernel.py for gfx942 here: flydsl is not installed")
    r = judge(HOISTED, score)
    assert (r.ran, r.caught, r.missed) == (False, False, False)
    assert (
        r.note == "scoring incomplete on this host: cannot compile kernel.py for gfx942 here: flydsl is not installed"
    )


def test_complete_score_that_did_not_catch_is_a_miss():
    score = TaskScore(task_id=HOISTED.task, track="amd-static", agent=HOISTED.agent, passed=True, complete=True)
    r = judge(HOISTED, score)
    assert (r.ran, r.caught, r.missed) == (True, False, True)


def test_controls_on_a_host_without_flydsl_skip_the_flydsl_control_and_exit_zero():
    proc = subprocess.run(
        [sys.executable, "-c", _NO_FLYDSL, "eval", "controls", "--only", "hoisted-prefetch"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "hoisted-prefetch: skipped (flydsl is not installed here" in proc.stdout
    assert "0/0 controls caught; 1 skipped here (hoisted-prefetch: flydsl is not installed here" in proc.stdout
    assert "MISSED" not in proc.stdout
