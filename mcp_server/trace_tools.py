"""kernel-trace: read a profiler output, or profile a command (command mode is opt-in for the operator)."""

from __future__ import annotations

import uuid
from typing import Annotated

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from pydantic import Field

from mcp_server import jobs
from mcp_server.app import (
    PROFILES,
    JobId,
    Timeout,
    WaitSeconds,
    agent_errors,
    confined,
    mcp,
    read_input,
    require_command_mode,
    run_job,
    still_running,
)
from mcp_server.models import KernelTraceOutput
from mcp_server.paths import project_dir
from tools.errors import InputError
from tools.models.trace import TraceReport
from tools.profilers import ProfilerName

# ---------------------------------------------------------------------------------------------------- kernel-trace


@mcp.tool(name="kernel-trace", title="Kernel trace (read or profile)", annotations=PROFILES)
async def kernel_trace(
    ctx: Context,
    trace: Annotated[
        str | None,
        Field(
            description="a profiler output to read: rocprofv3 CSV/JSON/rocpd .db, an ATT ui_output dir or stats CSV, "
            "ncu CSV, or a directory holding them"
        ),
    ] = None,
    command: Annotated[
        list[str] | None,
        Field(description="profile this argument list (no shell) with rocprofv3 or ncu instead of reading a trace"),
    ] = None,
    top_k: Annotated[int, Field(description="kernels / hotspots / loops to list", ge=1, le=50)] = 10,
    kernel_regex: Annotated[str | None, Field(description="only kernels whose name matches")] = None,
    isa: Annotated[str | None, Field(description="AMDGCN .s of the kernel: check the trace's register counts")] = None,
    compare: Annotated[str | None, Field(description="a trace taken BEFORE a change: per-kernel speedups")] = None,
    executor: Annotated[
        str, Field(description="where command runs: local | ssh:HOST | docker:CONTAINER | ssh+docker:HOST:CONTAINER")
    ] = "local",
    profiler: Annotated[ProfilerName | None, Field(description="default: whichever exists")] = None,
    att: Annotated[bool, Field(description="AMD: also take an ATT thread trace (instruction hotspots)")] = False,
    launch_count: Annotated[int, Field(description="ncu: kernel launches to profile", ge=1)] = 1,
    timeout: Timeout = 600,
    wait_seconds: WaitSeconds = 45,
    job_id: JobId = None,
) -> KernelTraceOutput:
    """Top kernels by GPU time, instruction hotspots, stall breakdown, hot loops and register warnings, from an
    existing profiler output (fast, read-only) or from profiling a command (runs it; long: progress, job_id)."""

    def start():
        if not command:
            raise InputError(
                "give trace (a profiler output), command, or job_id", hint="e.g. trace='out/kernel_trace.csv'"
            )
        require_command_mode("kernel-trace")
        out_dir = project_dir() / "kernelpilot-out" / f"trace-{uuid.uuid4().hex[:8]}"
        kwargs = {"command": command, "executor": executor, "profiler": profiler, "att_trace": att}
        kwargs |= {"kernel_regex": kernel_regex, "launch_count": launch_count, "top_k": top_k, "timeout": timeout}
        kwargs["output_dir"] = str(out_dir)
        return "kernel-trace-run", kwargs, timeout + 120, f"profiling {command[0]}"

    def output(report: TraceReport) -> KernelTraceOutput:
        steps = list(report.warnings[:3])
        if report.top_kernels:
            steps.append("dump-ir / vgpr-pressure on the top kernel's source to see why it is slow")
        steps.append(f"read-artifact path={report.path} to page the raw profiler output")
        steps.append("after a change: profile again and pass compare=<this trace> for speedups")
        return KernelTraceOutput(summary=report.summary, next_steps=steps, report=report)

    with agent_errors(kernel_trace):
        if job_id or command:
            got = await run_job(ctx, "kernel-trace", job_id, wait_seconds, start)
            if isinstance(got, jobs.Job):
                return still_running(got, "kernel-trace", KernelTraceOutput)
            return output(TraceReport.model_validate(got))
        if not trace:
            start()  # raises the "give trace, command or job_id" error
        from tools.kernel_trace import summarize_trace

        kwargs = {"path": read_input(trace, "trace"), "top_k": top_k, "kernel_regex": kernel_regex}
        kwargs["isa"] = read_input(isa, "ISA") if isa else None
        kwargs["compare"] = read_input(compare, "BEFORE trace") if compare else None
        return output(await anyio.to_thread.run_sync(lambda: confined(summarize_trace, **kwargs)))
