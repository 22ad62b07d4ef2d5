"""Running a profiler (rocprofv3, optionally with ATT, or ncu) on a command, locally or through an executor."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from tools.errors import ToolchainError
from tools.executors import Executor, fetch_tree
from tools.kernel_trace.readers import NCU_EXPORT_NAMES, find_outputs, load_trace, read_ncu_exports
from tools.kernel_trace.report import add_ncu_context, build_report, report_summary
from tools.models.trace import TraceReport
from tools.profilers import PROFILERS, ProfilerName, att, ncu, rocprofv3

INSTALL_HINTS = {
    "rocprofv3": "install ROCm's rocprofiler-sdk (apt install rocprofiler-sdk; ships with ROCm >= 6.2) and put "
    "/opt/rocm/bin on PATH",
    "ncu": "install Nsight Compute (part of the CUDA toolkit, or apt install nsight-compute) and put its bin on PATH",
}


def detect_profiler(executor: Executor, timeout: float = 30) -> ProfilerName:
    """'rocprofv3' or 'ncu', whichever the executor's host has; ToolchainError naming both when neither."""
    for tool in PROFILERS:
        if executor.run(["which", tool], timeout=timeout).ok:
            return tool
    where = "this machine" if executor.kind == "local" else f"{executor.kind}:{executor.target}"
    raise ToolchainError(
        f"neither rocprofv3 nor ncu is on PATH on {where}",
        hint=f"AMD: {INSTALL_HINTS['rocprofv3']}. NVIDIA: {INSTALL_HINTS['ncu']}.",
    )


def check_run(result, what: str, timeout: float) -> None:
    if result.timed_out:
        raise ToolchainError(
            f"{what} timed out after {timeout:.0f} s and was killed",
            hint="profile fewer launches (--kernel REGEX, --launch-count) or raise --timeout",
            details=result.stderr[-3000:],
        )
    if result.returncode != 0:
        raise ToolchainError(
            f"{what} failed with exit code {result.returncode}: {' '.join(result.argv[:6])} ...",
            hint="run the command without the profiler first; the profiler's and the program's stderr follow",
            details=(result.stderr or result.stdout)[-3000:],
        )


def profile_command(
    command: Sequence[str],
    *,
    executor: str | Executor = "local",
    profiler: ProfilerName | None = None,
    att_trace: bool = False,
    kernel_regex: str | None = None,
    iterations: tuple[int, int] | None = None,
    output_format: str = "csv",
    output_dir: str | Path | None = None,
    launch_count: int = 1,
    top_k: int = 10,
    timeout: float = 600,
    clock_control: str = "base",
) -> TraceReport:
    """Profile ``command`` with rocprofv3 (AMD) or ncu (NVIDIA) where ``executor`` runs it, then summarize.
    ``clock_control`` is ncu's (``base``, its default, locks the clocks; ``none`` leaves them to the GPU)."""
    ex = executor if isinstance(executor, Executor) else Executor.parse(executor)
    tool = profiler or detect_profiler(ex)
    stamp = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
    local_dir = Path(output_dir) if output_dir else Path("kernelpilot-out") / f"trace-{stamp}"
    local_dir.mkdir(parents=True, exist_ok=True)
    remote_dir = str(local_dir.resolve()) if ex.kind == "local" else f"/tmp/kernelpilot-trace-{stamp}"
    if ex.kind != "local":
        ex.run(["mkdir", "-p", remote_dir], timeout=60)
    try:
        if tool == "ncu":
            return _profile_ncu(
                command, ex, remote_dir, local_dir, kernel_regex, launch_count, top_k, timeout, clock_control
            )
        argv = rocprofv3.rocprofv3_command(
            command,
            remote_dir,
            output_format=output_format,
            kernel_regex=kernel_regex,
            iterations=iterations,
            att=att_trace,
        )
        env = rocprofv3.DEBUG_INFO_ENV if att_trace else None
        check_run(ex.run(argv, timeout=timeout, env=env), "rocprofv3", timeout)
        got = fetch_tree(ex, remote_dir, local_dir, timeout=timeout)
    finally:
        if ex.kind != "local":
            ex.run(["rm", "-rf", remote_dir], timeout=60)
    outputs = find_outputs(got)
    if not outputs:
        raise ToolchainError(
            f"rocprofv3 ran but wrote no kernel trace under {got}", hint="did any kernel run on the GPU?"
        )
    report = build_report(load_trace(outputs[0]), top_k=top_k, kernel_regex=None)
    att_dirs = [p for p in outputs if p.is_dir()]
    if att_dirs:
        att_report = build_report(att.read_att_dir(att_dirs[0]), top_k=top_k)
        for field in ("hotspots", "hotspots_total", "hotspots_truncated", "source_lines", "source_lines_total"):
            setattr(report, field, getattr(att_report, field))
        report.stall_breakdown, report.loops, report.wave_states = (
            att_report.stall_breakdown,
            att_report.loops,
            att_report.wave_states,
        )
        report.notes += [f"ATT: {p}" for p in att_dirs]
        report.summary = report_summary(report)
    return report


def _profile_ncu(
    command, ex, remote_dir, local_dir, kernel_regex, launch_count, top_k, timeout, clock_control="base"
) -> TraceReport:
    rep = f"{remote_dir}/profile"
    argv = ncu.ncu_profile_command(
        command, rep, kernel_regex=kernel_regex, launch_count=launch_count, clock_control=clock_control
    )
    check_run(ex.run(argv, timeout=timeout), "ncu", timeout)
    files = {}
    for page in ("details", "source", "raw"):
        res = ex.run(ncu.ncu_export_command(rep + ".ncu-rep", page), timeout=timeout)
        check_run(res, f"ncu --page {page} export", timeout)
        files[page] = local_dir / NCU_EXPORT_NAMES[page]
        files[page].write_text(res.stdout)
    merged = read_ncu_exports(files)
    report = build_report(merged, top_k=top_k)
    add_ncu_context(report, files, kernel_regex, clock_control)
    if not any(i.source for i in merged.instructions):
        report.notes.append(ncu.LINEINFO_HINT)
    report.notes += [f"ncu exports: {', '.join(str(f) for f in files.values())} (kernel-trace --from {local_dir})"]
    return report
