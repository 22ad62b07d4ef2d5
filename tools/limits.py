"""Bounds of the numeric inputs the engine takes, in one place: the CLI checks them when it parses its options
(``tools.cli.NUMBER_RANGES``) and the engine functions again at their entry, before any compile, for callers that are
not the CLI (the MCP tools, the eval harness). Imports nothing, so the CLI starts fast."""

from __future__ import annotations

# check's --max-memory (GB): below 10 MB not even a tiny launch's lanes fit; above 1 TB it is no cap on any host
MIN_MEMORY_GB = 0.01
MAX_MEMORY_GB = 1024.0
# predict's --trips: hot-loop iterations per program; past 10**9 a prediction is hours of one program's loop
MAX_TRIPS = 1e9
# any --timeout / --time-limit (seconds): a week (a value the clocks and subprocess waits take without overflow)
MAX_TIMEOUT_S = 7 * 86400.0


def out_of_range(value: float, low: float, high: float) -> bool:
    """Whether ``value`` is not a finite number within [low, high]."""
    return not (low <= value <= high)  # False for nan as for numbers outside
