"""Run two versions of a kernel on this host's GPU, each in its own process, and compare them.

``run_pair(before, after)`` is the one way kernelpilot runs a BEFORE/AFTER pair on a GPU (``prefetch-data-load
--verify`` uses it; the eval harness is to adopt it). Each file defines ``kernelpilot_run(device)`` returning
``{"launch": fn, "check": fn -> (ok, detail), "shape": str}`` and optionally ``"grid"`` (the launch grid) and
``"output": fn -> tensor`` (one launch's output, compared between the sides). Each side runs in a child process
(``tools.profilers.gpu_child``) so the two never share an interpreter, a CUDA context or patched modules:

1. both children import their file, find the GPU and call ``kernelpilot_run``;
2. each output is checked against its own reference, and where both give ``output`` the two are compared;
3. only when both are correct and run the same problem: ``warmup`` untimed calls each, then ``rounds`` calls each,
   interleaved ABBA (clock drift and thermal state hit both alike), every call timed with CUDA/HIP events after an
   L2 flush (``tools.profilers.timing.EventTimer``), compared with ``compare_times`` (bootstrap CI of the speedup).

Nothing here raises for what the GPU or a kernel does: the result's ``status`` says what happened and ``note``
why, in words (``no-gpu``, ``wrong-output``, ``error``, ``timeout``... are outcomes, not exceptions). The children
die with this process: killed with their process groups when ``run_pair`` returns for any reason (timeout,
exception, SIGTERM through the CLI), and by the kernel (PR_SET_PDEATHSIG) if this process is killed outright.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, Field

from tools.executors import LineServer
from tools.profilers.timing import Comparison, abba, compare_times

ROLES = ("BEFORE", "AFTER")
CHILD_MODULE = "tools.profilers.gpu_child"
STDERR_LINES = 30

Status = Literal["measured", "no-gpu", "input-error", "error", "timeout", "wrong-output", "different-problems"]


class SideOutcome(BaseModel):
    """What one side's process did."""

    role: Literal["BEFORE", "AFTER"]
    file: str
    started: bool = Field(False, description="the file was imported and kernelpilot_run(device) returned")
    correct: bool | None = Field(None, description="its check() passed; None: not run")
    detail: str = Field("", description="check()'s detail, or why the side did not run")
    shape: str | None = None
    grid: list[int] | None = Field(None, description="the launch grid kernelpilot_run states, if it does")
    error: str | None = Field(None, description="the child's failure, with the last lines of its traceback")


class GpuComparison(BaseModel):
    """The outcome of ``run_pair``: ``measured`` only when both sides ran correct on the same problem and were timed."""

    status: Status
    note: str = Field(description="one line: what was measured, or why nothing was")
    hint: str | None = Field(None, description="what to do next, when the status is not measured")
    failed_side: Literal["BEFORE", "AFTER"] | None = Field(None, description="the side whose process failed, if one")
    device: str | None = None
    shape: str | None = None
    before: SideOutcome
    after: SideOutcome
    outputs_match: bool | None = Field(None, description="BEFORE's and AFTER's outputs agree; None: not compared")
    outputs_detail: str | None = None
    comparison: Comparison | None = Field(None, description="AFTER (candidate) against BEFORE (baseline)")

    @property
    def measured(self) -> bool:
        return self.status == "measured"


class ChildFailed(Exception):
    """A child did not answer as expected: ``status`` is the GpuComparison status it maps to."""

    def __init__(self, role: str, status: str, message: str, hint: str | None = None, error: str | None = None):
        super().__init__(message)
        self.role, self.status, self.message, self.hint, self.error = role, status, message, hint, error


