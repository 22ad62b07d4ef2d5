"""vgpr-pressure on AMDGCN: resources and their status, exact liveness, the peak points, the hot loop, spills.

Parsing, CFG, liveness and value attribution live in ``tools.isa``; the suggestions in
:mod:`tools.vgpr_pressure.suggestions`; the Triton stage findings in :mod:`tools.vgpr_pressure.triton`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tools import inputs
from tools.errors import InputError, KernelpilotError
from tools.isa import arch as archmod
from tools.isa import metadata as metamod
from tools.isa import pressure
from tools.isa.amdgcn import Instruction, IsaFile, Kernel, find_kernel, parse_isa
from tools.isa.cfg import MEMORY_CATEGORIES, build_cfg, find_hot_loop
from tools.isa.liveness import Liveness, compute_liveness, vgprs
from tools.isa.source_attr import attribute_loc
from tools.models.vgpr import (
    CriticalPoint,
    HotLoop,
    InstructionPressure,
    InstructionRef,
    KernelError,
    Metric,
    SpillAnalysis,
    SpilledValue,
    SpillKind,
    VgprReport,
    VgprReports,
)
from tools.vgpr_pressure import report
from tools.vgpr_pressure import suggestions as suggest
from tools.vgpr_pressure import triton as vgpr_triton

DISTRIBUTION_KEYS = (
    "scratch_load",
    "scratch_store",
    "vmem_load",
    "vmem_load_lds",
    "vmem_store",
    "mfma",
    "cndmask",
    "nop",
    "lds_read",
    "lds_write",
    "waitcnt",
)


def _resolve_arch(isa: IsaFile, arch: str | None, notes: list[str]) -> str | None:
    if arch:
        return archmod.normalize_arch(arch)
    if isa.arch is None:
        notes.append("the file names no gfx target; occupancy is not computed (pass --arch)")
        return None
    try:
        return archmod.normalize_arch(isa.arch)
    except InputError:
        notes.append(f"{isa.arch} has no occupancy table here; figures other than occupancy are still exact")
        return None


# --- analysis -------------------------------------------------------------------------------------------------


def _source(inst: Instruction) -> str | None:
    """The user's line for an instruction, through inlined library frames (``(inside tl.sum at kernel.py:21:12)``)."""
    return str(attribute_loc(inst.loc)) if inst.loc else None


def _ref(inst: Instruction, lv: Liveness | None = None) -> InstructionRef:
    return InstructionRef(
        index=inst.index,
        line=inst.line,
        text=inst.text,
        source=_source(inst),
        inlined_at=[str(f) for f in inst.loc.frames] if inst.loc and inst.loc.inlined_at else None,
        live_vgprs=lv.vgpr[inst.index] if lv else None,
    )


# GCN/CDNA: s0..s101 (tools.vgpr_pressure.triton, one definition); the metadata's sgpr_count adds VCC (and
# FLAT_SCRATCH/XNACK) on top
ADDRESSABLE_SGPRS = vgpr_triton.ADDRESSABLE_SGPRS
SGPR_WARN_AT = 100


