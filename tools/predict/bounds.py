"""predict's one time budget: ``--timeout`` bounds the whole call (compiles, the CPU engine's trip run, the trip
evaluator, the baseline), not each step on its own.

A ``TimeLimit(timeout)`` is made once per call; inside ``with limit:`` its ``left(doing)`` is the seconds still to
give a child (a compile, the CPU engine) and ``check(doing)`` (the module function, for code deep in the model that
gets no parameter) raises ``PredictTimeout`` naming the option once none are left. Outside one (a library call of
``predict_launch``) there is no deadline.
"""

from __future__ import annotations

import time
from contextvars import ContextVar

from tools.errors import KernelpilotError

_CURRENT: ContextVar[TimeLimit | None] = ContextVar("predict_time_limit", default=None)


class PredictTimeout(KernelpilotError):
    """predict ran past its --timeout (a child running then was stopped with it)."""


class TimeLimit:
    """``timeout`` seconds from now for everything predict does inside ``with`` blocks of this object."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self.end = time.monotonic() + timeout
        self._tokens: list = []

    def __enter__(self) -> TimeLimit:
        self._tokens.append(_CURRENT.set(self))
        return self

    def __exit__(self, *exc) -> None:
        _CURRENT.reset(self._tokens.pop())

    def check(self, doing: str) -> None:
        if time.monotonic() >= self.end:
            raise PredictTimeout(
                f"predict ran past its --timeout of {self.timeout:g}s while {doing}",
                hint="raise `kernelpilot predict --timeout` (MCP: the timeout parameter)",
            )

    def left(self, doing: str) -> float:
        """Seconds a child may take: what is left (PredictTimeout when nothing is)."""
        self.check(doing)
        return self.end - time.monotonic()


def check(doing: str) -> None:
    """Raise ``PredictTimeout`` when the current call's --timeout has run out (``doing``: what was under way)."""
    limit = _CURRENT.get()
    if limit is not None:
        limit.check(doing)
