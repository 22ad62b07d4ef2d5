"""kernel-trace: read a profiler output (or run the profiler on a GPU host) and report where the GPU time goes."""

from tools.kernel_trace.report import (
    FORMATS_EXPECTED,
    _check_run,
    build_report,
    compare_traces,
    detect_profiler,
    load_trace,
    profile_command,
    summarize_trace,
)

__all__ = [
    "FORMATS_EXPECTED",
    "build_report",
    "compare_traces",
    "detect_profiler",
    "load_trace",
    "profile_command",
    "summarize_trace",
]
