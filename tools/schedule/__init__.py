"""schedule: a kernel's hot loop, prologue and epilogue cut into barrier-delimited clusters — what each issues,
how long each pipe is busy, what its waits retire and which cluster issued it — with ATT measurements beside.

- ``analysis``: inputs, kernel choice, the report (``analyze_schedule``);
- ``amd``: the clusters and the one-wave issue + latency model on the AMDGCN model;
- ``att``: the trace's code as ISA and the measured cycles per cluster;
- ``cli``: arguments and the text rendering.
"""

from tools.schedule.analysis import analyze_schedule
from tools.schedule.cli import add_arguments, format_report, run

__all__ = ["add_arguments", "analyze_schedule", "format_report", "run"]