def _occupancy_note(res, arch: str | None, info, stages) -> str:
    """Why waves_per_simd is what it is: every limit with the smallest (the limiter) first, and the
    ``amdgpu-waves-per-eu`` attribute when the LLVM IR carries one."""
    parts = []
    reason = getattr(res, "occupancy_reason", None)  # dump-ir's own account, when the Resources model has it
    if reason:
        parts.append(reason)
    elif info is not None and res.vgpr_count:
        limits = {"vgpr": archmod.waves_per_simd_from_vgprs(arch, res.vgpr_count)}
        if res.sgpr_count and info.sgprs_per_simd:
            limits["sgpr"] = archmod.waves_per_simd_from_sgprs(arch, res.sgpr_count)
        if res.lds_bytes:
            wg = res.max_flat_workgroup_size or info.wavefront_size * 4
            limits["lds"] = archmod.waves_per_simd_from_lds(arch, res.lds_bytes, wg)
        limits["hardware"] = info.max_waves_per_simd
        order = sorted(limits.items(), key=lambda kv: (kv[1], kv[0] != "hardware"))  # a tie: the hardware cap
        parts.append(f"limited by {order[0][0]}: " + ", ".join(f"{k} allows {v}" for k, v in order))
    wpe = stages.waves_per_eu if stages is not None else None
    if wpe and info is not None and res.waves_per_simd is not None and res.waves_per_simd > wpe[1]:
        parts.append(
            f"the {res.waves_per_simd} waves counted from vgpr_count={res.vgpr_count} exceed the attribute's maximum "
            f"{wpe[1]}: LLVM pads the allocation to hold occupancy at {wpe[1]} (the ISA's '; Occupancy:' comment "
            "and .amdhsa_next_free_vgpr show it), so expect " + str(wpe[1])
        )
    if wpe and info is not None:
        budget = info.vgprs_per_lane // wpe[0] // info.vgpr_granule * info.vgpr_granule
        parts.append(
            f'amdgpu-waves-per-eu="{wpe[0]},{wpe[1]}" (Triton waves_per_eu): the compiler must fit {wpe[0]} waves, so '
            f"at most {min(budget, info.max_vgprs_per_wave)} VGPRs per wave (it spills rather than use more); "
            f"its maximum {wpe[1]} caps the compiler's occupancy (LLVM reserves VGPRs up to the {wpe[1]}-wave "
            "allocation, .amdhsa_next_free_vgpr), so a kernel that uses fewer VGPRs still runs "
            f"{wpe[1]} waves/SIMD — raise waves_per_eu (or drop it) for more"
        )
    fwgs = stages.flat_workgroup_size if stages is not None else None
    if fwgs and info is not None:
        parts.append(
            f'launch bounds amdgpu-flat-work-group-size="{fwgs[0]},{fwgs[1]}": at most {fwgs[1]} threads '
            f"({-(-fwgs[1] // info.wavefront_size)} waves) per workgroup"
        )
    return "; ".join(parts)


def _status_metrics(res, arch: str | None, lv: Liveness, kernel: Kernel, stages=None, launch=None) -> list[Metric]:
    """Every metric with a status; a ``warn``/``bad`` note says why and names the threshold it crossed."""
    info = archmod.AMD_ARCHS.get(arch) if arch else None
    spills = res.vgpr_spill_count or 0
    m: list[Metric] = []
    vgpr_waves = archmod.waves_per_simd_from_vgprs(arch, res.vgpr_count) if info and res.vgpr_count else None
    if spills:
        st, note = "bad", f"bad: {spills} VGPRs spilled (vgpr_spill_count > 0): the allocation hit its ceiling"
        budget = vgpr_triton.vgpr_budget(arch, stages or vgpr_triton.Stages(), res.vgpr_count, spills)
        if budget is not None and stages is not None and stages.waves_per_eu:
            note += f" of {budget[0]} ({budget[1]})"
    elif vgpr_waves is not None and vgpr_waves <= 1:
        st, note = "warn", f"warn: allows only {vgpr_waves} wave/SIMD (threshold: <= 1)"
    else:
        st, note = "ok", ""
    if vgpr_waves is not None:
        note = (note + "; " if note else "") + f"unified arch+AGPR total; alone allows {vgpr_waves} waves/SIMD"
    m.append(Metric(name="vgpr_count", value=res.vgpr_count, status=st, note=note))
    uses_mfma = any(i.category == "mfma" for i in kernel.instructions)
    agpr_st = "warn" if res.agpr_count and not uses_mfma else "ok"
    m.append(
        Metric(
            name="agpr_count",
            value=res.agpr_count,
            status=agpr_st,
            note=f"warn: {res.agpr_count} AGPRs in a kernel without MFMA (threshold: > 0): spill space"
            if agpr_st == "warn"
            else "",
        )
    )
    m.append(
        Metric(
            name="accum_offset",
            value=res.accum_offset,
            status="ok",
            note="first AGPR in the unified file" if res.accum_offset else "",
        )
    )
    sgpr_spills = res.sgpr_spill_count or 0
    sgprs = res.sgpr_count or 0
    if sgpr_spills:
        sg_st = "bad"
        sg_note = (
            f"bad: {sgpr_spills} SGPRs spilled (sgpr_spill_count > 0): the kernel needs more than the "
            f"{ADDRESSABLE_SGPRS} addressable SGPRs (s0-s{ADDRESSABLE_SGPRS - 1}); {sgprs} includes VCC and the "
            "other SGPRs the hardware reserves"
        )
    elif sgprs > SGPR_WARN_AT:
        sg_st = "warn"
        sg_note = f"warn: > {SGPR_WARN_AT}, near the {ADDRESSABLE_SGPRS} addressable SGPRs"
    else:
        sg_st, sg_note = "ok", ""
    m.append(Metric(name="sgpr_count", value=res.sgpr_count, status=sg_st, note=sg_note))
    m.append(
        Metric(
            name="vgpr_spill_count",
            value=res.vgpr_spill_count,
            status="bad" if spills else "ok",
            note=f"bad: > 0: {spills} VGPR values go to scratch memory and back" if spills else "",
        )
    )
    m.append(
        Metric(
            name="sgpr_spill_count",
            value=res.sgpr_spill_count,
            status="warn" if sgpr_spills else "ok",
            note="warn: > 0: SGPR spills go to VGPR lanes (v_writelane/v_readlane), costing VGPRs and VALU slots"
            if sgpr_spills
            else "",
        )
    )
    return m + _memory_and_occupancy_metrics(res, arch, info, lv, stages, launch, vgpr_waves)


