"""Analyses over a Trace: top kernels, instruction hotspots, stall taxonomy, per-source-line and per-loop summaries,
register checks against the ISA, before/after comparison and a Chrome/Perfetto timeline. Pure functions."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from tools.isa.mnemonics import VMEM_CLASSES, classify
from tools.models.dump import Resources
from tools.models.trace import (
    Dispatch,
    Hotspot,
    Instruction,
    KernelDelta,
    KernelStat,
    LoopSummary,
    RegisterCheck,
    SourceLine,
    StallShare,
    Trace,
    TraceComparison,
)

# --- stall taxonomy ------------------------------------------------------------------------------------------------


# NVIDIA PC-sampling stall reasons, grouped the way a kernel engineer reads them.
NCU_REASON_CLASSES = {
    "long_sb": "long_scoreboard (global/local memory wait)",
    "short_sb": "short_scoreboard (shared memory / MIO result wait)",
    "mio": "mio_throttle (shared memory / special-math queue full)",
    "lg": "lg_throttle (global/local memory queue full)",
    "barrier": "barrier",
    "membar": "membar",
    "math": "math_pipe_throttle",
    "wait": "wait (fixed latency dependency)",
    "tex": "tex_throttle",
    "branch_resolving": "branch_resolving",
    "no_inst": "no_instructions (instruction cache)",
    "imc": "imc_miss (constant cache)",
    "dispatch": "dispatch_stall",
    "drain": "drain",
    "sleep": "sleeping",
    "sleeping": "sleeping",
    "not_selected": "not_selected (eligible, another warp issued)",
    "selected": "selected (issuing)",
    "misc": "misc",
}


# tools.isa.mnemonics.classify's category -> stall class; the waits and a few scalar mnemonics are decided apart
STALL_CLASS_OF_CATEGORY = {
    "barrier": "barrier",
    "vmem_load": "vmem_load",
    "vmem_load_lds": "vmem_load",
    "scratch_load": "vmem_load",
    "vmem_store": "vmem_store",
    "vmem_atomic": "vmem_store",
    "vmem_other": "vmem_load",  # buffer_wbinvl1, buffer_inv…: cache maintenance on the vector memory path
    "scratch_store": "vmem_store",
    "lds_read": "lds",
    "lds_write": "lds",
    "lds_other": "lds",
    "smem": "smem",
    "mfma": "mfma",
    "valu": "valu",
    "accvgpr_move": "valu",
    "cndmask": "valu",
    "branch": "branch",
    "salu": "salu",
}
_SCALAR_OTHER = ("s_nop", "s_endpgm", "s_sleep", "s_sendmsg", "s_trap", "s_code_end")


def amd_stall_class(isa: str) -> str:
    """The stall class of one AMDGCN instruction: its mnemonic class (``tools.isa.mnemonics.classify``), and for a
    waitcnt the counter it waits on."""
    text = isa.strip().lower()
    op = text.split(" ", 1)[0]
    if op.startswith("s_waitcnt"):
        if "vmcnt" in text or op in ("s_waitcnt_vscnt", "s_waitcnt_vmcnt"):
            return "vmem_wait (s_waitcnt vmcnt)"
        if "lgkmcnt" in text or op == "s_waitcnt_lgkmcnt":
            return "lds_smem_wait (s_waitcnt lgkmcnt)"
        return "nop/other"
    if op.startswith(("s_wait_loadcnt", "s_wait_storecnt", "s_wait_samplecnt", "s_wait_bvhcnt")):  # gfx12 counters
        return "vmem_wait (s_waitcnt vmcnt)"
    if op.startswith(("s_wait_dscnt", "s_wait_kmcnt")):
        return "lds_smem_wait (s_waitcnt lgkmcnt)"
    if op.startswith("s_getpc"):
        return "branch"
    if op.startswith(_SCALAR_OTHER):
        return "nop/other"
    category = classify(op)
    if category in VMEM_CLASSES and op.startswith("image_"):
        return "nop/other"  # image sampling: no class of its own in the stall taxonomy
    return STALL_CLASS_OF_CATEGORY.get(category, "nop/other")


def stall_class(ins: Instruction) -> str:
    """ncu rows: the reason with most samples; AMD rows: the mnemonic class."""
    if ins.stall_reasons and not ins.stall_reasons.keys() >= {"reason_0"}:
        reason = max(ins.stall_reasons, key=lambda r: ins.stall_reasons[r])
        return NCU_REASON_CLASSES.get(reason, reason)
    return amd_stall_class(ins.isa)


# --- dispatch-level -------------------------------------------------------------------------------------------------


def kernel_matches(name: str, symbol: str | None, pattern: re.Pattern | None) -> bool:
    return pattern is None or bool(pattern.search(name) or (symbol and pattern.search(symbol)))


def top_kernels(dispatches: Sequence[Dispatch]) -> list[KernelStat]:
    """Per kernel name: calls, total/avg/min/max ns and share of all kernel time, by total time descending."""
    groups: dict[str, list[int]] = defaultdict(list)
    for d in dispatches:
        groups[d.name].append(d.duration_ns)
    total = sum(sum(v) for v in groups.values()) or 1
    stats = []
    for name, durs in groups.items():
        n = len(durs)
        mean = sum(durs) / n
        var = sum((x - mean) ** 2 for x in durs) / (n - 1) if n > 1 else 0.0
        stats.append(
            KernelStat(
                name=name,
                calls=n,
                total_ns=sum(durs),
                avg_ns=mean,
                min_ns=min(durs),
                max_ns=max(durs),
                stddev_ns=var**0.5,
                share=sum(durs) / total,
            )
        )
    return sorted(stats, key=lambda s: (-s.total_ns, s.name))


def restat_shares(stats: Sequence[KernelStat]) -> list[KernelStat]:
    """Stats (from kernel_stats.csv) sorted by total, shares recomputed over the kept rows."""
    total = sum(s.total_ns for s in stats) or 1
    return sorted((s.model_copy(update={"share": s.total_ns / total}) for s in stats), key=lambda s: -s.total_ns)


# --- instruction-level ----------------------------------------------------------------------------------------------


def hot_kernel(instructions: Sequence[Instruction]) -> str:
    """The kernel whose instructions carry the most stall (ATT listings cover neighbours of the traced kernel)."""
    by_kernel: dict[str, int] = defaultdict(int)
    for ins in instructions:
        by_kernel[ins.kernel] += ins.stall + ins.hit
    return max(by_kernel, key=lambda k: by_kernel[k]) if by_kernel else ""


def hotspots(instructions: Sequence[Instruction]) -> list[Hotspot]:
    """Executed instructions by stall (then latency), each with its class and share of the kernel's stall."""
    total = sum(i.stall for i in instructions) or 1
    hot = sorted((i for i in instructions if i.hit or i.latency), key=lambda i: (-i.stall, -i.latency, i.index))
    return [
        Hotspot(
            index=i.index,
            address=i.address,
            isa=i.isa,
            source=i.source,
            stall_class=stall_class(i),
            hit=i.hit,
            latency=i.latency,
            stall=i.stall,
            idle=i.idle,
            stall_share=i.stall / total,
        )
        for i in hot
    ]


