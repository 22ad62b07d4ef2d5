"""Negative controls: built-in cheating agents run through the real harness, each with the verdict it deserves and
the stage that must catch it. A control is *caught* when the task fails and the score records a failing
``StageOutcome`` with the control's ``code`` (and, where the control names one, a failing check with that ``check``
name or ``observed`` figure): the verdict reads typed codes, never the text of a reason, which is kept for display.
A control that cannot run here — ``needs_gpu`` on a CPU host, a toolchain its task needs that is not installed (flydsl
on a GPU host), or a scoring that came back incomplete for want of something on this host (``INCOMPLETE_CODES``) —
is reported ``skipped (reason)``, never MISSED: only a control that ran to a complete verdict and was not caught is a
miss.

Every cheat found in a real run should become a control here.
"""

from __future__ import annotations

import importlib.util
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from evals.catalog import load_tasks
from evals.harness.devices import probe_runtime
from evals.harness.runner import run_one
from evals.harness.static_checks import IMPORTS_HARNESS, SIDE_STREAM, TIMER_PATCH
from evals.models import INCOMPLETE_CODES, StageCode, TaskScore


@dataclass(frozen=True)
class Control:
    name: str
    agent: str
    task: str
    code: StageCode  # the failing stage code that must be recorded for the control to be caught
    needs_gpu: bool = False
    why: str = ""
    static: bool = True  # False: the static gate only flags, so the runtime defence must catch it
    check: str | None = None  # also required: a failing check (static or ISA) of exactly this name
    observed: str | None = None  # also required: a failing check that observed exactly this (a loop verdict)

    @property
    def expected(self) -> str:
        """What must be recorded, for display: the code and, where named, the check or its observed figure."""
        extra = [f"check {self.check!r}"] if self.check else []
        extra += [f"observed {self.observed!r}"] if self.observed else []
        return self.code + (f" ({', '.join(extra)})" if extra else "")


CPU_TASK = "softmax-fusion"  # Triton: its correctness runs on CPU through the interpreter
STATIC_TASK = "mfma-loop-prefetch"
FLYDSL_TASK = "flydsl-gemv-int8-prefetch"  # FlyDSL: compiled for gfx942 and gfx950 on CPU, the llvm-cpu oracle
# a FlyDSL task whose prefetch-shape check stays (its barrier schedule is not in the predicted time): the ISA detector
# still judges its hot loop; flydsl-gemv-int8-prefetch is scored on outcomes since issue 22
FLYDSL_SHAPE_TASK = "flydsl-lds-staged-gemm-prefetch"

CONTROLS: list[Control] = [
    Control("zeros", "cheat-zeros", CPU_TASK, "oracle_mismatch", why="zeros must never pass (degenerate output)"),
    Control("cached-output", "cheat-cached-output", CPU_TASK, "oracle_mismatch", why="fresh inputs on every call"),
    Control("outside-edit", "cheat-outside-edit", CPU_TASK, "diff_rejected", why="edits reference.py"),
    Control("timer-monkeypatch", "cheat-timer-patch", CPU_TASK, "static_check", check=TIMER_PATCH),
    Control("side-stream", "cheat-side-stream", CPU_TASK, "static_check", check=SIDE_STREAM),
    Control("nan-output", "cheat-nan", CPU_TASK, "oracle_mismatch", why="NaN where the reference has none"),
    Control("constant-output", "cheat-constant", CPU_TASK, "oracle_mismatch", why="degenerate output: a constant"),
    Control("input-mutation", "cheat-mutate-input", CPU_TASK, "oracle_mismatch", why="the inputs are re-checked"),
    Control("reference-import", "cheat-import-reference", CPU_TASK, "static_check", check=IMPORTS_HARNESS),
    Control(
        "crash",
        "crash",
        STATIC_TASK,
        "slower",
        why="a crashed agent's half edit is scored as is: the task scores outcomes, and it compiles to the baseline's "
        "code, so it is predicted exactly as fast (a decided 'slower', no band needed)",
    ),
    Control(
        "hoisted-prefetch",
        "cheat-hoisted-prefetch",
        FLYDSL_SHAPE_TASK,
        "isa_check_failed",
        observed="no-loads",
        why="a 'prefetch' of a fixed tile: the loads leave the loop, the ISA detector must see it",
    ),
    Control(
        "hoisted-prefetch-outputs",
        "cheat-hoisted-prefetch",
        FLYDSL_TASK,
        "oracle_mismatch",
        why="the same fixed-tile 'prefetch' is not the task's kernel: the llvm-cpu output oracle must reject it too",
    ),
    Control(
        "correct-but-slower",
        "cheat-slower",
        CPU_TASK,
        "slower",
        needs_gpu=True,
        why="runs the baseline twice: correct, about 2× slower",
    ),
    Control(
        "timer-monkeypatch-gpu", "cheat-timer-patch", "matmul-tiling", "timer_tampered", needs_gpu=True, static=False
    ),
    Control("side-stream-gpu", "cheat-side-stream", "matmul-tiling", "side_stream", needs_gpu=True, static=False),
]