def _memory_and_occupancy_metrics(res, arch, info, lv: Liveness, stages, launch, vgpr_waves) -> list[Metric]:
    """The scratch, LDS, occupancy and peak-liveness metrics of ``_status_metrics``, in its order."""
    spills = res.vgpr_spill_count or 0
    m: list[Metric] = []
    scratch = res.scratch_bytes or 0
    if scratch and spills:
        sc_st, sc_note = "bad", f"bad: > 0 with VGPR spills: {scratch} B per lane of scratch hold the spilled values"
    elif scratch:
        sc_st = "warn"
        sc_note = f"warn: > 0 without VGPR spills: {scratch} B per lane of private memory (a local array or stack)"
    else:
        sc_st, sc_note = "ok", ""
    m.append(Metric(name="scratch_bytes", value=res.scratch_bytes, status=sc_st, note=sc_note))
    lds_st, lds_note = "ok", ""
    if info and res.lds_bytes and res.vgpr_count:
        lds_waves = archmod.waves_per_simd_from_lds(
            arch, res.lds_bytes, res.max_flat_workgroup_size or info.wavefront_size * 4
        )
        if vgpr_waves is not None and lds_waves < vgpr_waves:
            lds_st = "warn"
            lds_note = (
                f"warn: LDS allows {lds_waves} waves/SIMD, below the {vgpr_waves} the registers allow "
                f"(threshold: LDS limit < register limit)"
            )
    if launch is not None and not lds_note:
        lds_note = (
            f"at launch: {res.static_lds_bytes or 0} B the binary declares + {launch.bytes} B the launch allocates "
            f"({launch.origin})"
        )
    m.append(Metric(name="lds_bytes", value=res.lds_bytes, status=lds_st, note=lds_note))
    waves = res.waves_per_simd
    w_st = "ok" if waves is None or waves >= 3 else ("warn" if waves == 2 else "bad")
    w_note = ""
    if w_st == "warn":
        w_note = "warn: == 2 (usual for large MFMA tiles, little latency hiding otherwise)"
    elif w_st == "bad":
        w_note = f"bad: < 2: {waves} wave/SIMD leaves no latency hiding"
    occ = _occupancy_note(res, arch, info, stages)
    w_note = "; ".join(x for x in (w_note, occ) if x)
    m.append(Metric(name="waves_per_simd", value=waves, status=w_st, note=w_note))
    limit = 256 if (info is None or info.family == "cdna") else info.max_vgprs_per_wave
    peak = lv.max_vgpr
    p_st = "bad" if peak >= limit else ("warn" if peak >= 0.9 * limit else "ok")
    p_note = f"of {limit} architectural VGPRs per wave"
    if p_st == "bad":
        p_note = f"bad: >= {limit}: every architectural VGPR is live"
    elif p_st == "warn":
        p_note = f"warn: >= 90% of {limit} architectural VGPRs per wave"
    m.append(Metric(name="max_live_vgprs", value=peak, status=p_st, note=p_note))
    m.append(Metric(name="max_live_agprs", value=lv.max_agpr, status="ok"))
    m.append(Metric(name="max_live_sgprs", value=lv.max_sgpr, status="ok", note="s0..s127, excluding vcc/exec/m0"))
    return m


