"""kernel-trace: read a profiler output (or run the profiler on a GPU host) and report where the GPU time goes.

``readers`` turns any supported output into a Trace, ``report`` builds the TraceReport, ``profile`` runs
rocprofv3/ATT/ncu on a command, ``cli`` is ``kernelpilot kernel-trace``.
"""

from tools.kernel_trace.cli import render
from tools.kernel_trace.profile import INSTALL_HINTS, check_run, detect_profiler, profile_command
from tools.kernel_trace.readers import FORMATS_EXPECTED, find_outputs, load_trace
from tools.kernel_trace.report import build_report, compare_traces, summarize_trace

_check_run = check_run  # the name tests/test_trace_runners.py imports (it was private before the package split)

__all__ = [
    "FORMATS_EXPECTED",
    "INSTALL_HINTS",
    "build_report",
    "check_run",
    "compare_traces",
    "detect_profiler",
    "find_outputs",
    "load_trace",
    "profile_command",
    "render",
    "summarize_trace",
]