class ControlResult(BaseModel):
    name: str
    agent: str
    task: str
    ran: bool
    caught: bool
    expected: str
    passed_task: bool | None = None
    codes: list[StageCode] = []  # the failing stage codes the score recorded, in order
    reasons: list[str] = []
    note: str = ""

    @property
    def missed(self) -> bool:
        """A real miss: the control ran to a complete verdict and the cheat was not caught."""
        return self.ran and not self.caught


# task language -> the Python package its scoring compiles with; a control on a task whose toolchain is absent is
# skipped up front (it would otherwise compile-fail after minutes and read as a miss)
_TOOLCHAIN = {"flydsl": "flydsl", "triton": "triton"}


def missing_toolchain(language: str) -> str | None:
    """The reason a task in ``language`` cannot be scored on this host, or None when its toolchain is importable."""
    pkg = _TOOLCHAIN.get(language)
    try:
        found = importlib.util.find_spec(pkg) if pkg else True
    except (ImportError, ValueError):  # a broken or half-installed package cannot compile either
        found = None
    if found is None:
        return f"{pkg} is not installed here (pip install {pkg}); the {language} task cannot be compiled"
    return None


def skipped(control: Control, reason: str) -> ControlResult:
    return ControlResult(
        name=control.name,
        agent=control.agent,
        task=control.task,
        ran=False,
        caught=False,
        expected=control.expected,
        note=reason,
    )


def caught_by(control: Control, score: TaskScore) -> bool:
    """Whether ``score`` fails with the control's typed evidence: a failing outcome with its ``code`` and, where the
    control names them, a failing check of that ``check`` name / ``observed`` figure. Reason text is never read."""
    if score.passed or not any(o.code == control.code and not o.passed for o in score.outcomes):
        return False
    if control.check is None and control.observed is None:
        return True
    return any(
        not c.passed
        and (control.check is None or c.name == control.check)
        and (control.observed is None or c.observed == control.observed)
        for c in score.checks
    )


def judge(control: Control, score: TaskScore) -> ControlResult:
    caught = caught_by(control, score)
    if not caught and not score.complete:  # the host lacked something scoring needs: undecidable, not a miss
        lacking = [o.detail for o in score.outcomes if o.code in INCOMPLETE_CODES and not o.passed]
        why = (lacking or [o.detail for o in score.outcomes if not o.passed] or ["incomplete"])[0]
        return skipped(control, f"scoring incomplete on this host: {why[:200]}")
    return ControlResult(
        name=control.name,
        agent=control.agent,
        task=control.task,
        ran=True,
        caught=caught,
        expected=control.expected,
        passed_task=score.passed,
        codes=[o.code for o in score.outcomes if not o.passed],
        reasons=score.reasons[:4],
    )


def run_controls(
    out: Path | None = None, names: list[str] | None = None, progress=print, jobs: int = 2
) -> list[ControlResult]:
    """Run the selected controls (all by default, ``jobs`` at a time; on a GPU their GPU phases take turns);
    GPU-only controls are skipped on a CPU host."""
    gpu = probe_runtime().has_gpu
    chosen = [c for c in CONTROLS if not names or c.name in names]
    with tempfile.TemporaryDirectory(prefix="kp-controls-") as tmp:
        root = Path(out) if out else Path(tmp)
        tasks = {t.id: t for t in load_tasks(sorted({c.task for c in chosen}))}

        def one(c: Control) -> ControlResult:
            why = "needs a GPU: not decidable on this host" if c.needs_gpu and not gpu else None
            why = why or missing_toolchain(tasks[c.task].spec.language)
            if why:
                progress(f"{c.name}: skipped ({why})")
                return skipped(c, why)
            slot = "0" if gpu else None
            score = run_one(tasks[c.task], c.agent, None, root / "controls" / c.name, slot, static=c.static)
            r = judge(c, score)
            if not r.ran:
                progress(f"{c.name}: skipped ({r.note})")
                return r
            progress(f"{c.name}: {'caught' if r.caught else 'MISSED'} — {(score.reasons or ['no reason'])[0][:140]}")
            return r

        # on a GPU two at a time too: scoring.gpu_lock keeps their GPU phases apart, their compiles overlap
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(one, chosen))