def _critical_points(kernel, lv, att, hot, top_k) -> list[CriticalPoint]:
    at_peak, starts = report.peak_regions(lv.vgpr)
    loop = set(hot.loop.instruction_indices(att.cfg)) if hot is not None else set()
    points = []
    for j in starts:
        groups, by_src = pressure.group_live(att, lv.at(j, kernel), j)
        points.append(
            report.critical_point(
                _ref(kernel.instructions[j], lv),
                live=lv.vgpr[j],
                live_agprs=lv.agpr[j],
                live_sgprs=lv.sgpr[j],
                in_hot_loop=j in loop,
                instructions_at_peak=len(at_peak),
                by_definition=report.register_groups(groups, "v", lambda i: _ref(kernel.instructions[i])),
                by_source=by_src,
                prefix="v",
                top_k=top_k,
            )
        )
    return points


def _hot_loop_model(cfg, lv, att, hot) -> HotLoop | None:
    if hot is None:
        return None
    idx = hot.loop.instruction_indices(cfg)
    counts = Counter(cfg.kernel.instructions[i].category for i in idx)
    dist = {k: counts.get(k, 0) for k in DISTRIBUTION_KEYS}
    mem = sum(counts.get(k, 0) for k in MEMORY_CATEGORIES if k != "smem")
    scratch = counts.get("scratch_load", 0) + counts.get("scratch_store", 0)
    carried = pressure.loop_carried(cfg, lv, hot)
    header_first = cfg.blocks[hot.loop.header].start
    groups, _ = pressure.group_live(att, carried, header_first)
    return HotLoop(
        header_label=hot.header_label,
        first_index=hot.first_instruction,
        last_index=hot.last_instruction,
        instruction_count=hot.instruction_count,
        reason=hot.reason,
        distribution=dist,
        scratch_share_of_memory_ops=round(scratch / mem, 3) if mem else 0.0,
        max_live_vgprs=max(lv.vgpr[i] for i in idx),
        header_live_vgprs=len(vgprs(lv.live_in[hot.loop.header])),
        loop_carried_vgprs=len(vgprs(carried)),
        loop_carried=report.register_groups(groups, "v", lambda i: _ref(cfg.kernel.instructions[i])),
    )