def stall_breakdown(instructions: Sequence[Instruction]) -> list[StallShare]:
    """Stall by class: ncu rows by reason samples, AMD rows by instruction class."""
    stall: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for ins in instructions:
        if ins.stall_reasons and "reason_0" not in ins.stall_reasons:
            for reason, samples in ins.stall_reasons.items():
                cls = NCU_REASON_CLASSES.get(reason, reason)
                stall[cls] += samples
                count[cls] += 1
        elif ins.stall or ins.hit:
            cls = amd_stall_class(ins.isa)
            stall[cls] += ins.stall
            count[cls] += 1
    total = sum(stall.values()) or 1
    return sorted(
        (
            StallShare(stall_class=c, stall=round(v), share=v / total, instructions=count[c])
            for c, v in stall.items()
            if v
        ),
        key=lambda s: (-s.stall, s.stall_class),
    )


def source_lines(instructions: Sequence[Instruction]) -> list[SourceLine]:
    """Instructions grouped by their innermost source location ('file:line'), hottest first."""
    groups: dict[str, list[Instruction]] = defaultdict(list)
    for ins in instructions:
        if ins.source:
            groups[ins.source.split(" -> ")[-1]].append(ins)
    total = sum(i.stall for i in instructions) or 1
    out = []
    for src, rows in groups.items():
        by_class: dict[str, int] = defaultdict(int)
        for r in rows:
            by_class[stall_class(r)] += r.stall
        out.append(
            SourceLine(
                source=src,
                instructions=len(rows),
                hit=sum(r.hit for r in rows),
                latency=sum(r.latency for r in rows),
                stall=sum(r.stall for r in rows),
                stall_share=sum(r.stall for r in rows) / total,
                dominant_stall_class=max(by_class, key=lambda c: by_class[c]),
            )
        )
    return sorted(out, key=lambda s: (-s.stall, -s.latency, s.source))


