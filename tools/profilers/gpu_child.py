"""One side of a GPU comparison, in its own process: ``python -m tools.profilers.gpu_child SPEC.json``.

Started by ``tools.profilers.gpu_runner.run_pair`` (never by hand). The child imports ONE kernel file, calls its
``kernelpilot_run(device)`` and then serves requests, one JSON line on stdin, one JSON reply line on stdout:

- ``{"op": "check"}``: the file's ``check()`` -> ``{"ok", "detail"}`` (its output against its own reference);
- ``{"op": "save_output", "path"}`` / ``{"op": "compare_output", "path", "rtol", "atol"}``: where the file also
  returns ``"output": fn() -> tensor``, save this side's output, or compare it with the other side's saved one;
- ``{"op": "warm", "calls"}``, ``{"op": "time", "calls"}``: untimed calls, then per-call event times (microseconds,
  L2 flushed before each call, the host's launch kept out of the window) through
  ``tools.profilers.timing.EventTimer.round``.

The first line on stdin is a nonce; every reply carries it, and file descriptor 1 is pointed at stderr before the
kernel file is imported, so nothing the kernel prints can pass for a reply. The child dies with its parent
(``tools.executors.die_with_parent``, and it exits when stdin closes).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

from tools.childproc import import_user_file

RUN_ENTRY = "kernelpilot_run"


def _die_with_parent(parent: int) -> None:
    """SIGKILL this process when ``parent`` exits (Linux, ``executors.die_with_parent``); if it already has (it died
    before the call), exit now."""
    from tools.executors import die_with_parent

    die_with_parent()
    if os.getppid() != parent:
        os._exit(3)


def _import_file(path: Path, tag: str):
    return import_user_file(path, f"_kernelpilot_run_{tag}_{path.stem}")


class _Replies:
    """The reply stream: a duplicate of the original stdout; fd 1 itself now writes to stderr."""

    def __init__(self, nonce: str) -> None:
        self.nonce = nonce
        self.stream = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)

    def send(self, **reply) -> None:
        self.stream.write(json.dumps({"nonce": self.nonce, **reply}) + "\n")
        self.stream.flush()


def _failure(status: str, exc: BaseException, where: str) -> dict:
    message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
    return {
        "status": status,
        "message": f"{where}: {message}",
        "hint": getattr(exc, "hint", None),
        "traceback": "".join(traceback.format_exception(exc, limit=-4))[-4000:],
    }


def _start(spec: dict, out: _Replies):
    """Import the file, find a GPU, call ``kernelpilot_run(device)``; reply ``ready`` or why not. Returns the run
    dict and the timer, or None."""
    from tools.errors import KernelpilotError

    path = Path(spec["file"])
    try:
        module = _import_file(path, spec["role"])
    except Exception as exc:
        out.send(**_failure("error", exc, f"importing {path}"))
        return None
    entry = getattr(module, RUN_ENTRY, None)
    if not callable(entry):
        out.send(
            status="input-error",
            message=f"{path} defines no {RUN_ENTRY}(device)",
            hint="see skills/prefetch-data-load/SKILL.md",
        )
        return None
    from tools.profilers.timing import EventTimer

    try:
        timer = EventTimer(spec.get("flush_l2", True), spec.get("device"))
    except KernelpilotError as exc:
        out.send(status="no-gpu", message=exc.message, hint=exc.hint)
        return None
    try:
        run = entry(timer.device)
    except Exception as exc:
        out.send(**_failure("error", exc, f"{path}: {RUN_ENTRY}(device)"))
        return None
    if not isinstance(run, dict) or not callable(run.get("launch")) or not callable(run.get("check")):
        out.send(
            status="input-error",
            message=f"{path}: {RUN_ENTRY}(device) must return {{'launch': fn, 'check': fn, 'shape': str}}",
            hint="launch() runs the kernel once; check() returns (ok, detail) against a reference",
        )
        return None
    grid = run.get("grid")
    out.send(
        status="ready",
        device=timer.name,
        shape=None if run.get("shape") is None else str(run.get("shape")),
        grid=[int(g) for g in grid] if isinstance(grid, (tuple, list)) else None,
        has_output=callable(run.get("output")),
        flush_bytes=timer.flush_bytes,
    )
    return run, timer


def compare_outputs(mine, theirs, rtol: float, atol: float) -> tuple[bool, str]:
    """(ok, detail): AFTER's output ``mine`` against BEFORE's ``theirs`` (tensors), compared in float64 with
    ``torch.allclose`` (NaN equal to NaN), the largest absolute difference stated."""
    import torch

    if tuple(mine.shape) != tuple(theirs.shape):
        return False, f"output shapes differ: BEFORE {tuple(theirs.shape)}, AFTER {tuple(mine.shape)}"
    a, b = mine.double(), theirs.double()
    err = (a - b).abs().max().item() if a.numel() else 0.0
    ok = bool(torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return ok, f"max |AFTER - BEFORE| = {err:.3g} over {a.numel()} values (rtol {rtol:g}, atol {atol:g})"


def _serve(req: dict, run: dict, timer) -> dict:
    op = req.get("op")
    if op == "check":
        ok, detail = run["check"]()
        return {"ok": bool(ok), "detail": str(detail)}
    if op in ("save_output", "compare_output"):
        import torch

        out = run["output"]()
        timer.torch.cuda.synchronize(timer.device)
        out = out.detach().to("cpu")
        if op == "save_output":
            torch.save(out, req["path"])
            return {"saved": req["path"]}
        ok, detail = compare_outputs(out, torch.load(req["path"]), req["rtol"], req["atol"])
        return {"ok": ok, "detail": detail}
    if op == "warm":
        timer.warm(run["launch"], int(req["calls"]))
        return {"warmed": int(req["calls"])}
    if op == "time":
        return {"times_us": [c.event_us for c in timer.round(run["launch"], int(req["calls"]))]}
    return {"status": "error", "message": f"unknown request {op!r}"}


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text())
    _die_with_parent(int(spec["parent"]))
    out = _Replies(sys.stdin.readline().strip())
    started = _start(spec, out)
    if started is None:
        return 0
    run, timer = started
    for line in sys.stdin:  # ends when the parent closes stdin (or dies)
        req = json.loads(line)
        try:
            reply = _serve(req, run, timer)
        except Exception as exc:
            reply = _failure("error", exc, f"{spec['file']}: {req.get('op')}")
        out.send(**reply)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
