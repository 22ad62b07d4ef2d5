"""``kernelpilot schedule``: arguments, the text rendering of a ScheduleReport, and the command."""

from __future__ import annotations

import argparse

from tools.callspec import add_call_argument
from tools.frontends.registry import add_frontend_argument
from tools.isa.machines import machine_names
from tools.models.schedule import Cluster, ScheduleReport
from tools.schedule.analysis import analyze_schedule

_SHORT = {
    "mfma": "MFMA",
    "valu": "VALU",
    "salu": "SALU",
    "smem": "SMEM",
    "vmem_load": "VMEM-ld",
    "vmem_store": "VMEM-st",
    "dma_to_lds": "DMA>LDS",
    "lds_read": "LDS-rd",
    "lds_write": "LDS-wr",
    "lds_other": "LDS-other",
    "waitcnt": "wait",
    "barrier": "barrier",
    "branch": "branch",
    "other": "other",
}


def _counts(c: Cluster) -> str:
    parts = [f"{_SHORT.get(k, k)} {v}" for k, v in c.counts.items()]
    if c.lds_read_transpose:
        parts.append(f"(tr {c.lds_read_transpose})")
    return ", ".join(parts)


def _wait_lines(c: Cluster) -> list[str]:
    """One line per run of consecutive waits that retire operations of the same clusters (a run of vmcnt(15..0)
    after a burst of loads is one line)."""
    runs: list[list] = []
    for w in c.waits:
        if not w.retires:
            continue
        key = (tuple(w.issuing_clusters), tuple(w.clusters_ago), w.across_back_edge)
        if runs and runs[-1][0] == key:
            runs[-1][1].append(w)
        else:
            runs.append([key, [w]])
    out = []
    for (issuing, ago, back), ws in runs:
        where = ", ".join(
            f"cluster {cid} ({n} ago{', across the back edge' if back and n else ''})"
            for cid, n in zip(issuing, ago, strict=True)
        )
        head = (
            f"wait [{ws[0].index}] {ws[0].text}" if len(ws) == 1 else f"{len(ws)} waits [{ws[0].index}..{ws[-1].index}]"
        )
        ops = sum(len(w.retires) for w in ws)
        stall = sum(w.stall_cycles or 0 for w in ws)
        out.append(f"    {head}: retire {ops} op(s) from {where}; ~{stall:.0f} stall")
    return out


def format_cluster(c: Cluster) -> list[str]:
    measured = ""
    if c.measured_cycles is not None:
        err = f", error {c.estimate_error:+.0%}" if c.estimate_error is not None else ""
        if c.measured_coverage is not None and c.estimate_error is None:
            err = f", ran {c.measured_coverage:.0%} of it: no error"
        measured = (
            f" | measured {c.measured_cycles:.0f} ({c.measured_visits:g} visit(s), {c.measured_waves} waves{err})"
        )
    idle = f", idle {c.critical_idle_share:.0%}" if c.critical_idle_share is not None else ""
    lines = [
        f"\n[{c.id}] {c.region} {c.position}  [{c.first_instruction}..{c.last_instruction}] {c.instructions} inst, "
        f"ends at {c.ends_with[:40]}",
        f"    {_counts(c)}",
        f"    ~{c.estimated_cycles:.0f} cycles (issue {c.issue_cycles:.0f}, waits {c.wait_stall_cycles:.0f}); pipes "
        + ", ".join(f"{p} {v:.0f}" for p, v in c.pipe_cycles.items() if v)
        + f"; critical {c.critical_pipe}{idle}{measured}",
    ]
    if c.mfma_shapes:
        lines.append("    MFMA: " + ", ".join(f"{k} x{v}" for k, v in c.mfma_shapes.items()))
    lines.extend(_wait_lines(c))
    later = [ld for ld in c.loads if ld.kind in ("vmem_load", "dma_to_lds") and ld.consumer_cluster is not None]
    if later:
        by = sorted({(ld.consumer_cluster, ld.clusters_ahead) for ld in later})
        lines.append(
            f"    issues {len(later)} global load(s), waited for in "
            + ", ".join(f"cluster {cid} (+{ahead})" for cid, ahead in by)
        )
    if c.stall_classes:
        lines.append("    measured stalls: " + ", ".join(f"{s.name} {s.cycles:.0f}" for s in c.stall_classes[:4]))
    if c.sources:
        lines.append("    source: " + ", ".join(c.sources[:4]))
    return lines


def format_report(rep: ScheduleReport) -> str:
    lines = [rep.summary]
    if rep.hot_loop_reason:
        lines.append(f"hot loop: {rep.hot_loop_reason}")
    lines.append(f"split at: {', '.join(rep.split_at) or 'nothing (no barrier or marker)'}")
    for note in rep.notes:
        lines.append(f"note: {note}")
    for c in rep.clusters:
        lines.extend(format_cluster(c))
    if rep.trace:
        lines.append(f"\ntrace {rep.trace.path}: {rep.trace.note}")
        errs = [f"{c.id}: {c.estimate_error:+.0%}" for c in rep.clusters if c.estimate_error is not None]
        if errs:
            lines.append("estimate error per cluster: " + ", ".join(errs))
    lines.append("\nlimits: " + "; ".join(rep.limits))
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="kernel file, AMDGCN ISA (.s/.amdgcn), dump directory, or an ATT ui_output_* dir")
    p.add_argument("--arch", help="target when compiling a kernel file (default gfx942)")
    p.add_argument("--kernel", help="kernel name (or unique substring) when the input holds several")
    p.add_argument("--device", choices=machine_names(), help="the device model (default per arch: gfx942 mi300x)")
    p.add_argument(
        "--trace", metavar="DIR", help="an ATT directory (ui_output_agent_<N>_dispatch_<M>/) of the same kernel"
    )
    add_frontend_argument(p)
    p.add_argument("--timeout", type=float, default=600, help="kernel files: seconds before a compile is stopped")
    add_call_argument(p)
    p.add_argument("--json", action="store_true", help="print the report model as JSON")


def run(args: argparse.Namespace) -> int:
    rep = analyze_schedule(
        args.source,
        args.arch,
        args.kernel,
        trace=args.trace,
        device=args.device,
        frontend=args.frontend,
        timeout=args.timeout,
        call=args.call,
    )
    print(rep.model_dump_json(indent=2) if args.json else format_report(rep))
    return 0
