"""The deadlines and the memory cap of one scoring, and the stage markers ``score`` sends so that the process
waiting for it (``scoring._score_once``) knows which stage is running and can enforce both from outside.

Every stage has its own deadline and the scoring as a whole has one too; waiting for the GPU (another task's GPU
phase holds it) is a stage of its own that does not count against the whole. A stage of the candidate that runs
past its deadline, or scoring processes that together go over the memory cap, end the scoring with ``timeout`` or
``out_of_memory`` naming the stage: the candidate's failure. A wait that runs past its deadline is the harness's
(an ``infra_error``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

# seconds; generous against the slowest task seen (a FlyDSL oracle over every shape and seed, two archs)
STAGE_DEADLINES_S: dict[str, float] = {
    "static checks": 120.0,
    "compile": 900.0,  # candidate and baseline, every target and arch, kernel processes importing torch meanwhile
    "oracle": 1800.0,  # llvm-cpu: reference and candidate through kernelpilot check
    "correctness": 900.0,
    "timing": 1800.0,
    "waiting for the GPU": 3600.0,  # another scoring's GPU phase: at most its correctness + timing deadlines
}
WAIT_STAGES = frozenset({"waiting for the GPU"})
SCORE_DEADLINE_S = 3600.0


def host_memory_bytes() -> int:
    """This host's physical memory (``/proc/meminfo``'s MemTotal; sysconf elsewhere)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def default_memory_cap(parallel: int) -> int:
    """80 % of this host's memory shared among the scorings that may run at once."""
    return int(0.8 * host_memory_bytes() / max(1, parallel))


@dataclass(frozen=True)
class ScoreLimits:
    """``total_s``: the whole scoring, waits excluded; ``stages_s``: each stage (see ``STAGE_DEADLINES_S``);
    ``memory_bytes``: the resident memory of the scoring process and every process it started, together (None:
    ``default_memory_cap(1)`` of the host that scores)."""

    total_s: float = SCORE_DEADLINE_S
    stages_s: dict[str, float] = field(default_factory=lambda: dict(STAGE_DEADLINES_S))
    memory_bytes: int | None = None

    def stage_s(self, stage: str) -> float:
        return self.stages_s.get(stage, self.total_s)

    @property
    def memory_cap(self) -> int:
        return self.memory_bytes or default_memory_cap(1)


_SINK = None  # in a scoring process: the pipe to the process waiting for it


def set_stage_sink(conn) -> None:
    global _SINK
    _SINK = conn


def enter_stage(stage: str, partial) -> None:
    """Tell the waiting process that ``stage`` starts, with the score so far (a ``TaskScore``): what it records if
    the stage runs out of time or memory. A no-op when ``score`` runs in the caller's own process."""
    if _SINK is not None:
        _SINK.send(("stage", stage, partial.model_dump_json()))
