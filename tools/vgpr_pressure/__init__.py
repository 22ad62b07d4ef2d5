"""``vgpr-pressure``: register use, exact liveness, peak points, spills and what to cut.

Callers (CLI, MCP server, evals) use :func:`analyze_isa`, :func:`analyze_isa_all`, :func:`analyze_path`,
:func:`analyze_cubin`, :func:`analyze_spec` and :func:`diff_reports`; all return pydantic models from
``tools.models.vgpr``. Modules: ``amd`` (AMDGCN), ``nvidia`` (SASS), ``triton`` (what the Triton stages beside the
ISA say), ``suggestions`` (one function per suggestion id), ``diff`` (regression rules), ``analyze`` (any input),
``cli`` (the command).
"""

from __future__ import annotations

from tools.inputs import ISA_SUFFIXES, SOURCE_SUFFIXES, find_isa_files
from tools.vgpr_pressure.amd import analyze_isa, analyze_isa_all, analyze_kernel
from tools.vgpr_pressure.analyze import analyze_path, analyze_source, analyze_spec
from tools.vgpr_pressure.diff import PEAK_REGRESSION_THRESHOLD, attach_baseline, diff_kernel, diff_reports
from tools.vgpr_pressure.nvidia import analyze_cubin

__all__ = [
    "ISA_SUFFIXES",
    "PEAK_REGRESSION_THRESHOLD",
    "SOURCE_SUFFIXES",
    "analyze_cubin",
    "analyze_isa",
    "analyze_isa_all",
    "analyze_kernel",
    "analyze_path",
    "analyze_source",
    "analyze_spec",
    "attach_baseline",
    "diff_kernel",
    "diff_reports",
    "find_isa_files",
]