_BRANCH_RE = re.compile(r"^s_(?:cbranch_\w+|branch)\s+(-?\d+)\s*$")


def branch_target(ins: Instruction) -> int | None:
    """Byte address an AMDGCN branch with a numeric simm16 operand jumps to (PC + 4 + 4 * sext(simm16))."""
    m = _BRANCH_RE.match(ins.isa.strip())
    if not m or ins.address is None:
        return None
    off = int(m.group(1))
    if off >= 0x8000:  # the decoder prints simm16 unsigned
        off -= 0x10000
    return ins.address + 4 + 4 * off


def loops(instructions: Sequence[Instruction]) -> list[LoopSummary]:
    """Loops closed by backward branches (target <= branch address), as instruction ranges of one kernel."""
    rows = sorted((i for i in instructions if i.address is not None), key=lambda i: (i.codeobj or 0, i.address))
    total = sum(i.stall for i in rows) or 1
    out = []
    for pos, ins in enumerate(rows):
        target = branch_target(ins)
        if target is None or target > ins.address:
            continue
        body = [r for r in rows[: pos + 1] if r.codeobj == ins.codeobj and target <= r.address]
        if not body:
            continue
        head = body[0]
        before = rows[rows.index(head) - 1] if rows.index(head) > 0 else None
        by_class: dict[str, int] = defaultdict(int)
        for r in body:
            by_class[amd_stall_class(r.isa)] += r.stall
        hottest = max(body, key=lambda r: (r.stall, r.latency))
        stall = sum(r.stall for r in body)
        out.append(
            LoopSummary(
                header_index=head.index,
                branch_index=ins.index,
                header_address=head.address,
                branch_address=ins.address,
                instructions=len(body),
                iterations_per_hit=head.hit / before.hit if before is not None and before.hit else None,
                latency=sum(r.latency for r in body),
                stall=stall,
                stall_share=stall / total,
                dominant_stall_class=max(by_class, key=lambda c: by_class[c]),
                hottest=f"{hottest.index}: {hottest.isa}" if hottest.stall or hottest.latency else "",
            )
        )
    return sorted(out, key=lambda lp: (-lp.stall, lp.header_index))


# --- registers --------------------------------------------------------------------------------------------------------


