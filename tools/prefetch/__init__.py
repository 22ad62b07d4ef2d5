"""prefetch-data-load: find exposed load latency in loops (hot loop first) and verify a prefetch rewrite.

Input: a kernel file (compiled with dump-ir), an ISA/SASS file, a dump directory, or ISA text. The package:

- ``analysis``: inputs, per-kernel analysis, register headroom, occupancy, ``--baseline`` comparison;
- ``amd`` (AMDGCN, on the ISA model) and ``nvidia`` (SASS): the per-load records of each loop;
- ``verify``: the ``--verify BEFORE AFTER`` checks; ``gpu``: the GPU correctness and timing run behind them
  (``tools.profilers.gpu_runner``); ``launch``: the launch a kernel trace recorded (``--trace``);
- ``cli``: arguments and the text rendering.

``analyze_prefetch`` and ``verify_prefetch`` are pure with respect to their inputs (compiles are cached by content)
and return pydantic models. The names below are the public API the CLI, the MCP server and the eval checks use.
"""

from tools.prefetch.analysis import (
    ISA_SUFFIXES,
    MAX_LOOPS,
    SASS_SUFFIXES,
    SOURCE_SUFFIXES,
    analyze_prefetch,
    compare_to_baseline,
    hot_loop_of,
    hot_loop_report,
    occupancy_with_registers,
    resolve_source,
    workgroups_per_cu,
)
from tools.prefetch.cli import add_arguments, format_load, format_report, run
from tools.prefetch.gpu import RUN_ENTRY, measure_gpu, runner_file
from tools.prefetch.launch import launch_from_trace, with_launch
from tools.prefetch.verify import ROTATION_OPTION, copies_check, occupancy_check, verify_prefetch

__all__ = [
    "ISA_SUFFIXES",
    "MAX_LOOPS",
    "ROTATION_OPTION",
    "RUN_ENTRY",
    "SASS_SUFFIXES",
    "SOURCE_SUFFIXES",
    "add_arguments",
    "analyze_prefetch",
    "compare_to_baseline",
    "copies_check",
    "format_load",
    "format_report",
    "hot_loop_of",
    "hot_loop_report",
    "launch_from_trace",
    "measure_gpu",
    "occupancy_check",
    "occupancy_with_registers",
    "resolve_source",
    "run",
    "runner_file",
    "verify_prefetch",
    "with_launch",
    "workgroups_per_cu",
]
