"""Child-process entry point: run one engine function and write its model (or its error) as JSON.

``python -m mcp_server.worker JOB_DIR`` reads ``JOB_DIR/request.json`` (``{"call": name, "kwargs": {...}}``), calls
the function named in ``CALLS`` and writes ``JOB_DIR/result.json``. The server kills this process's group to cancel;
SIGTERM is turned into an exception so that the engine's own children (which run in their own process groups) are
killed by ``Executor.run``'s cleanup before this process exits.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import signal
import sys
from pathlib import Path

from tools.errors import KernelpilotError
from tools.paths import confined_to

# name -> "module:function"; only these can be called, whatever the request says.
CALLS: dict[str, str] = {
    "dump-ir": "tools.dump_ir:dump_ir",
    "dump-ir-command": "tools.dump_ir:dump_ir_command",
    "prefetch-data-load": "tools.prefetch:analyze_prefetch",
    "prefetch-verify": "tools.prefetch:verify_prefetch",
    "kernel-trace-run": "tools.kernel_trace:profile_command",
    "check": "tools.check.compare:check",
    "predict": "tools.predict.cli:predict_file",
}


class Terminated(BaseException):
    """Raised from the SIGTERM handler; BaseException so that no ``except Exception`` swallows it."""


def _terminate(signum, frame):
    raise Terminated()


def main(argv: list[str]) -> int:
    job_dir = Path(argv[0])
    request = json.loads((job_dir / "request.json").read_text())
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGHUP, _terminate)
    module, _, func = CALLS[request["call"]].partition(":")
    fn = getattr(importlib.import_module(module), func)
    try:
        with confined_to(request.get("roots") or []) if "roots" in request else contextlib.nullcontext():
            result = fn(**request["kwargs"])
        payload = {"ok": True, "result": result.model_dump(mode="json")}
    except KernelpilotError as exc:
        error = {"kind": type(exc).__name__, "message": exc.message, "hint": exc.hint, "details": exc.details}
        payload = {"ok": False, "error": error}
    tmp = job_dir / "result.json.tmp"
    tmp.write_text(json.dumps(payload))
    tmp.replace(job_dir / "result.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
