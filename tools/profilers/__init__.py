"""Profilers: read (and on a GPU host, run) rocprofv3, ATT and Nsight Compute into one trace model.

The package itself imports nothing heavy: :data:`PROFILERS` is the one set of profilers a command can be run under,
read by ``kernel-trace --profiler`` (its choices), the MCP ``profiler`` parameter and the run's default order."""

from __future__ import annotations

from typing import Literal

# the profilers kernel-trace runs a command under, in the order tried when none is named (whichever the host has)
PROFILERS: tuple[str, ...] = ("rocprofv3", "ncu")
ProfilerName = Literal[PROFILERS]  # type: ignore[valid-type]
