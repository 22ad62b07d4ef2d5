"""Child-process entry point: run one engine function and write its model (or its error) as JSON.

``python -m mcp_server.worker JOB_DIR`` reads ``JOB_DIR/request.json`` (``{"call": name, "kwargs": {...}}``), calls
the function named in ``CALLS`` and writes ``JOB_DIR/result.json`` by the child-result protocol every kernelpilot child
follows (``tools.childproc``: ``ok`` with the model, or ``error`` naming the engine error's class). The server kills this process's group to cancel;
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

from tools.childproc import failure, write_result
from tools.errors import KernelpilotError
from tools.paths import confined_to

RESULT_FILE = "result.json"  # tools.childproc's result: "ok" with the model under "result", or the engine's error

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
    except KernelpilotError as exc:  # the engine's error, re-raised in the server as the same class (raise_recorded)
        write_result(job_dir / RESULT_FILE, **failure(exc, f"in {request['call']}"))
    else:
        write_result(job_dir / RESULT_FILE, "ok", result=result.model_dump(mode="json"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
