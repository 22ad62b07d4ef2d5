"""The processes one agent run or one scoring started (``tools.processes.ProcessTracker``), marked by
``KERNELPILOT_EVAL_MARK=<token>`` in the agent's environment: a ``setsid cmd &`` or ``nohup`` child of the agent is
found through ``/proc`` and killed when the run ends (see ``tools.processes`` for how, and what it cannot find)."""

from __future__ import annotations

from tools.processes import ProcessTracker as _ProcessTracker
from tools.processes import ProcInfo, command_line, process_table

__all__ = ["MARKER_ENV", "ProcInfo", "ProcessTracker", "command_line", "process_table"]

MARKER_ENV = "KERNELPILOT_EVAL_MARK"


class ProcessTracker(_ProcessTracker):
    """A tracker whose marker is the eval run's (``KERNELPILOT_EVAL_MARK``)."""

    def __init__(self, token: str | None = None, roots: tuple[int, ...] = ()) -> None:
        super().__init__(token, roots, env_name=MARKER_ENV)