def _spill_model(kernel, att, hot, top_k) -> SpillAnalysis | None:
    facts = pressure.find_spills(kernel)
    if not facts.stores and not facts.reloads and not facts.agpr_slots:
        return None
    in_loop = set(hot.loop.instruction_indices(att.cfg)) if hot else set()
    values = []
    by_kind: Counter[SpillKind] = Counter()
    for s in facts.stores:
        reg = pressure.stored_register(s)
        if reg is None:
            continue
        info = att.kind(reg, s.index)
        # re-spilled after a reload: attribute to the original store's value
        kind: SpillKind = "respill" if info.kind == "spill_reload" else info.kind
        by_kind[kind] += 1
        values.append(
            SpilledValue(
                reg=f"v{reg}",
                slot=pressure.spill_slot(s),
                kind=kind,
                store=_ref(s),
                defined_by=_ref(kernel.instructions[info.def_index]) if info.def_index is not None else None,
                in_hot_loop=s.index in in_loop,
            )
        )
    return report.spill_analysis(
        "amd",
        stores=len(facts.stores),
        reloads=len(facts.reloads),
        hot_loop_stores=sum(1 for s in facts.stores if s.index in in_loop),
        hot_loop_reloads=sum(1 for r in facts.reloads if r.index in in_loop),
        has_hot_loop=hot is not None,
        values=values,
        by_kind=by_kind,
        top_k=top_k,
        agpr_slots=len(facts.agpr_slots),
        by_kind_detail=_spill_kind_details(kernel, att, values),
    )


def _spill_kind_details(kernel, att, values: list[SpilledValue]) -> dict[SpillKind, str]:
    """Which values of each spilled kind: the user lines that define them and, for addresses, the memory
    instructions (by user line) that the reloaded values address."""
    out: dict[SpillKind, str] = {}
    by_kind: dict[SpillKind, list[SpilledValue]] = {}
    for v in values:
        by_kind.setdefault(v.kind, []).append(v)
    for kind, vals in by_kind.items():
        defs = Counter(v.defined_by.source or "(no .loc)" for v in vals if v.defined_by)
        ops = Counter(v.defined_by.text.split()[0] for v in vals if v.defined_by)
        text = "defined at " + ", ".join(f"{src} ×{n}" for src, n in defs.most_common(3))
        if ops:
            text += " by " + ", ".join(op for op, _ in ops.most_common(2))
        if kind == "address":
            users: Counter[str] = Counter()
            for v in vals:
                for r in att.reloads_by_slot.get(v.slot, []):
                    if not r.operands or r.operands[0].kind != "v":
                        continue
                    rr = r.operands[0].first
                    for u in att.consumers(rr, r.index, limit=8):
                        if pressure.is_address_use(u, rr):
                            users[f"{_source(u) or '(no .loc)'} ({u.mnemonic})"] += 1
            if users:
                text += "; reloaded to address " + ", ".join(u for u, _ in users.most_common(4))
        out[kind] = text
    return out


def _summary(kernel: Kernel, arch, res, lv, points, hot, spills, suggestions) -> str:
    count = f"{res.vgpr_count} VGPRs" if res.vgpr_count is not None else "VGPR count unknown (no resource metadata)"
    parts = [f"{kernel.name} ({arch or 'unknown arch'}): {count}"]
    if res.agpr_count:
        parts[0] += f" incl. {res.agpr_count} AGPRs"
    if res.vgpr_spill_count:
        parts.append(f"{res.vgpr_spill_count} VGPR spills, {res.scratch_bytes} B scratch")
    if res.waves_per_simd is not None:
        parts.append(f"{res.waves_per_simd} waves/SIMD")
    text = ", ".join(parts) + "."
    text += report.summary_tail("amd", points, hot, spills, suggestions)
    return text