class SideProcess:
    """One side's process, parent end: a ``tools.executors.LineServer`` (JSON request lines in, reply lines out) whose
    replies count only when they carry the nonce this end sends (nothing the kernel prints can pass for one). The
    child may be started early and held: it imports what it needs, says ``{"ready": true}``, and touches the GPU only
    once ``go()`` sends the nonce (the eval harness starts its processes while it compiles and releases them when it
    holds the GPU). Used by ``run_pair`` and by the eval harness (``evals.harness.correctness.KernelProcess``)."""

    def __init__(self, role: str, argv: list[str], *, env: dict, cwd: Path, stderr_path: Path, hold: bool = False):
        self.role = role
        self.server = LineServer(argv, env=env, cwd=cwd, stderr_path=stderr_path)
        self.nonce = secrets.token_hex(16)
        self.started = self.ready = False
        if not hold:
            self.go()

    def wait_ready(self, timeout: float = 120) -> None:
        """Until a held child's imports are done (one that died or hangs here fails its first ``ask`` instead).
        The child says so once: a second call returns at once (it waited out its timeout, under the GPU lock, when
        the confirmation session's pre-started processes were waited for twice: H100, session 4)."""
        if not self.started and not self.ready:
            with contextlib.suppress(TimeoutError, RuntimeError):
                self.server.receive(timeout=timeout, accept=lambda r: r.get("ready") is True)
                self.ready = True

    def go(self) -> None:
        """Send the nonce: from here the child may touch the GPU."""
        if not self.started:
            self.server.send(self.nonce)
            self.started = True

    def receive(self, timeout: float) -> dict:
        """The next reply carrying the nonce; TimeoutError, or RuntimeError when the process exited."""
        return self.server.receive(timeout=timeout, accept=lambda r: r.get("nonce") == self.nonce)

    def ask(self, request: dict, timeout: float) -> dict:
        self.go()
        self.server.send(json.dumps(request))
        return self.receive(timeout)

    def stderr_tail(self, lines: int = STDERR_LINES) -> str:
        return self.server.stderr_tail(lines=lines)

    def close(self) -> None:
        self.server.close()


