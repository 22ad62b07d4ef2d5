"""The schedule tool: a hot loop's barrier-delimited clusters, read from compiled output or an ATT directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field

from mcp_server.app import ANALYSIS, Arch, KernelName, agent_errors, confined, mcp, read_input
from mcp_server.models import ScheduleOutput
from tools.errors import InputError
from tools.inputs import SOURCE_SUFFIXES

MAX_CLUSTERS = 16
MAX_WAITS = 4


@mcp.tool(name="schedule", title="Cluster schedule of a hot loop", annotations=ANALYSIS)
def schedule(
    isa: Annotated[
        str,
        Field(description="AMDGCN .s file, a dump directory (dump-ir's out_dir), or an ATT ui_output_agent_* dir"),
    ],
    kernel: KernelName = None,
    arch: Annotated[Arch | None, Field(description="override the target read from the ISA, e.g. gfx950")] = None,
    trace: Annotated[
        str | None, Field(description="an ATT ui_output_agent_<N>_dispatch_<M>/ directory of the same kernel")
    ] = None,
) -> ScheduleOutput:
    """The hot loop (and prologue/epilogue) cut at s_barrier and sched_barrier/sched_group_barrier markers into
    clusters: per cluster the instructions by class (MFMA by shape, VALU, SALU, VMEM, DMA to LDS, LDS reads incl.
    ds_read_tr, LDS writes), issue and per-pipe cycles from the device's cost table, each wait with what it retires
    and which cluster issued it (how many clusters ago, across the back edge), the loads and the cluster that waits
    for them, source lines, the critical pipe and its idle share. With ``trace``: measured cycles per cluster (median
    over waves) beside the estimate, and the stall classes."""
    from tools.schedule import analyze_schedule
    from tools.schedule.cli import format_cluster

    with agent_errors(schedule):
        path = read_input(isa, "ISA")
        if Path(path).suffix.lower() in SOURCE_SUFFIXES:
            raise InputError(
                f"{Path(path).name} is a kernel source; the schedule tool reads compiled output (it runs no code)",
                hint="call dump-ir on the kernel file, then schedule with its out_dir (the CLI compiles kernel files: "
                "kernelpilot schedule kernel.py)",
            )
        trace_dir = read_input(trace, "ATT trace") if trace else None
        rep = confined(analyze_schedule, source=path, arch=arch, kernel=kernel, trace=trace_dir)
        steps = []
        loop = [c for c in rep.clusters if c.region == "loop"]
        if loop:
            longest = max(loop, key=lambda c: c.estimated_cycles)
            steps.append("longest loop cluster: " + " ".join(format_cluster(longest)[1:3]).strip())
            stalled = [c for c in loop if c.wait_stall_cycles]
            if stalled:
                worst = max(stalled, key=lambda c: c.wait_stall_cycles)
                steps.append(
                    f"cluster {worst.id} waits ~{worst.wait_stall_cycles:.0f} cycles: issue its loads a cluster "
                    "earlier (before a barrier whose wait hides them), see skills/schedule/SKILL.md"
                )
        if rep.trace is None:
            steps.append("with an ATT trace of the kernel (kernel-trace --att), pass trace=<dir> for measured cycles")
        return ScheduleOutput(summary=rep.summary, next_steps=steps, report=_compact(rep))


def _compact(rep):
    """The report within a client's token budget: per cluster its figures, the waits that stall or wait on another
    cluster (operations listed by count, not text) and no per-load list (``kernelpilot schedule --json`` has all)."""
    clusters = []
    loop = [c.id for c in rep.clusters if c.region == "loop"]
    others = [c.id for c in rep.clusters if c.region != "loop"]
    keep = set(loop) | set(others[: max(0, MAX_CLUSTERS - len(loop))])
    for c in (c for c in rep.clusters if c.id in keep):
        waits = [
            w.model_copy(update={"retires_text": [], "retires": w.retires[:2]})
            for w in c.waits
            if w.stall_cycles or any(cid != c.id for cid in w.issuing_clusters)
        ][:MAX_WAITS]
        pipes = {p: v for p, v in c.pipe_cycles.items() if v}
        update = {"waits": waits, "loads": [], "sources": c.sources[:3], "pipe_cycles": pipes}
        clusters.append(c.model_copy(update=update | {"stall_classes": c.stall_classes[:4]}))
    notes = list(rep.notes)
    if len(keep) < len(rep.clusters):
        left = [str(c.id) for c in rep.clusters if c.id not in keep]
        notes.append(f"clusters {', '.join(left)} left out here (the hot loop's are all kept): schedule --json has all")
    return rep.model_copy(update={"clusters": clusters, "notes": notes})
