"""``kernelpilot vgpr-pressure``: register use, exact liveness, peak points, spills and what to cut.

Orchestration only: parsing, CFG, liveness and value attribution live in ``tools.isa``. Callers (CLI, MCP server,
evals) use :func:`analyze_isa`, :func:`analyze_isa_all`, :func:`analyze_path`, :func:`analyze_cubin` and
:func:`diff_reports`; all return pydantic models from ``tools.models.vgpr``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from tools import paths, vgpr_triton
from tools.errors import InputError, KernelpilotError
from tools.gitref import resolve_file
from tools.isa import arch as archmod
from tools.isa import metadata as metamod
from tools.isa import pressure
from tools.isa.amdgcn import Instruction, IsaFile, Kernel, attribute_loc, find_kernel, load_isa_text, parse_isa
from tools.isa.cfg import MEMORY_CATEGORIES, build_cfg, find_hot_loop
from tools.isa.liveness import Liveness, compute_liveness, vgprs
from tools.models.vgpr import (
    CriticalPoint,
    HotLoop,
    InstructionPressure,
    InstructionRef,
    KernelDiff,
    KernelError,
    Metric,
    MetricChange,
    RegisterGroup,
    SourceGroup,
    SpillAnalysis,
    SpilledValue,
    Suggestion,
    VgprDiff,
    VgprReport,
    VgprReports,
)

ISA_SUFFIXES = (".s", ".amdgcn", ".asm", ".isa")
SOURCE_SUFFIXES = (".py", ".cu", ".hip", ".cpp", ".cc", ".mojo")  # compiled with dump-ir, as prefetch-data-load does
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
PEAK_REGRESSION_THRESHOLD = 8  # live VGPRs: below one allocation granule is noise


# --- inputs ---------------------------------------------------------------------------------------------------


def find_isa_files(path: str | Path) -> list[Path]:
    """The ISA files of a dump directory (``*final_isa.s`` first, then ``*.amdgcn``, then ``*.s``), or the file."""
    p = paths.guard(path, "ISA")
    if not p.exists():
        raise InputError(f"{p} does not exist", hint="pass an ISA file (.s/.amdgcn), a cubin, or a dump directory")
    if p.is_file():
        return [p]
    for pattern in ("*final_isa.s", "*_amdgcn.s", "*.amdgcn", "*.s"):  # dump-ir names its ISA NN_amdgcn.s
        # hidden directories (a compiler's own cache, e.g. .triton_cache) hold copies, not the dump
        found = sorted(
            f for f in p.rglob(pattern) if f.is_file() and not any(x.startswith(".") for x in f.relative_to(p).parts)
        )
        if found:
            return [paths.guard(f, f"ISA file in {p}") for f in found]
    raise InputError(
        f"{p} contains no ISA files (*final_isa.s, *.amdgcn, *.s)",
        hint="dump with FLYDSL_DUMP_IR=1 / hipcc --save-temps, or run `kernelpilot dump-ir` first",
    )


def _load(text_or_path) -> tuple[str, str | None]:
    if isinstance(text_or_path, Path) or (
        isinstance(text_or_path, str) and "\n" not in text_or_path and len(text_or_path) < 4096
    ):
        files = find_isa_files(text_or_path)
        return load_isa_text(files[0]), str(files[0])
    return text_or_path, None


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


ADDRESSABLE_SGPRS = 102  # GCN/CDNA: s0..s101; the metadata's sgpr_count adds VCC (and FLAT_SCRATCH/XNACK) on top
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


def _status_metrics(res, arch: str | None, lv: Liveness, kernel: Kernel, stages=None) -> list[Metric]:
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
    peak = lv.max_vgpr
    if peak == 0:
        return []
    at_peak = [j for j, c in enumerate(lv.vgpr) if c == peak]
    # Distinct peak regions: the first instruction of each run of consecutive peak instructions, at most 3.
    starts = [j for n, j in enumerate(at_peak) if n == 0 or at_peak[n - 1] != j - 1][:3]
    points = []
    for j in starts:
        inst = kernel.instructions[j]
        live = lv.at(j, kernel)
        groups, by_src = pressure.group_live(att, live, j)
        by_def = [
            RegisterGroup(
                kind=g["kind"],
                count=len(g["regs"]),
                registers=pressure.fmt_regs("v", g["regs"]),
                example=_ref(kernel.instructions[g["example"]]) if g["example"] is not None else None,
            )
            for g in groups
        ]
        src_sorted = sorted(by_src.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        points.append(
            CriticalPoint(
                instruction=_ref(inst, lv),
                live_vgprs=lv.vgpr[j],
                live_agprs=lv.agpr[j],
                live_sgprs=lv.sgpr[j],
                in_hot_loop=hot is not None and j in set(hot.loop.instruction_indices(att.cfg)),
                instructions_at_peak=len(at_peak),
                by_definition=by_def,
                by_source=[
                    SourceGroup(source=s, count=len(r), registers=pressure.fmt_regs("v", r))
                    for s, r in src_sorted[:top_k]
                ],
                by_source_total=len(src_sorted),
                by_source_truncated=len(src_sorted) > top_k,
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
        loop_carried=[
            RegisterGroup(
                kind=g["kind"],
                count=len(g["regs"]),
                registers=pressure.fmt_regs("v", g["regs"]),
                example=_ref(cfg.kernel.instructions[g["example"]]) if g["example"] is not None else None,
            )
            for g in groups
        ],
    )


def _spill_model(kernel, att, hot, top_k) -> SpillAnalysis | None:
    facts = pressure.find_spills(kernel)
    if not facts.stores and not facts.reloads and not facts.agpr_slots:
        return None
    in_loop = set(hot.loop.instruction_indices(att.cfg)) if hot else set()
    values = []
    by_kind: Counter[str] = Counter()
    for s in facts.stores:
        reg = pressure.stored_register(s)
        if reg is None:
            continue
        info = att.kind(reg, s.index)
        if info.kind == "spill_reload":  # re-spilled after a reload: attribute to the original store's value
            info.kind = "respill"
        by_kind[info.kind] += 1
        values.append(
            SpilledValue(
                reg=f"v{reg}",
                slot=pressure.spill_slot(s),
                kind=info.kind,
                store=_ref(s),
                defined_by=_ref(kernel.instructions[info.def_index]) if info.def_index is not None else None,
                in_hot_loop=s.index in in_loop,
            )
        )
    hs = sum(1 for s in facts.stores if s.index in in_loop)
    hr = sum(1 for r in facts.reloads if r.index in in_loop)
    details = _spill_kind_details(kernel, att, values)
    kinds = ", ".join(f"{n} {k}" for k, n in by_kind.most_common())
    cause = f"{len(facts.stores)} spill stores ({kinds or 'no VGPR data'})"
    if hot is not None:
        cause += f"; {hs} stores and {hr} reloads sit inside the hot loop"
        if hr:
            cause += " — every iteration pays scratch latency"
    if facts.agpr_slots:
        cause += f"; {len(facts.agpr_slots)} AGPRs serve as spill slots (v_accvgpr_write/read)"
    values.sort(key=lambda v: (not v.in_hot_loop, v.store.index))
    return SpillAnalysis(
        spill_stores=len(facts.stores),
        spill_reloads=len(facts.reloads),
        hot_loop_spill_stores=hs,
        hot_loop_spill_reloads=hr,
        agpr_spill_slots=len(facts.agpr_slots),
        by_kind=dict(by_kind),
        by_kind_detail=details,
        root_cause=cause,
        values=values[:top_k],
        values_total=len(values),
        values_truncated=len(values) > top_k,
    )


def _spill_kind_details(kernel, att, values: list[SpilledValue]) -> dict[str, str]:
    """Which values of each spilled kind: the user lines that define them and, for addresses, the memory
    instructions (by user line) that the reloaded values address."""
    out: dict[str, str] = {}
    by_kind: dict[str, list[SpilledValue]] = {}
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


def _suggestions(kernel, cfg, lv, att, hot, points) -> list[Suggestion]:
    out: list[Suggestion] = []
    if hot is None:
        return out
    insts = kernel.instructions
    loop_idx = hot.loop.instruction_indices(cfg)
    loop_set = set(loop_idx)
    carried = pressure.loop_carried(cfg, lv, hot)
    header_first = cfg.blocks[hot.loop.header].start
    kinds: dict[str, list[int]] = {}
    for reg in vgprs(carried):
        kinds.setdefault(att.kind(reg, header_first).kind, []).append(reg)
    fmt = pressure.fmt_regs

    frag = kinds.get("lds_fragment", [])
    if frag:
        out.append(
            Suggestion(
                id="drop_first_fragment_prefetch",
                title="drop the first-fragment prefetch across the back edge",
                estimated_vgpr_savings=len(frag),
                evidence=f"{len(frag)} LDS-fragment VGPRs ({fmt('v', frag)}) are loaded in one iteration and live into "
                f"the loop header {hot.header_label or ''}",
                action="issue the first ds_read of each iteration at the top of the iteration (after the barrier) "
                "instead of prefetching it at the end of the previous one; the MFMA chain hides the LDS latency",
            )
        )

    other = [
        r for k, regs in kinds.items() if k in ("address", "valu_other", "spill_reload", "agpr_copy") for r in regs
    ]
    if len(other) >= 8:
        addr = len(kinds.get("address", []))
        out.append(
            Suggestion(
                id="drop_loop_carried_state",
                title="drop non-accumulator loop-carried state",
                estimated_vgpr_savings=max(0, len(other) - 2),
                evidence=f"{len(other)} VGPRs that are not MFMA accumulators travel around the back edge of "
                f"{hot.header_label or 'the hot loop'} ({addr} of them address arithmetic): {fmt('v', other)}",
                action="keep only the accumulators loop-carried: recompute per-iteration addresses from the loop counter "
                "(SGPR) and one base pointer, and consume data copied for the next iteration (v_mov of prefetched "
                "tiles) in the iteration that loads it or stage it through LDS",
            )
        )

    # Per-block accumulators: an MFMA result added into a separate running sum by VALU inside the loop.
    partial_regs: set[int] = set()
    fold_evidence = None
    for j in sorted(att.folds & loop_set):
        i = insts[j]
        for reg in vgprs(i.uses & ~i.defs):
            d = att.reaching_def(reg, j)
            if d is not None and d in loop_set and insts[d].category == "mfma":
                partial_regs.update(vgprs(insts[d].defs))
                fold_evidence = fold_evidence or (i, insts[d])
    if partial_regs:
        add, mf = fold_evidence
        out.append(
            Suggestion(
                id="fold_block_accumulators",
                title="fold per-block accumulators into the MFMA accumulator",
                estimated_vgpr_savings=len(partial_regs),
                evidence=f"{len(partial_regs)} VGPRs hold per-block MFMA results that VALU then adds into another "
                f"accumulator, e.g. #{add.index} `{add.text}` reads #{mf.index} `{mf.text}`",
                action="pass the running accumulator as the MFMA's srcC (dst == srcC) so the hardware accumulates in "
                "place; apply any per-block scale to the A/B operands or once after the loop",
            )
        )

    lazy = _scale_values_at_once(kernel, lv, att, loop_idx)
    if lazy is not None:
        j, raw, prod = lazy
        regs = sorted(raw + prod)
        out.append(
            Suggestion(
                id="lazy_scale_products",
                title="compute scale products lazily",
                estimated_vgpr_savings=len(regs) - 2,
                evidence=f"{len(regs)} VGPRs of scale values are live at once at #{j} `{insts[j].text}` "
                f"({len(raw)} loaded scales, {len(prod)} precomputed scale products): {fmt('v', regs)}",
                action="keep the raw scales (or load them just before use) and multiply right before the instruction "
                "that consumes the product, so only one product (pair) is live at a time",
            )
        )

    peak_live = lv.at(points[0].instruction.index, kernel) if points else 0
    loads_live = (
        [r for r in vgprs(peak_live) if att.kind(r, points[0].instruction.index).kind == "global_load"]
        if points
        else []
    )
    if points and points[0].in_hot_loop and len(loads_live) >= 16:
        out.append(
            Suggestion(
                id="per_k_step_b_loads",
                title="load B-tile packs per K step",
                estimated_vgpr_savings=len(loads_live) // 2,
                evidence=f"{len(loads_live)} VGPRs of global/buffer-load data are live at the peak "
                f"({fmt('v', loads_live)}): the whole tile is in registers at once",
                action="split the tile load into per-K-step packs issued one step ahead of their MFMAs (or stage them "
                "through LDS with buffer_load ... lds); estimate assumes two K steps per tile",
            )
        )
    out.sort(key=lambda s: -s.estimated_vgpr_savings)
    return out


def _scale_values_at_once(kernel, lv, att, loop_idx) -> tuple[int, list[int], list[int]] | None:
    """The loop instruction where the most scale values (scale loads and products of them) are live, when at least
    two products or four scales are: (index, raw scale registers, product registers)."""
    insts = kernel.instructions
    scale_defs: dict[int, str] = {}
    for i in insts:
        if i.category == "vmem_load" or i.mnemonic.startswith(("v_mul_f", "v_pk_mul_f")):
            first = next(iter(vgprs(i.defs)), None)
            kind = att.kind(first, i.index + 1).kind if first is not None else None
            if kind in ("scale_load", "scale_product"):
                scale_defs[i.index] = kind
    if not scale_defs:
        return None
    best = None
    for j in loop_idx:
        raw, prod = [], []
        for r in vgprs(lv.at(j, kernel)):
            kind = scale_defs.get(att.reaching_def(r, j + 1) if (insts[j].defs >> r) & 1 else att.reaching_def(r, j))
            if kind == "scale_load":
                raw.append(r)
            elif kind == "scale_product":
                prod.append(r)
        if best is None or len(raw) + len(prod) > len(best[1]) + len(best[2]):
            best = (j, raw, prod)
    if best is None or (len(best[2]) < 2 and len(best[1]) < 4):
        return None
    return best


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
    if points:
        p = points[0]
        where = f" in the hot loop {hot.header_label}" if p.in_hot_loop and hot else ""
        top = ", ".join(f"{g.count} {g.kind}" for g in p.by_definition[:3])
        text += f" Peak {p.live_vgprs} live VGPRs at #{p.instruction.index} `{p.instruction.text}`{where} ({top})."
    if spills:
        text += f" Spills: {spills.root_cause}."
    if suggestions:
        s = suggestions[0]
        text += f" Top fix: {s.title} (~{s.estimated_vgpr_savings} VGPRs)."
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
) -> VgprReport:
    """Report for one parsed kernel; ``stages`` (the TTGIR/LLVM IR beside the ISA) add the Triton findings."""
    notes: list[str] = []
    stages = stages if stages is not None else vgpr_triton.stages_beside(file)
    arch = _resolve_arch(isa, arch, notes)
    meta = kernel.metadata or metamod.KernelMetadata(name=kernel.name)
    if kernel.metadata is None:
        notes.append(
            "no metadata for this function (a device function, or a stripped or truncated file): resources unknown"
        )
    res = metamod.resources_from_metadata(meta, arch)
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
    suggestions = _suggestions(kernel, cfg, lv, att, hot, points)
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
        metrics=_status_metrics(res, arch, lv, kernel, stages),
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
) -> VgprReport:
    """Report for one kernel of an AMDGCN text, file or dump directory (the first kernel when ``kernel`` is None)."""
    text, file = _load(text_or_path)
    if arch:
        arch = archmod.normalize_arch(arch)
    isa = parse_isa(text, file or "input")
    k = find_kernel(isa, kernel) if kernel else next((k for k in isa.kernels if k.is_kernel), isa.kernels[0])
    return analyze_kernel(isa, k, arch, per_instruction=per_instruction, top_k=top_k, file=file)


def analyze_isa_all(
    text_or_path: str | Path, arch: str | None = None, *, per_instruction: bool = False, top_k: int = 8
) -> VgprReports:
    """Reports for every kernel; a kernel that fails is listed in ``errors`` and the others are still analysed."""
    text, file = _load(text_or_path)
    if arch:
        arch = archmod.normalize_arch(arch)
    isa = parse_isa(text, file or "input")
    reports, errors = [], []
    for k in isa.kernels:
        try:
            reports.append(analyze_kernel(isa, k, arch, per_instruction=per_instruction, top_k=top_k, file=file))
        except KernelpilotError as exc:
            errors.append(KernelError(kernel=k.name, error=exc.message, hint=exc.hint))
    summary = f"{len(reports)} kernel(s) in {file or 'input'}" + (f", {len(errors)} failed" if errors else "")
    return VgprReports(summary=summary, file=file or "input", reports=reports, errors=errors)


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
        index=j, line=i.addr, text=i.text.split("*/", 1)[-1].strip(), source=i.source, live_vgprs=len(i.live)
    )


def _sass_groups(f, att, live, at) -> list[RegisterGroup]:
    groups, _ = pressure.group_sass_live(att, live, at)
    return [
        RegisterGroup(
            kind=g["kind"],
            count=len(g["regs"]),
            registers=pressure.fmt_regs("R", g["regs"]),
            example=_sass_ref(f, g["example"]) if g["example"] is not None else None,
        )
        for g in groups
    ]


def _sass_hot_loop(f):
    """(loop, reason) for the innermost loop with the most MMA + global/shared memory instructions, or None."""
    from tools.isa import sass

    inner = [lp for lp in sass.find_loops(f) if lp.innermost]
    if not inner:
        return None

    def weight(lp):
        body = f.insts[lp.first : lp.last + 1]
        mma = sum(1 for i in body if i.is_mma)
        mem = sum(1 for i in body if i.root in ("LDG", "LDGSTS", "LDS", "LDSM", "STS", "LDL", "STL"))
        return mma + mem, mma, lp.last - lp.first + 1

    ranked = sorted(inner, key=weight, reverse=True)
    best = ranked[0]
    score, mma, size = weight(best)
    label = f.insts[best.first].labels[0] if f.insts[best.first].labels else f"/*{f.insts[best.first].addr:04x}*/"
    reason = (
        f"innermost loop headed by {label} (backward branch at #{best.last}, depth {best.depth}, {size} instructions) "
        f"has the most MMA + memory instructions: {mma} MMA, {score - mma} LDG/LDGSTS/LDS/STS/LDL/STL"
    )
    if len(ranked) > 1:
        reason += f"; {len(ranked) - 1} other innermost loop(s) have at most {weight(ranked[1])[0]}"
    else:
        reason += "; it is the only innermost loop"
    return best, label, reason


def _sass_report(f, path, arch, threads_per_block, per_instruction, top_k) -> VgprReport:
    a = arch or f.arch
    notes = []
    try:
        a = archmod.normalize_arch(a) if a else None
    except InputError:
        notes.append(f"{a} has no occupancy table here")
        a = None
    regs = f.resources.get("REG")
    local = f.resources.get("LOCAL", 0)
    smem = f.resources.get("SHARED", 0)
    warps = archmod.nvidia_warps_per_sm(a, regs, smem, threads_per_block) if a and regs else None
    if warps is not None:
        notes.append(f"occupancy assumes {threads_per_block} threads per block")
    insts = f.insts
    gpr = [i.counts.get("GPR", 0) for i in insts]
    peak = max(gpr, default=0)
    spill_ops = sum(1 for i in insts if i.root in ("STL", "LDL"))
    metrics = [
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
        Metric(name="shared_bytes", value=smem, status="ok"),
        Metric(name="occupancy_warps_per_sm", value=warps, status="ok"),
        Metric(name="max_live_gprs", value=peak, status="ok", note="nvdisasm --print-life-ranges count"),
        Metric(name="max_live_predicates", value=max((i.counts.get("PRED", 0) for i in insts), default=0)),
        Metric(name="max_live_ugprs", value=max((i.counts.get("UGPR", 0) for i in insts), default=0)),
    ]
    att = pressure.SassAttributor(insts)
    found = _sass_hot_loop(f)
    loop_set = set(range(found[0].first, found[0].last + 1)) if found else set()
    hot = None
    carried: set[int] = set()
    if found:
        lp, label, reason = found
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
        )
    points = []
    at_peak = [j for j, c in enumerate(gpr) if c == peak] if peak else []
    for j in [j for n, j in enumerate(at_peak) if n == 0 or at_peak[n - 1] != j - 1][:3]:
        _, by_src = pressure.group_sass_live(att, insts[j].live, j)
        src_sorted = sorted(by_src.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        points.append(
            CriticalPoint(
                instruction=_sass_ref(f, j),
                live_vgprs=peak,
                live_agprs=0,
                live_sgprs=insts[j].counts.get("UGPR", 0),
                in_hot_loop=j in loop_set,
                instructions_at_peak=len(at_peak),
                by_definition=_sass_groups(f, att, insts[j].live, j),
                by_source=[
                    SourceGroup(source=s, count=len(r), registers=pressure.fmt_regs("R", r))
                    for s, r in src_sorted[:top_k]
                ],
                by_source_total=len(src_sorted),
                by_source_truncated=len(src_sorted) > top_k,
            )
        )
    spills = _sass_spills(f, att, loop_set, hot, top_k)
    suggestions = _sass_suggestions(f, att, hot, loop_set, carried, points, spills)
    if points:
        notes.append("live GPRs only: predicates (max_live_predicates) and uniform registers (UGPR) are counted apart")
    per = None
    if per_instruction:
        per = [
            InstructionPressure(
                index=i.index,
                line=i.addr,
                text=i.text.split("*/", 1)[-1].strip(),
                live_vgprs=i.counts.get("GPR", 0),
                live_agprs=0,
                live_sgprs=i.counts.get("UGPR", 0),
                source=i.source,
            )
            for i in insts
        ]
    summary = f"{f.name} ({a or 'sm_?'}): {regs} registers/thread, {local} B local (spill) memory" + (
        f", {warps} warps/SM." if warps is not None else "."
    )
    if points:
        p = points[0]
        where = f" in the hot loop {hot.header_label}" if p.in_hot_loop and hot else ""
        top = ", ".join(f"{g.count} {g.kind}" for g in p.by_definition[:3])
        summary += f" Peak {peak} live GPRs at #{p.instruction.index} `{p.instruction.text}`{where} ({top})."
    if spills:
        summary += f" Spills: {spills.root_cause}."
    if suggestions:
        summary += f" Top fix: {suggestions[0].title} (~{suggestions[0].estimated_vgpr_savings} registers)."
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


def _sass_spills(f, att, loop_set, hot, top_k) -> SpillAnalysis | None:
    stores = [i for i in f.insts if i.root == "STL"]
    reloads = [i for i in f.insts if i.root == "LDL"]
    if not stores and not reloads:
        return None
    values = []
    by_kind: Counter[str] = Counter()
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
    hs = sum(1 for s in stores if s.index in loop_set)
    hr = sum(1 for r in reloads if r.index in loop_set)
    kinds = ", ".join(f"{n} {k}" for k, n in by_kind.most_common())
    cause = f"{len(stores)} STL spill stores ({kinds or 'no GPR data'}), {len(reloads)} LDL reloads"
    if hot is not None:
        cause += f"; {hs} stores and {hr} reloads sit inside the hot loop"
        if hr:
            cause += " — every iteration pays local-memory latency"
    values.sort(key=lambda v: (not v.in_hot_loop, v.store.index))
    return SpillAnalysis(
        spill_stores=len(stores),
        spill_reloads=len(reloads),
        hot_loop_spill_stores=hs,
        hot_loop_spill_reloads=hr,
        agpr_spill_slots=0,
        by_kind=dict(by_kind),
        root_cause=cause,
        values=values[:top_k],
        values_total=len(values),
        values_truncated=len(values) > top_k,
    )


def _sass_slot(inst) -> str:
    m = re.search(r"\[R1(?:\+(0x[0-9a-f]+|\d+))?\]", inst.operands)
    return f"local+{int(m.group(1), 0) if m and m.group(1) else 0}" if m else "local"


def _sass_suggestions(f, att, hot, loop_set, carried, points, spills) -> list[Suggestion]:
    out: list[Suggestion] = []
    if hot is None:
        return out
    insts = f.insts
    fmt = pressure.fmt_regs
    if spills and (spills.hot_loop_spill_reloads or spills.hot_loop_spill_stores):
        reloaded = sorted({r for i in insts if i.index in loop_set and i.root == "LDL" for r in i.gpr_defs})
        first = next(i for i in insts if i.index in loop_set and i.root in ("LDL", "STL"))
        out.append(
            Suggestion(
                id="local_spills_in_hot_loop",
                title="take the local-memory spills out of the hot loop",
                estimated_vgpr_savings=len(reloaded),
                evidence=f"{spills.hot_loop_spill_reloads} LDL reloads and {spills.hot_loop_spill_stores} STL stores "
                f"inside {hot.header_label} ({len(reloaded)} registers reloaded: {fmt('R', reloaded)}), e.g. "
                f"#{first.index} `{first.text.split('*/', 1)[-1].strip()}`",
                action="cut what is live across the loop (see the peak groups) by about that many registers, or give "
                "ptxas more: fewer warps per block / a higher maxnreg (Triton), __launch_bounds__ or -maxrregcount "
                "(CUDA); then check occupancy_warps_per_sm",
            )
        )
    header_first = hot.first_index
    other = sorted(r for r in carried if att.kind(r, header_first).kind in ("address", "alu_other", "spill_reload"))
    if len(other) >= 8:
        addr = sum(1 for r in other if att.kind(r, header_first).kind == "address")
        out.append(
            Suggestion(
                id="drop_loop_carried_state",
                title="drop non-accumulator loop-carried state",
                estimated_vgpr_savings=max(0, len(other) - 2),
                evidence=f"{len(other)} GPRs that are not MMA accumulators travel around the back edge of "
                f"{hot.header_label} ({addr} of them address arithmetic): {fmt('R', other)}",
                action="keep only the accumulators loop-carried: advance one base pointer per operand by the K stride "
                "(or recompute offsets from the loop counter, which ptxas keeps in uniform registers)",
            )
        )
    if points and points[0].in_hot_loop:
        j = points[0].instruction.index
        staged = []
        for r in sorted(insts[j].live):
            info = att.kind(r, j + 1 if r in insts[j].gpr_defs else j)
            if info.kind != "global_load":
                continue
            users = att.consumers(r, info.def_index)
            if users and all(u.root == "STS" for u in users):
                staged.append(r)
        if len(staged) >= 8:
            out.append(
                Suggestion(
                    id="async_copy_to_shared",
                    title="copy global tiles to shared memory asynchronously",
                    estimated_vgpr_savings=len(staged),
                    evidence=f"{len(staged)} GPRs at the peak hold LDG data whose only use is an STS to shared memory "
                    f"({fmt('R', staged)}): the tile passes through registers on its way to shared memory",
                    action="let the copy bypass registers: cp.async (LDGSTS) or TMA. In Triton, loads become cp.async "
                    "when they are pipelined (num_stages >= 2) and at least 4 bytes wide per thread — give the "
                    "compiler contiguity and divisibility (power-of-two strides, tl.multiple_of, 16-byte aligned "
                    "pointers)",
                )
            )
    out.sort(key=lambda s: -s.estimated_vgpr_savings)
    return out


def analyze_cubin(
    path: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    threads_per_block: int = 128,
    top_k: int = 8,
) -> VgprReports:
    """NVIDIA: registers, spills (local memory), occupancy, exact live GPRs per instruction (nvdisasm life ranges),
    the hot loop, the peak point(s) grouped by what defined the live registers and by source line, and suggestions."""
    from tools.isa import sass

    funcs = sass.read_cubin(path)
    if kernel:
        hits = [f for f in funcs if f.name == kernel] or [f for f in funcs if kernel in f.name]
        if not hits:
            raise InputError(f"no kernel named '{kernel}'", hint=f"kernels here: {', '.join(f.name for f in funcs)}")
        funcs = hits[:1]
    reports = [_sass_report(f, path, arch, threads_per_block, per_instruction, top_k) for f in funcs]
    return VgprReports(summary=f"{len(reports)} function(s) in {path}", file=str(path), reports=reports)


def analyze_path(
    path: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
) -> VgprReports:
    """Any input the CLI accepts: a kernel source file (compiled with dump-ir, like prefetch-data-load), an ISA
    file, a cubin, or a dump directory (every ISA file in it)."""
    from tools.isa import sass

    if Path(path).is_file() and Path(path).suffix in SOURCE_SUFFIXES:
        return analyze_source(path, kernel, arch, per_instruction=per_instruction, top_k=top_k)

    files = find_isa_files(path)
    out = VgprReports(summary="", file=str(path), reports=[])
    for f in files:
        head = f.read_bytes()[:64]
        if sass.is_cubin(head + b"\0" * 20):
            part = analyze_cubin(f, kernel, arch, per_instruction=per_instruction, top_k=top_k)
        elif kernel:
            try:
                rep = analyze_isa(f, kernel, arch, per_instruction=per_instruction, top_k=top_k)
            except InputError:
                if len(files) > 1:
                    continue
                raise
            part = VgprReports(summary="", file=str(f), reports=[rep])
        else:
            part = analyze_isa_all(f, arch, per_instruction=per_instruction, top_k=top_k)
        out.reports.extend(part.reports)
        out.errors.extend(part.errors)
    if kernel and not out.reports:
        raise InputError(f"no kernel named '{kernel}' in {path}", hint="run without --kernel to list the kernels")
    out.summary = (
        " | ".join(r.summary for r in out.reports)
        if len(out.reports) <= 3
        else (f"{len(out.reports)} kernels in {path}")
    )
    return out


def analyze_source(
    path: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
) -> VgprReports:
    """Compile a kernel file with dump-ir (cached by content; default gfx942, sm_90 for .cu) and analyse every
    kernel it produced; the TTGIR/LLVM IR stages of the dump feed the Triton findings."""
    from tools.dump_ir import dump_ir

    p = Path(path)
    arch = archmod.normalize_arch(arch) if arch else ("sm_90" if p.suffix == ".cu" else "gfx942")
    result = dump_ir(p, arch)
    out = VgprReports(summary="", file=str(p), reports=[])
    for k in result.kernels:
        if kernel and kernel != k.name and kernel not in k.name:
            continue
        if not archmod.is_amd(arch):
            if k.binary:
                part = analyze_cubin(k.binary, None, arch, per_instruction=per_instruction, top_k=top_k)
                out.reports.extend(part.reports)
            continue
        if not k.final_isa:
            out.errors.append(KernelError(kernel=k.name, error="dump-ir kept no final ISA", hint="run dump-ir"))
            continue
        part = analyze_isa_all(k.final_isa, arch, per_instruction=per_instruction, top_k=top_k)
        out.reports.extend(r for r in part.reports if r.kernel == k.name or len(part.reports) == 1)
        out.errors.extend(part.errors)
    if kernel and not out.reports:
        names = ", ".join(k.name for k in result.kernels)
        raise InputError(f"no kernel named '{kernel}' in {p}", hint=f"kernels compiled from it: {names}")
    out.summary = " | ".join(r.summary for r in out.reports) or f"no kernel compiled from {p}"
    return out


def analyze_spec(
    spec: str | Path,
    kernel: str | None = None,
    arch: str | None = None,
    *,
    per_instruction: bool = False,
    top_k: int = 8,
) -> VgprReports:
    """:func:`analyze_path` for a path or a git reference (``HEAD:kernel.py``, read with ``git show``)."""
    with resolve_file(spec) as (path, git_file):
        reports = analyze_path(path, kernel, arch, per_instruction=per_instruction, top_k=top_k)
    if git_file is not None:
        reports.file = git_file.label
    return reports


def attach_baseline(
    current: VgprReports, baseline: VgprReports, peak_threshold: int = PEAK_REGRESSION_THRESHOLD
) -> VgprDiff:
    """Judge ``current`` against ``baseline``: each report gets its KernelDiff (occupancy, spills, peak…)."""
    d = diff_reports(baseline, current, peak_threshold)
    by_after = {k.after: k for k in d.kernels}
    for r in current.reports:
        kd = by_after.get(r.kernel)
        if kd is not None:
            r.baseline = kd
    return d


# --- diff -----------------------------------------------------------------------------------------------------


def _value(rep: VgprReport, name: str):
    m = rep.metric(name)
    return m.value if m else None


def diff_kernel(before: VgprReport, after: VgprReport, peak_threshold: int = PEAK_REGRESSION_THRESHOLD) -> KernelDiff:
    changes = []
    rules = {  # metric -> (worse when it goes up?, tolerance)
        "vgpr_spill_count": (True, 0),
        "sgpr_spill_count": (True, 0),
        "scratch_bytes": (True, 0),
        "local_bytes": (True, 0),
        "spill_instructions": (True, 0),
        "waves_per_simd": (False, 0),
        "occupancy_warps_per_sm": (False, 0),
        "max_live_vgprs": (True, peak_threshold),
        "max_live_gprs": (True, peak_threshold),
        "vgpr_count": (True, None),
        "agpr_count": (True, None),
        "sgpr_count": (True, None),
        "registers_per_thread": (True, None),
        "lds_bytes": (True, None),
        "max_live_agprs": (True, None),
    }
    names = [m.name for m in after.metrics]
    for name in names:
        if name not in rules:
            continue
        b, a = _value(before, name), _value(after, name)
        if b is None and a is None:
            continue
        delta = (a - b) if isinstance(a, int | float) and isinstance(b, int | float) else None
        up_is_worse, tol = rules[name]
        regression = False
        why = ""
        if delta is not None and tol is not None:
            worse = delta > tol if up_is_worse else delta < -tol
            if worse:
                regression = True
                why = f"{name} {'rose' if delta > 0 else 'fell'} by {abs(delta)}" + (
                    f" (threshold {tol})" if tol else ""
                )
        changes.append(MetricChange(name=name, before=b, after=a, delta=delta, regression=regression, why=why))
    return KernelDiff(
        before=before.kernel, after=after.kernel, changes=changes, regression=any(c.regression for c in changes)
    )


def diff_reports(
    before: VgprReports | VgprReport, after: VgprReports | VgprReport, peak_threshold: int = PEAK_REGRESSION_THRESHOLD
) -> VgprDiff:
    """Compare two analyses kernel by kernel (by name; a single kernel on each side matches regardless of name).

    A regression is more spills or scratch, lower occupancy, or a live-VGPR peak higher by more than
    ``peak_threshold``.
    """
    bl = before.reports if isinstance(before, VgprReports) else [before]
    al = after.reports if isinstance(after, VgprReports) else [after]
    pairs = []
    only_b, only_a = [], []
    if len(bl) == 1 and len(al) == 1:
        pairs = [(bl[0], al[0])]
    else:
        amap = {r.kernel: r for r in al}
        for r in bl:
            if r.kernel in amap:
                pairs.append((r, amap.pop(r.kernel)))
            else:
                only_b.append(r.kernel)
        only_a = list(amap)
    kernels = [diff_kernel(b, a, peak_threshold) for b, a in pairs]
    regression = any(k.regression for k in kernels)
    lines = []
    for k in kernels:
        moved = [c for c in k.changes if c.delta]
        desc = ", ".join(f"{c.name} {c.before}→{c.after}" for c in moved) or "no change"
        lines.append(f"{k.after}: {'REGRESSION' if k.regression else 'ok'} ({desc})")
    if only_b or only_a:
        lines.append(f"unmatched: before {only_b}, after {only_a}")
    return VgprDiff(
        summary="; ".join(lines) or "nothing to compare",
        kernels=kernels,
        only_before=only_b,
        only_after=only_a,
        regression=regression,
    )


# --- CLI ------------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input",
        nargs="?",
        help="kernel file (compiled with dump-ir), ISA file (.s/.amdgcn), cubin, or dump directory; a git "
        "reference such as HEAD:kernel.py reads the committed version",
    )
    parser.add_argument(
        "--baseline",
        metavar="BASE",
        help="judge the input against BASE (same kinds of input, e.g. HEAD:kernel.py): occupancy, spills and peak "
        "changes in the report; exit 1 on a regression",
    )
    parser.add_argument("--kernel", help="kernel name (exact or unique substring); default: every kernel")
    parser.add_argument("--arch", help="override the target (gfx942, gfx950, gfx1100, sm_90 …)")
    parser.add_argument("--source", help="kernel source file, to print the source lines named by .loc")
    parser.add_argument("--json", action="store_true", help="print the pydantic model as JSON")
    parser.add_argument("--per-instruction", action="store_true", help="list every instruction with live counts")
    parser.add_argument("--top", type=int, default=8, help="entries per list in the report (default 8)")
    parser.add_argument(
        "--diff",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="compare two inputs (paths or git references: --diff HEAD:kernel.py kernel.py); exit 1 on a regression",
    )
    parser.add_argument(
        "--peak-threshold",
        type=int,
        default=PEAK_REGRESSION_THRESHOLD,
        help="live-VGPR rise that counts as a regression in --diff",
    )


def _source_line(source: Path | None, ref: str | None) -> str:
    if not source or not ref:
        return ""
    m = re.search(r"[\w./-]+:(\d+)", ref)  # the user's line comes first in an attributed source
    if not m:
        return ""
    try:
        line_no = int(m.group(1))
        lines = source.read_text(errors="replace").splitlines()
        return f"    {line_no}: {lines[line_no - 1].strip()}" if 0 < line_no <= len(lines) else ""
    except (ValueError, IndexError, OSError):
        return ""


def render(reports: VgprReports, source: Path | None = None) -> str:
    out = []
    for r in reports.reports:
        out.append(r.summary)
        out.append(
            "  metrics: "
            + ", ".join(
                f"{m.name}={'unknown' if m.value is None else m.value}{'' if m.status == 'ok' else ' [' + m.status + ']'}"
                for m in r.metrics
            )
        )
        for m in r.metrics:  # every warn/bad says why, with its threshold
            if m.status != "ok" or (m.name == "waves_per_simd" and m.note):
                out.append(f"    {m.name}={m.value} [{m.status}: {m.note.removeprefix(m.status + ': ')}]")
        if r.hot_loop:
            h = r.hot_loop
            out.append(f"  hot loop {h.header_label} #{h.first_index}-#{h.last_index}: {h.reason}")
            out.append(
                "    "
                + ", ".join(f"{k}={v}" for k, v in h.distribution.items() if v)
                + f", scratch share {h.scratch_share_of_memory_ops:.0%}, loop-carried {h.loop_carried_vgprs}"
            )
        for p in r.critical_points:
            out.append(
                f"  peak {p.live_vgprs} VGPRs at #{p.instruction.index} (line {p.instruction.line}) "
                f"`{p.instruction.text}` {p.instruction.source or ''}"
            )
            for g in p.by_definition:
                out.append(f"    {g.count:4d} {g.kind:18s} {g.registers}")
            for s in p.by_source[:5]:
                out.append(f"    {s.count:4d} from {s.source}" + _source_line(source, s.source))
        if r.spills:
            out.append(f"  spills: {r.spills.root_cause}")
            for kind, n in sorted(r.spills.by_kind.items(), key=lambda kv: -kv[1]):
                if kind in r.spills.by_kind_detail:
                    out.append(f"    {n:4d} {kind}: {r.spills.by_kind_detail[kind]}")
        for s in r.suggestions:
            out.append(f"  suggest [{s.id}] {s.title}: ~{s.estimated_vgpr_savings} VGPRs — {s.evidence}")
            out.append(f"      do: {s.action}")
        if r.baseline is not None:
            b = r.baseline
            moved = [c for c in b.changes if c.delta]
            desc = ", ".join(f"{c.name} {c.before}→{c.after}" for c in moved) or "no change"
            out.append(f"  against the baseline: {'REGRESSION' if b.regression else 'ok'} ({desc})")
            for c in b.changes:
                if c.regression:
                    out.append(f"    regression: {c.why}")
        for t in r.triton:
            out.append(f"  triton: {t}")
        for n in r.notes:
            out.append(f"  note: {n}")
        if r.per_instruction:
            out.append("  index  line   vgpr agpr sgpr  instruction")
            for i in r.per_instruction:
                out.append(
                    f"  {i.index:5d} {i.line:5d}  {i.live_vgprs:4d} {i.live_agprs:4d} {i.live_sgprs:4d}  {i.text}"
                )
    for e in reports.errors:
        out.append(f"error in {e.kernel}: {e.error}" + (f" (hint: {e.hint})" if e.hint else ""))
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    if args.diff:
        before = analyze_spec(args.diff[0], args.kernel, args.arch)
        after = analyze_spec(args.diff[1], args.kernel, args.arch)
        d = diff_reports(before, after, args.peak_threshold)
        print(d.model_dump_json(indent=1) if args.json else d.summary)
        return 1 if d.regression else 0
    if not args.input:
        raise InputError(
            "no input given",
            hint="kernelpilot vgpr-pressure <kernel file | ISA file | cubin | dump dir> [--baseline HEAD:<file>]",
        )
    reports = analyze_spec(args.input, args.kernel, args.arch, per_instruction=args.per_instruction, top_k=args.top)
    regression = False
    if getattr(args, "baseline", None):
        base = analyze_spec(args.baseline, args.kernel, args.arch, top_k=args.top)
        regression = attach_baseline(reports, base, args.peak_threshold).regression
    if args.json:
        print(json.dumps(reports.model_dump(exclude_none=True), indent=1))
    else:
        print(render(reports, Path(args.source) if args.source else _source_of(args.input)))
    return 1 if regression else 0


def _source_of(spec: str) -> Path | None:
    """The kernel file itself, when the input is one on disk (its lines are printed beside the peak groups)."""
    p = Path(spec)
    return p if p.is_file() and p.suffix in SOURCE_SUFFIXES else None


if __name__ == "__main__":  # pragma: no cover
    from tools.cli import main

    sys.exit(main(["vgpr-pressure", *sys.argv[1:]]))
