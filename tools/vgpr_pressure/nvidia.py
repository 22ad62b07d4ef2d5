"""vgpr-pressure on NVIDIA SASS: resources, exact live GPRs per instruction (nvdisasm life ranges), the hot loop,
the peak points grouped by defining kind and source line, local-memory spills and suggestions."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from tools import inputs
from tools.errors import InputError
from tools.isa import arch as archmod
from tools.isa import pressure, sass
from tools.models.vgpr import (
    HotLoop,
    InstructionPressure,
    InstructionRef,
    Metric,
    RegisterGroup,
    SpillAnalysis,
    SpilledValue,
    SpillKind,
    VgprReport,
    VgprReports,
)
from tools.vgpr_pressure import report
from tools.vgpr_pressure import suggestions as suggest

SASS_DISTRIBUTION = {  # report key -> SASS opcode roots
    "local_load": ("LDL",),
    "local_store": ("STL",),
    "global_load": ("LDG",),
    "global_store": ("STG",),
    "async_copy": ("LDGSTS",),
    "shared_load": ("LDS", "LDSM"),
    "shared_store": ("STS",),
    "mma": (),
    "barrier": ("BAR",),
}
_SASS_MEMORY = ("LDL", "STL", "LDG", "STG", "LDGSTS", "LDS", "LDSM", "STS", "LD", "ST", "ATOM", "ATOMS", "RED")


def _sass_ref(f, j: int) -> InstructionRef:
    i = f.insts[j]
    return InstructionRef(
        index=j,
        line=i.addr,
        text=i.text.split("*/", 1)[-1].strip(),
        source=i.source,
        live_vgprs=len(i.live),
        live_gprs=len(i.live),
    )


def _counts(i) -> dict[str, int]:
    """The vendor's own live counts at one instruction (nvdisasm's GPR, UGPR and PRED columns)."""
    return {
        "live_gprs": i.counts.get("GPR", 0),
        "live_ugprs": i.counts.get("UGPR", 0),
        "live_predicates": i.counts.get("PRED", 0),
    }


def _sass_groups(f, att, live, at) -> list[RegisterGroup]:
    groups, _ = pressure.group_sass_live(att, live, at)
    return report.register_groups(groups, "R", lambda j: _sass_ref(f, j))


def _sass_report(f, path, arch, threads_per_block, per_instruction, top_k, launch=None) -> VgprReport:
    a = arch or f.arch
    notes = []
    try:
        a = archmod.normalize_arch(a) if a else None
    except InputError:
        notes.append(f"{a} has no occupancy table here")
        a = None
    regs = f.resources.get("REG")
    smem = f.resources.get("SHARED", 0)
    dynamic = launch.bytes if launch else 0
    # the occupancy dump-ir reports: static (cuobjdump SHARED) plus what the launch allocates (Triton's "shared")
    occ = archmod.nvidia_occupancy(a, regs, smem, threads_per_block, dynamic) if a and regs else None
    warps = occ.value if occ else None
    if launch is None:
        notes.append(inputs.UNKNOWN_LAUNCH_LDS_NOTE.replace("lds_bytes", "shared_bytes"))
    if warps is not None:
        notes.append(f"occupancy assumes {threads_per_block} threads per block")
    insts = f.insts
    gpr = [i.counts.get("GPR", 0) for i in insts]
    peak = max(gpr, default=0)
    spill_ops = sum(1 for i in insts if i.root in ("STL", "LDL"))
    spill_stores, spill_loads = sass.local_memory_bytes(insts)
    metrics = _sass_metrics(f, launch, warps, peak, spill_ops, (spill_stores, spill_loads))
    att = pressure.SassAttributor(insts)
    found = sass.find_hot_loop(f)
    loop_set = set(range(found.loop.first, found.loop.last + 1)) if found else set()
    hot, carried = _sass_hot_loop(f, att, found, gpr)
    points = _sass_points(f, att, gpr, loop_set, top_k)
    spills = _sass_spills(f, att, loop_set, hot, top_k)
    suggestions = suggest.sass(f, att, hot, loop_set, carried, points, spills)
    if points:
        notes.append("live GPRs only: predicates (max_live_predicates) and uniform registers (UGPR) are counted apart")
    per = _sass_per_instruction(insts) if per_instruction else None
    spilled = f", {spill_stores} B spill stores / {spill_loads} B spill loads" if spill_ops else ", no spills"
    summary = (
        f"{f.name} ({a or 'sm_?'}): {regs} registers/thread, {f.resources.get('STACK', 0)} B stack frame" + spilled
    )
    summary += f", {warps} warps/SM." if warps is not None else "."
    summary += report.summary_tail("nvidia", points, hot, spills, suggestions)
    return VgprReport(
        summary=summary,
        kernel=f.name,
        arch=a,
        file=str(path),
        vendor="nvidia",
        instruction_count=len(insts),
        metrics=metrics,
        hot_loop=hot,
        critical_points=points,
        spills=spills,
        suggestions=suggestions,
        notes=notes,
        per_instruction=per,
    )


def _sass_metrics(f, launch, warps, peak, spill_ops, spill_bytes) -> list[Metric]:
    """The report's resource metrics: registers, stack, local memory and spills, shared memory, occupancy, live
    counts; ``spill_bytes`` is (stores, loads)."""
    regs = f.resources.get("REG")
    local = f.resources.get("LOCAL", 0)
    smem = f.resources.get("SHARED", 0)
    dynamic = launch.bytes if launch else 0
    spill_stores, spill_loads = spill_bytes
    insts = f.insts
    return [
        Metric(
            name="registers_per_thread",
            value=regs,
            status="warn" if regs and regs > 128 else "ok",
            note=f"warn: > 128 registers per thread: at most {65536 // (regs * 32) if regs else 0} warps/SM fit "
            "the 64K-register file"
            if regs and regs > 128
            else "",
        ),
        Metric(name="stack_frame_bytes", value=f.resources.get("STACK"), status="ok"),
        Metric(
            name="local_bytes",
            value=local,
            status="bad" if local else "ok",
            note=f"bad: > 0: {local} B of local memory hold spilled registers"
            if local
            else "spills go to local memory",
        ),
        Metric(
            name="spill_instructions",
            value=spill_ops,
            status="bad" if spill_ops else "ok",
            note=f"bad: > 0: {spill_ops} STL/LDL in the SASS" if spill_ops else "STL/LDL in the SASS",
        ),
        Metric(
            name="spill_store_bytes",
            value=spill_stores,
            status="bad" if spill_stores else "ok",
            note="every STL in the SASS at its width (ptxas -v's 'bytes spill stores')",
        ),
        Metric(
            name="spill_load_bytes",
            value=spill_loads,
            status="bad" if spill_loads else "ok",
            note="every LDL in the SASS at its width (ptxas -v's 'bytes spill loads')",
        ),
        Metric(
            name="shared_bytes",
            value=smem + dynamic,
            status="ok",
            note=f"at launch: {smem} B the cubin declares + {dynamic} B the launch allocates ({launch.origin})"
            if launch
            else "",
        ),
        Metric(name="occupancy_warps_per_sm", value=warps, status="ok"),
        Metric(name="max_live_gprs", value=peak, status="ok", note="nvdisasm --print-life-ranges count"),
        Metric(name="max_live_predicates", value=max((i.counts.get("PRED", 0) for i in insts), default=0)),
        Metric(name="max_live_ugprs", value=max((i.counts.get("UGPR", 0) for i in insts), default=0)),
    ]


def _sass_hot_loop(f, att, found, gpr) -> tuple[HotLoop | None, set[int]]:
    """The hot loop found in ``f`` (None without one) and its loop-carried registers."""
    insts = f.insts
    if not found:
        return None, set()
    lp, label, reason = found.loop, found.label, found.reason
    body = insts[lp.first : lp.last + 1]
    body_defs = set().union(*(i.gpr_defs for i in body))
    header = insts[lp.first]
    live_in = set(header.live) - (set(header.gpr_defs) - set(header.uses))
    carried = live_in & body_defs
    dist = {k: sum(1 for i in body if i.root in roots) for k, roots in SASS_DISTRIBUTION.items()}
    dist["mma"] = sum(1 for i in body if i.is_mma)
    mem = sum(1 for i in body if i.root in _SASS_MEMORY)
    local_ops = dist["local_load"] + dist["local_store"]
    hot = HotLoop(
        header_label=label,
        first_index=lp.first,
        last_index=lp.last,
        instruction_count=len(body),
        reason=reason,
        distribution=dist,
        scratch_share_of_memory_ops=round(local_ops / mem, 3) if mem else 0.0,
        max_live_vgprs=max(gpr[lp.first : lp.last + 1]),
        header_live_vgprs=len(live_in),
        loop_carried_vgprs=len(carried),
        loop_carried=_sass_groups(f, att, carried, lp.first),
        max_live_gprs=max(gpr[lp.first : lp.last + 1]),
        header_live_gprs=len(live_in),
        loop_carried_gprs=len(carried),
    )
    return hot, carried


def _sass_points(f, att, gpr, loop_set, top_k) -> list:
    """One critical point per region of instructions at the peak live GPR count."""
    insts = f.insts
    peak = max(gpr, default=0)
    points = []
    at_peak, starts = report.peak_regions(gpr)
    for j in starts:
        _, by_src = pressure.group_sass_live(att, insts[j].live, j)
        points.append(
            report.critical_point(
                _sass_ref(f, j),
                live=peak,
                live_agprs=0,
                live_sgprs=insts[j].counts.get("UGPR", 0),
                in_hot_loop=j in loop_set,
                instructions_at_peak=len(at_peak),
                by_definition=_sass_groups(f, att, insts[j].live, j),
                by_source=by_src,
                prefix="R",
                top_k=top_k,
                vendor_counts={**_counts(insts[j]), "live_gprs": peak},
            )
        )
    return points


def _sass_per_instruction(insts) -> list[InstructionPressure]:
    return [
        InstructionPressure(
            index=i.index,
            line=i.addr,
            text=i.text.split("*/", 1)[-1].strip(),
            live_vgprs=i.counts.get("GPR", 0),
            live_agprs=0,
            live_sgprs=i.counts.get("UGPR", 0),
            source=i.source,
            **_counts(i),
        )
        for i in insts
    ]


def _sass_spills(f, att, loop_set, hot, top_k) -> SpillAnalysis | None:
    stores = [i for i in f.insts if i.root == "STL"]
    reloads = [i for i in f.insts if i.root == "LDL"]
    if not stores and not reloads:
        return None
    values = []
    by_kind: Counter[SpillKind] = Counter()
    for s in stores:
        data = sorted((s.gpr_uses or s.uses) - s.address_regs)
        if not data:
            continue
        info = att.kind(data[0], s.index)
        by_kind[info.kind] += 1
        slot = _sass_slot(s)
        values.append(
            SpilledValue(
                reg=f"R{data[0]}",
                slot=slot,
                kind=info.kind,
                store=_sass_ref(f, s.index),
                defined_by=_sass_ref(f, info.def_index) if info.def_index is not None else None,
                in_hot_loop=s.index in loop_set,
            )
        )
    return report.spill_analysis(
        "nvidia",
        stores=len(stores),
        reloads=len(reloads),
        hot_loop_stores=sum(1 for s in stores if s.index in loop_set),
        hot_loop_reloads=sum(1 for r in reloads if r.index in loop_set),
        has_hot_loop=hot is not None,
        values=values,
        by_kind=by_kind,
        top_k=top_k,
    )


def _sass_slot(inst) -> str:
    m = re.search(r"\[R1(?:\+(0x[0-9a-f]+|\d+))?\]", inst.operands)
    return f"local+{int(m.group(1), 0) if m and m.group(1) else 0}" if m else "local"


def analyze_cubin(
    path: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    threads_per_block: int = 128,
    top_k: int = 8,
    launch_lds: int | inputs.LaunchLds | None = None,
) -> VgprReports:
    """NVIDIA: registers, spills (local memory), occupancy, exact live GPRs per instruction (nvdisasm life ranges),
    the hot loop, the peak point(s) grouped by what defined the live registers and by source line, and suggestions.
    ``launch_lds``: shared memory the launch allocates (default: Triton's metadata JSON beside the cubin)."""
    from tools.frontends.nvidia import read_cubin  # runs nvdisasm and cuobjdump

    funcs = read_cubin(path)
    if kernel:
        hits = [f for f in funcs if f.name == kernel] or [f for f in funcs if kernel in f.name]
        if not hits:
            raise InputError(f"no kernel named '{kernel}'", hint=f"kernels here: {', '.join(f.name for f in funcs)}")
        funcs = hits[:1]
    launch = inputs.resolve_launch_lds(launch_lds, path)
    reports = [_sass_report(f, path, arch, threads_per_block, per_instruction, top_k, launch) for f in funcs]
    return VgprReports(summary=f"{len(reports)} function(s) in {path}", file=str(path), reports=reports)