def analyze_kernel(
    isa: IsaFile,
    kernel: Kernel,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
    file: str | None = None,
    stages: vgpr_triton.Stages | None = None,
    launch_lds: int | inputs.LaunchLds | None = None,
) -> VgprReport:
    """Report for one parsed kernel; ``stages`` (the TTGIR/LLVM IR beside the ISA) add the Triton findings.

    ``launch_lds``: LDS bytes the launch allocates on top of the binary's static figure (Triton's ``shared``); by
    default read from the metadata JSON beside the ISA (:func:`tools.inputs.launch_lds_beside`). It enters
    ``lds_bytes`` and the occupancy through the function dump-ir uses (``resources_from_metadata``)."""
    notes: list[str] = []
    stages = stages if stages is not None else vgpr_triton.stages_beside(file)
    arch = _resolve_arch(isa, arch, notes)
    meta = kernel.metadata or metamod.KernelMetadata(name=kernel.name)
    if kernel.metadata is None:
        notes.append(
            "no metadata for this function (a device function, or a stripped or truncated file): resources unknown"
        )
    launch = inputs.resolve_launch_lds(launch_lds, file)
    if launch is None and kernel.is_kernel:
        notes.append(inputs.UNKNOWN_LAUNCH_LDS_NOTE)
    res = metamod.resources_from_metadata(meta, arch, launch.bytes if launch else 0)
    notes.extend(res.notes)
    cfg = build_cfg(kernel)
    if cfg.unresolved_targets:
        notes.append(f"branch targets outside this kernel treated as exits: {', '.join(cfg.unresolved_targets[:5])}")
    lv = compute_liveness(cfg)
    hot = find_hot_loop(cfg)
    att = pressure.Attributor(kernel)
    att.cfg = cfg
    points = _critical_points(kernel, lv, att, hot, top_k)
    spills = _spill_model(kernel, att, hot, top_k)
    suggestions = suggest.amd(kernel, cfg, lv, att, hot, points)
    warp, triton_lines = vgpr_triton.warp_suggestion(stages, arch, res.vgpr_count, res.vgpr_spill_count or 0)
    if warp is not None:
        suggestions = sorted([*suggestions, warp], key=lambda s: -s.estimated_vgpr_savings)
    triton_lines += vgpr_triton.lds_conversions(stages) + vgpr_triton.narrow_loads(stages, kernel)
    per = None
    if per_instruction:
        per = [
            InstructionPressure(
                index=i.index,
                line=i.line,
                text=i.text,
                live_vgprs=lv.vgpr[i.index],
                live_agprs=lv.agpr[i.index],
                live_sgprs=lv.sgpr[i.index],
                source=_source(i),
            )
            for i in kernel.instructions
        ]
    return VgprReport(
        summary=_summary(kernel, arch, res, lv, points, hot, spills, suggestions),
        kernel=kernel.name,
        arch=arch,
        file=file,
        instruction_count=len(kernel.instructions),
        metrics=_status_metrics(res, arch, lv, kernel, stages, launch),
        hot_loop=_hot_loop_model(cfg, lv, att, hot),
        critical_points=points,
        spills=spills,
        suggestions=suggestions,
        notes=notes,
        triton=triton_lines,
        per_instruction=per,
    )


def analyze_isa(
    text_or_path: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
    launch_lds: int | inputs.LaunchLds | None = None,
) -> VgprReport:
    """Report for one kernel of an AMDGCN text, file or dump directory (the first kernel when ``kernel`` is None)."""
    text, file = inputs.read_isa(text_or_path)
    if arch:
        arch = archmod.normalize_arch(arch)
    isa = parse_isa(text, file or "input")
    k = find_kernel(isa, kernel) if kernel else next((k for k in isa.kernels if k.is_kernel), isa.kernels[0])
    return analyze_kernel(isa, k, arch, per_instruction=per_instruction, top_k=top_k, file=file, launch_lds=launch_lds)


def analyze_isa_all(
    text_or_path: str | Path,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
    launch_lds: int | inputs.LaunchLds | None = None,
) -> VgprReports:
    """Reports for every kernel; a kernel that fails is listed in ``errors`` and the others are still analysed."""
    text, file = inputs.read_isa(text_or_path)
    if arch:
        arch = archmod.normalize_arch(arch)
    isa = parse_isa(text, file or "input")
    reports, errors = [], []
    for k in isa.kernels:
        try:
            reports.append(
                analyze_kernel(
                    isa, k, arch, per_instruction=per_instruction, top_k=top_k, file=file, launch_lds=launch_lds
                )
            )
        except KernelpilotError as exc:
            errors.append(KernelError(kernel=k.name, error=exc.message, hint=exc.hint))
    summary = f"{len(reports)} kernel(s) in {file or 'input'}" + (f", {len(errors)} failed" if errors else "")
    return VgprReports(summary=summary, file=file or "input", reports=reports, errors=errors)
