"""Errors a user (or an agent) can act on: what went wrong, and what to do next."""

from __future__ import annotations


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
