"""One way for a child process that runs the user's Python file to load it and report back.

Four children import a user's file: the compile runner (``tools.frontends._pyrunner``), check's input builder and
LLVM runner (``tools.check._inputs_child``, ``tools.check._llvm_child``), the GPU comparison child
(``tools.profilers.gpu_child``) and the eval scorer's child (``evals.harness.child``). They share this contract:

* the user's file is imported by :func:`import_user_file` (its folder on ``sys.path``, registered in
  ``sys.modules`` so Triton's JIT can read its source);
* the outcome goes to a result file written atomically by :func:`write_result`; the parent reads it with
  :func:`read_result` and trusts nothing else: the exit code is the user's to choose (a kernel file calling
  ``sys.exit(4)`` must not read as one of ours), and no result file means the process ended early (a crash,
  ``os._exit``, a signal, a timeout);
* failures are told apart by type (:func:`failure`): ``exited`` (SystemExit), ``memory`` (MemoryError, e.g. under
  :func:`limit_memory`), ``error`` (a kernelpilot error, re-raised in the parent as the same class by
  :func:`raise_recorded`), ``user_error`` (any other exception: the user's code failed).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import traceback
from pathlib import Path
from typing import Literal, get_args

from tools.errors import InputError, KernelpilotError
from tools.files import write_atomic


class ConventionError(Exception):
    """The user's file does not follow the convention its tool documents (file mode's ``kernelpilot_entry()`` return
    value, check's input makers and ``--shape`` keys): the child reports it as status ``convention``, which the parent
    shows as a wrong input with the convention's text, never as the user's code failing."""


def import_user_file(path: Path, name: str | None = None):
    """Import the file at ``path`` as module ``name`` (default: its stem), its folder first on ``sys.path``."""
    path = Path(path)
    name = name or path.stem
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Triton's JIT reads the kernel's source through its module
    spec.loader.exec_module(module)
    return module


# What a child's result file says happened (the module docstring; ``failure`` maps an exception to one).
Status = Literal["ok", "error", "user_error", "exited", "memory", "convention"]
STATUSES: frozenset[str] = frozenset(get_args(Status))


def write_result(path: Path, status: Status, **fields) -> None:
    """Write ``{"status": status, **fields}`` to ``path`` atomically (a reader never sees half a file)."""
    if status not in STATUSES:
        raise ValueError(f"child result status {status!r} is none of {sorted(STATUSES)}")
    write_atomic(path, json.dumps({"status": status, **fields}, default=str))


def read_result(path: Path) -> dict | None:
    """The child's report, or None when it ended before writing one (or wrote something unreadable: not a JSON
    object, or a status none of ``STATUSES``)."""
    try:
        got = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    return got if isinstance(got, dict) and got.get("status") in STATUSES else None


def exception_fields(exc: BaseException) -> dict:
    """What the parent needs to tell one failure of the user's code from another without reading its stderr: the
    exception's class and text, and for an import that failed, the module that was not found."""
    fields = {"exception": type(exc).__name__, "exception_text": str(exc)[:4000]}
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        fields["missing_module"] = exc.name
    return fields


def user_traceback(exc: BaseException, path: Path) -> str:
    """The traceback from the user's file onward: our own frames are noise to the reader."""
    frames = traceback.extract_tb(exc.__traceback__)
    start = next((i for i, f in enumerate(frames) if Path(f.filename).resolve() == Path(path).resolve()), None)
    if start is None:  # raised inside a library after the user's code returned: its message carries the lines
        return "".join(traceback.format_exception_only(type(exc), exc))
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames[start:])]
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines)


def failure(exc: BaseException, where: str, path: Path | None = None) -> dict:
    """The fields of a failed step's result, by the exception's type (see the module docstring)."""
    if isinstance(exc, SystemExit):
        return {"status": "exited", "message": f"the file called sys.exit({exc.code!r}) {where}; kernel files must "
                "not exit the interpreter"}  # fmt: skip
    if isinstance(exc, MemoryError):
        return {"status": "memory", "message": f"out of memory {where}"}
    if isinstance(exc, KernelpilotError):
        fields = exc.record_fields() if hasattr(exc, "record_fields") else {}
        return {"status": "error", "error_module": type(exc).__module__, "error_class": type(exc).__name__,
                "message": exc.message, "hint": exc.hint, "details": exc.details, "fields": fields}  # fmt: skip
    tb = user_traceback(exc, path) if path else "".join(traceback.format_exception(exc, limit=-6))
    return {"status": "user_error", "message": f"{type(exc).__name__}: {exc} ({where})", "traceback": tb[-6000:],
            **exception_fields(exc)}  # fmt: skip


def raise_recorded(result: dict) -> None:
    """Re-raise an ``error`` result as the kernelpilot error class the child raised (InputError when that class is
    not a kernelpilot error of this package: the result file is the child's word, not code to import blindly)."""
    cls: type[KernelpilotError] = InputError
    module, name = result.get("error_module", ""), result.get("error_class", "")
    if module == "tools" or module.startswith("tools."):
        found = getattr(importlib.import_module(module), name, None)
        if isinstance(found, type) and issubclass(found, KernelpilotError):
            cls = found
    if hasattr(cls, "from_record"):  # an error with fields of its own (e.g. check's UnsupportedIR) rebuilds from them
        raise cls.from_record(result.get("fields") or {}, result.get("message", "?"))
    raise cls(result.get("message", "?"), hint=result.get("hint", ""), details=result.get("details", ""))


def limit_memory(max_bytes: int) -> None:
    """Cap this process's address space (RLIMIT_AS): an allocation past it raises MemoryError instead of growing
    until the machine's OOM killer picks a victim. A no-op where the platform has no such limit."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))
    except (ImportError, ValueError, OSError):
        pass