def _round_up(x: int, granule: int = 8) -> int:
    return -(-x // granule) * granule


def mangled_identifier(symbol: str) -> str | None:
    """The function identifier inside an Itanium-mangled name (_Z35batched_... -> batched_...); None if not mangled."""
    m = re.match(r"_Z(?:N\d*\w*?)?(\d+)", symbol)
    if not m:
        return None
    n, start = int(m.group(1)), m.end()
    return symbol[start : start + n] or None


def match_isa_kernel(d: Dispatch, isa_names: Iterable[str]) -> str | None:
    """The ISA kernel a dispatch ran: same symbol or name, else the mangled identifier appearing in the demangled name."""
    names = list(isa_names)
    for n in names:
        if n == d.symbol or n == d.name or n == d.name.removesuffix(".kd"):
            return n
    for n in names:
        ident = mangled_identifier(n)
        if ident and re.search(rf"\b{re.escape(ident)}\s*[<(]", d.name):
            return n
    return None


def register_checks(dispatches: Sequence[Dispatch], isa: dict[str, Resources], arch: str | None) -> list[RegisterCheck]:
    """Compare the profiler's VGPR/AGPR figures with the ISA's (pitfall: rocprofv3 misreports the split and gfx950)."""
    checks, seen = [], set()
    for d in dispatches:
        if d.name in seen or d.vgpr_count is None:
            continue
        seen.add(d.name)
        key = match_isa_kernel(d, isa)
        if key is None:
            continue
        r = isa[key]
        t_v, t_a = d.vgpr_count, d.accum_vgpr_count or 0
        i_total = r.vgpr_count
        if i_total is None:
            continue
        i_arch = r.accum_offset if r.agpr_count else (r.arch_vgpr_count or i_total)
        i_agpr = r.agpr_count or 0
        # Without AGPRs a small Accum_VGPR_Count is granule rounding (12 + 4 for a 12-VGPR kernel), not AGPR use.
        arch_ok = (i_arch or 0) <= t_v <= _round_up(i_arch or 0)
        split_ok = arch_ok and (i_agpr == 0 or t_a == i_agpr)
        total_ok = _round_up(t_v + t_a) == _round_up(i_total)
        agrees = total_ok and split_ok
        if agrees:
            msg = f"trace VGPR {t_v}+{t_a} agrees with the ISA (vgpr_count {i_total}, agpr {i_agpr})"
        elif total_ok:
            msg = (
                f"trace splits {t_v} arch + {t_a} accum VGPRs, the ISA has accum_offset {r.accum_offset} and "
                f"agpr_count {i_agpr} (total {i_total} agrees): rocprofv3 misreads ACCUM_OFFSET on gfx90a/gfx942"
            )
        elif t_a == 0 and _round_up(2 * t_v) == _round_up(i_total):
            msg = (
                f"trace VGPR_Count {t_v} is half the ISA's vgpr_count {i_total}: rocprofv3 halves gfx950 "
                "allocations; use the ISA figure"
            )
        else:
            msg = f"trace VGPR {t_v}+{t_a} disagrees with the ISA vgpr_count {i_total} (agpr {i_agpr}); use the ISA figure"
        checks.append(
            RegisterCheck(
                kernel=d.name,
                trace_vgpr=t_v,
                trace_accum_vgpr=d.accum_vgpr_count,
                isa_vgpr=i_total,
                isa_agpr=r.agpr_count,
                isa_arch_vgpr=i_arch,
                agrees=agrees,
                message=msg,
            )
        )
    return checks


# --- comparison and timeline ------------------------------------------------------------------------------------------


def kernel_table(trace: Trace) -> list[KernelStat]:
    return top_kernels(trace.dispatches) if trace.dispatches else restat_shares(trace.stats)


def compare_traces(before: Trace, after: Trace, limit: int = 20) -> TraceComparison:
    """Per-kernel totals and average durations before and after, biggest absolute change first."""
    a = {s.name: s for s in kernel_table(before)}
    b = {s.name: s for s in kernel_table(after)}
    deltas = []
    for name in list(a) + [n for n in b if n not in a]:
        sa, sb = a.get(name), b.get(name)
        deltas.append(
            KernelDelta(
                name=name,
                before_total_ns=sa.total_ns if sa else None,
                after_total_ns=sb.total_ns if sb else None,
                before_avg_ns=sa.avg_ns if sa else None,
                after_avg_ns=sb.avg_ns if sb else None,
                speedup=sa.avg_ns / sb.avg_ns if sa and sb and sb.avg_ns else None,
            )
        )
    deltas.sort(key=lambda d: -abs((d.before_total_ns or 0) - (d.after_total_ns or 0)))
    ta, tb = sum(s.total_ns for s in a.values()), sum(s.total_ns for s in b.values())
    stall_a = sum(i.stall for i in before.instructions) if before.instructions else None
    stall_b = sum(i.stall for i in after.instructions) if after.instructions else None
    parts = [f"total kernel time {ta} ns -> {tb} ns" + (f" ({ta / tb:.3f}x)" if tb else "")]
    if stall_a is not None and stall_b is not None:
        parts.append(f"traced stall {stall_a} -> {stall_b} cycles")
    return TraceComparison(
        summary="; ".join(parts),
        before=before.path,
        after=after.path,
        total_before_ns=ta,
        total_after_ns=tb,
        kernels=deltas[:limit],
        hotspot_stall_before=stall_a,
        hotspot_stall_after=stall_b,
        truncated=len(deltas) > limit,
        total=len(deltas),
    )


def timeline_events(dispatches: Sequence[Dispatch]) -> dict:
    """Chrome/Perfetto trace-event JSON: one complete ('X') event per dispatch, a track per agent and queue."""
    events: list[dict] = []
    with_time = [d for d in dispatches if d.start_ns is not None]
    t0 = min((d.start_ns for d in with_time), default=0)
    pids: dict[str, int] = {}
    for d in with_time:
        agent = d.agent or "GPU"
        pid = pids.setdefault(agent, len(pids) + 1)
        args = {k: v for k, v in d.model_dump(exclude={"name", "start_ns", "end_ns"}).items() if v is not None}
        events.append(
            {
                "name": d.name if len(d.name) <= 120 else d.name[:117] + "...",
                "cat": "kernel",
                "ph": "X",
                "ts": (d.start_ns - t0) / 1000.0,
                "dur": d.duration_ns / 1000.0,
                "pid": pid,
                "tid": d.queue_id if d.queue_id is not None else 0,
                "args": args,
            }
        )
    for agent, pid in pids.items():
        events.append({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": agent}})
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": {"t0_ns": t0}}


def write_timeline(dispatches: Sequence[Dispatch], out: Path) -> int:
    """Write the timeline; returns the number of dispatch events."""
    doc = timeline_events(dispatches)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc))
    return sum(1 for e in doc["traceEvents"] if e["ph"] == "X")