class _Child(SideProcess):
    """``run_pair``'s side: ``tools.profilers.gpu_child`` on one file; failures become ``ChildFailed``."""

    def __init__(self, role: str, file: Path, work: Path, flush_l2: bool, device: int | None) -> None:
        spec = {"file": str(file), "role": role.lower(), "parent": os.getpid(), "flush_l2": flush_l2, "device": device}
        spec_file = work / f"{role.lower()}.json"
        spec_file.write_text(json.dumps(spec))
        root = str(Path(__file__).resolve().parents[2])  # the child imports tools/ from this checkout
        env = {"PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
        argv = [sys.executable, "-m", CHILD_MODULE, str(spec_file)]
        super().__init__(role, argv, env=env, cwd=file.parent, stderr_path=work / f"{role.lower()}.stderr")

    def expect(self, deadline: float, what: str) -> dict:
        """The next reply before ``deadline`` (time.monotonic); a ChildFailed for a failure or no reply."""
        try:
            reply = self.receive(max(0.0, deadline - time.monotonic()))
        except TimeoutError as exc:
            raise ChildFailed(self.role, "timeout", f"{self.role} did not finish {what} in time") from exc
        except RuntimeError as exc:  # the process exited: its stderr says why
            error = self.stderr_tail() or None
            raise ChildFailed(self.role, "error", f"{self.role} failed during {what}: {exc}", error=error) from exc
        status = reply.get("status")
        if status in (None, "ready"):
            return reply
        message = reply.get("message") or f"{self.role} failed during {what}"
        raise ChildFailed(self.role, status, message, hint=reply.get("hint"), error=reply.get("traceback"))

    def request(self, request: dict, deadline: float) -> dict:
        self.server.send(json.dumps(request))
        return self.expect(deadline, request["op"])


def run_pair(
    before: str | Path,
    after: str | Path,
    *,
    rounds: int = 50,
    warmup: int = 10,
    flush_l2: bool = True,
    threshold: float = 0.02,
    rtol: float = 1e-3,
    atol: float = 1e-5,
    timeout: float = 600,
    device: int | None = None,
) -> GpuComparison:
    """Check and time BEFORE and AFTER (files defining ``kernelpilot_run(device)``) on this host's GPU, each in its
    own process; ``timeout`` bounds the whole call (start-up, compiles, checks, timing). ``rtol``/``atol`` apply
    where both files give an ``output`` to compare. Never raises for what a side does: see ``GpuComparison.status``.
    """
    if rounds < 1 or warmup < 0:
        raise ValueError("rounds must be >= 1 and warmup >= 0")
    files = {"BEFORE": Path(before), "AFTER": Path(after)}
    sides = {role: SideOutcome(role=role, file=str(path)) for role, path in files.items()}
    deadline = time.monotonic() + timeout
    children: dict[str, _Child] = {}
    with tempfile.TemporaryDirectory(prefix="kernelpilot-gpu-") as tmp:
        work = Path(tmp)
        try:
            for role in ROLES:  # both start at once: torch import and CUDA start-up overlap
                children[role] = _Child(role, files[role].resolve(), work, flush_l2, device)
            return _compare(children, sides, work, deadline, rounds, warmup, threshold, rtol, atol)
        except ChildFailed as exc:
            side = sides[exc.role]
            side.error = exc.error
            side.detail = exc.message
            return _failed(exc, sides)
        finally:
            for child in children.values():
                child.close()


def _failed(exc: ChildFailed, sides: dict[str, SideOutcome]) -> GpuComparison:
    lead = {
        "no-gpu": "not measured: no GPU",
        "input-error": f"not measured: {exc.role}'s kernelpilot_run is not usable",
        "timeout": "not measured: timed out",
        "error": f"not measured: {exc.role} failed",
    }.get(exc.status, f"not measured: {exc.status}")
    hint = exc.hint
    if exc.status == "error" and hint is None:
        hint = f"run {sides[exc.role].file}'s kernelpilot_run(device) by hand to see the whole traceback"
    return GpuComparison(
        status=exc.status if exc.status in get_args(Status) else "error",
        note=f"{lead} ({exc.message})",
        hint=hint,
        failed_side=None if exc.status == "no-gpu" else exc.role,
        before=sides["BEFORE"],
        after=sides["AFTER"],
    )


def _compare(children, sides, work, deadline, rounds, warmup, threshold, rtol, atol) -> GpuComparison:
    ready = {}
    for role in ROLES:
        ready[role] = children[role].expect(deadline, "start-up (import, GPU, kernelpilot_run)")
        side = sides[role]
        side.started, side.shape, side.grid = True, ready[role].get("shape"), ready[role].get("grid")
    device = ready["BEFORE"].get("device")
    for role in ROLES:
        try:
            reply = children[role].request({"op": "check"}, deadline)
        except ChildFailed as exc:
            if exc.status != "error":
                raise
            reply = {"ok": False, "detail": f"check() raised: {exc.message}"}  # a kernel that crashes is not correct
            sides[role].error = exc.error
        sides[role].correct, sides[role].detail = reply["ok"], reply["detail"]
    common = {"device": device, "shape": sides["BEFORE"].shape, "before": sides["BEFORE"], "after": sides["AFTER"]}
    shapes = {sides[r].shape for r in ROLES}
    if len(shapes) > 1:
        return GpuComparison(
            status="different-problems",
            note=f"not measured: BEFORE and AFTER run different problems {sorted(map(str, shapes))}",
            hint="make both kernelpilot_run(device) build the same inputs",
            **common,
        )
    wrong = [r for r in ROLES if not sides[r].correct]
    if wrong:
        return GpuComparison(status="wrong-output", note=f"not timed: {' and '.join(wrong)} output is wrong", **common)
    match = detail = None
    if all(ready[r].get("has_output") for r in ROLES):
        saved = str(work / "before-output.pt")
        children["BEFORE"].request({"op": "save_output", "path": saved}, deadline)
        reply = children["AFTER"].request({"op": "compare_output", "path": saved, "rtol": rtol, "atol": atol}, deadline)
        match, detail = reply["ok"], reply["detail"]
        if not match:
            return GpuComparison(
                status="wrong-output",
                note=f"not timed: AFTER's output differs from BEFORE's ({detail})",
                outputs_match=False,
                outputs_detail=detail,
                **common,
            )
    for role in ROLES:
        children[role].request({"op": "warm", "calls": warmup}, deadline)
    times: dict[str, list[float]] = {"BEFORE": [], "AFTER": []}
    for i in range(rounds):
        for role in abba(i, ROLES):
            times[role] += children[role].request({"op": "time", "calls": 1}, deadline)["times_us"]
    cmp = compare_times(times["BEFORE"], times["AFTER"], device=device or "", threshold=threshold)
    return GpuComparison(
        status="measured",
        note=f"{device}, {sides['BEFORE'].shape}: {cmp.summary}",
        outputs_match=match,
        outputs_detail=detail,
        comparison=cmp,
        **common,
    )
