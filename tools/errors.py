"""Errors a user (or an agent) can act on: what went wrong, and what to do next."""

from __future__ import annotations

import contextlib
import signal
import threading


class KernelpilotError(Exception):
    """An expected failure with a message that names the problem and a hint that names the fix.

    The CLI prints ``error: <message>`` and ``hint: <hint>`` and exits 2; the MCP server turns it into a ToolError.
    ``details`` carries the tool's own words (a compiler's stderr, a DSL traceback) verbatim.
    """

    def __init__(self, message: str, hint: str = "", details: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = details

    def render(self) -> str:
        parts = [f"error: {self.message}"]
        if self.details:
            parts.append(self.details.rstrip())
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.render()


class InputError(KernelpilotError):
    """The input (a path, a file's content, an option) is wrong."""


class ToolchainError(KernelpilotError):
    """A compiler, linker or profiler is missing or failed to start."""


class CompileError(KernelpilotError):
    """The kernel did not compile; ``details`` holds the compiler's own message."""


class Interrupted(BaseException):
    """SIGTERM or SIGHUP arrived: unwinds like Ctrl-C (BaseException, so no ``except Exception`` swallows it) and
    every ``finally`` runs: children killed, staging renamed. The CLI exits ``128 + signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


@contextlib.contextmanager
def stops_held():
    """While a stop is already under way (its report being written): the signals that stop a run (Ctrl-C, SIGTERM,
    SIGHUP) are ignored, so a second one cannot cut the report off; the handlers are restored after. Only the main
    thread can change handlers: elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class Cancelled(BaseException):
    """The job this thread runs was cancelled (``tools.executors.cancel_thread``, e.g. an eval driver's Ctrl-C
    reaching a Dask worker): the command in flight is killed with its process group and the job unwinds without
    starting another. A BaseException, so no ``except Exception`` turns a cancellation into the agent's failure."""


ERROR_TEXT_LIMIT = 20_000


def bounded(text: str, limit: int = ERROR_TEXT_LIMIT) -> str:
    """``text`` cut to about ``limit`` characters (head and tail kept), saying how much was left out."""
    if len(text) <= limit:
        return text
    keep = max(limit // 2 - 40, 10)
    return f"{text[:keep]} [... {len(text) - 2 * keep} characters left out ...] {text[-keep:]}"


def from_os_error(exc: OSError) -> InputError:
    """An OSError about a named file (unreadable, a directory, missing) as an error the user can act on."""
    name = exc.filename if exc.filename2 is None else f"{exc.filename} -> {exc.filename2}"
    if isinstance(exc, PermissionError):
        return InputError(
            f"cannot access {name}: permission denied",
            hint="make it readable (and its directories searchable) for this user, or pass a copy",
        )
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{name} is a directory where a file was expected", hint="pass the file inside it")
    if isinstance(exc, NotADirectoryError):
        return InputError(f"{name}: a part of this path is a file, not a directory", hint="check the path")
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{name} does not exist", hint="check the path")
    return InputError(f"cannot use {name}: {exc.strerror or exc}", hint="check the path and the disk")


def field_problems(errors: list[dict], prefix: tuple = ()) -> list[str]:
    """pydantic's ``ValidationError.errors()`` as lines a user can act on, each naming its field as a path into the
    file: ``launches[0].grid[1]: Input should be less than or equal to 2147483647`` (the value itself left out)."""
    lines = []
    for e in errors:
        where = ""
        for part in (*prefix, *e["loc"]):
            where += f"[{part}]" if isinstance(part, int) else f".{part}" if where else str(part)
        lines.append(f"{where or '(the top level)'}: {e['msg'].removeprefix('Value error, ')}")
    return lines
