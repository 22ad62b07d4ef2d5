"""vgpr-pressure's suggestions: one function per suggestion id, AMD and NVIDIA together.

Each function returns a :class:`Suggestion`, or None when its evidence is absent; :func:`amd` and :func:`sass` run
the ones that apply to a vendor's kernel and rank them by estimated saving. ``raise_num_warps`` (a Triton launch
option read from the stages beside the ISA) is :func:`tools.vgpr_pressure.triton.warp_suggestion`.
"""

from __future__ import annotations

import re

from tools.isa import pressure
from tools.isa.liveness import vgprs
from tools.models.vgpr import Suggestion

fmt = pressure.fmt_regs
MIN_CARRIED_STATE = 8  # non-accumulator registers around the back edge before dropping them is worth a suggestion
MIN_TILE_LOAD_VGPRS = 16  # global-load VGPRs live at an in-loop peak: a whole tile in registers
MIN_STAGED_GPRS = 8  # LDG data only copied to shared memory, live at the peak
# Floating-point arithmetic a running sum/max/product is built from (and the moves between its copies): a loop-carried
# register whose back-edge value such a chain computes from its own header value is an accumulator, not state to drop.
_AMD_ACCUMULATE_RE = re.compile(r"^v_(pk_)?((add|sub|subrev|fma|fmac|mac|mad|max|min|mul)_f(16|32|64)|mov_b(32|64))")
_SASS_ACCUMULATE = ("FADD", "FFMA", "FMNMX", "FMUL", "HADD2", "HFMA2", "HMUL2", "HMNMX2", "DADD", "DFMA", "DMUL", "MOV")
MAX_CHAIN = 32  # instructions followed back from the back-edge value


# --- one function per suggestion id ---------------------------------------------------------------------------


def drop_first_fragment_prefetch(frag: list[int], header_label: str | None) -> Suggestion | None:
    """AMD: LDS fragments (ds_read results) loaded in one iteration and live into the next loop header."""
    if not frag:
        return None
    return Suggestion(
        id="drop_first_fragment_prefetch",
        title="drop the first-fragment prefetch across the back edge",
        estimated_vgpr_savings=len(frag),
        evidence=f"{len(frag)} LDS-fragment VGPRs ({fmt('v', frag)}) are loaded in one iteration and live into "
        f"the loop header {header_label or ''}",
        action="issue the first ds_read of each iteration at the top of the iteration (after the barrier) "
        "instead of prefetching it at the end of the previous one; the MFMA chain hides the LDS latency",
    )


def running_accumulators(regs, loop_set: set[int], att, accumulates, reads) -> set[int]:
    """The registers of ``regs`` (loop-carried) that are running accumulators: the value the loop leaves in one for
    the next iteration is computed, through ``accumulates`` instructions only (floating-point adds, FMAs, max/min,
    moves), from the value it held at the top of the iteration (``acc += x``, unrolled or not, in place or through
    copies). ``reads(inst)`` gives the registers an instruction reads."""
    found = set()
    for r in regs:
        in_loop = [d for d in att.defs.get(r, []) if d in loop_set]
        if not in_loop:
            continue
        stack, seen = [max(in_loop)], set()
        while stack and r not in found and len(seen) < MAX_CHAIN:
            d = stack.pop()
            if d in seen or not accumulates(att.insts[d]):
                continue
            seen.add(d)
            for src in reads(att.insts[d]):
                earlier = [x for x in att.defs.get(src, []) if x < d and x in loop_set]
                if earlier:
                    stack.append(max(earlier))
                elif src == r:  # this iteration's input: the header value of r itself
                    found.add(r)
    return found


def drop_loop_carried_state(
    vendor: str, other: list[int], addresses: int, header_label: str | None, accumulators: int = 0
):
    """Both vendors: at least :data:`MIN_CARRIED_STATE` registers that are not accumulators (addresses, other ALU
    results, reloaded spills, AGPR copies) travel around the back edge of the hot loop; ``accumulators`` counts the
    running (VALU/FFMA) accumulators already left out of ``other``."""
    if len(other) < MIN_CARRIED_STATE:
        return None
    if vendor == "amd":
        what, where = "VGPRs that are not MFMA accumulators", header_label or "the hot loop"
        regs = fmt("v", other)
        action = (
            "keep only the accumulators loop-carried: recompute per-iteration addresses from the loop counter "
            "(SGPR) and one base pointer, and consume data copied for the next iteration (v_mov of prefetched "
            "tiles) in the iteration that loads it or stage it through LDS"
        )
    else:
        what, where, regs = "GPRs that are not MMA accumulators", header_label, fmt("R", other)
        action = (
            "keep only the accumulators loop-carried: advance one base pointer per operand by the K stride "
            "(or recompute offsets from the loop counter, which ptxas keeps in uniform registers)"
        )
    return Suggestion(
        id="drop_loop_carried_state",
        title="drop non-accumulator loop-carried state",
        estimated_vgpr_savings=max(0, len(other) - 2),
        evidence=f"{len(other)} {what} travel around the back edge of {where} ({addresses} of them address "
        f"arithmetic): {regs}"
        + (f"; {accumulators} running accumulators (kept) are not counted" if accumulators else ""),
        action=action,
    )


def fold_block_accumulators(insts, att, loop_set: set[int]) -> Suggestion | None:
    """AMD: per-block accumulators, an MFMA result added into a separate running sum by VALU inside the loop."""
    partial_regs: set[int] = set()
    fold_evidence = None
    for j in sorted(att.folds & loop_set):
        i = insts[j]
        for reg in vgprs(i.uses & ~i.defs):
            d = att.reaching_def(reg, j)
            if d is not None and d in loop_set and insts[d].category == "mfma":
                partial_regs.update(vgprs(insts[d].defs))
                fold_evidence = fold_evidence or (i, insts[d])
    if not partial_regs:
        return None
    add, mf = fold_evidence
    return Suggestion(
        id="fold_block_accumulators",
        title="fold per-block accumulators into the MFMA accumulator",
        estimated_vgpr_savings=len(partial_regs),
        evidence=f"{len(partial_regs)} VGPRs hold per-block MFMA results that VALU then adds into another "
        f"accumulator, e.g. #{add.index} `{add.text}` reads #{mf.index} `{mf.text}`",
        action="pass the running accumulator as the MFMA's srcC (dst == srcC) so the hardware accumulates in "
        "place; apply any per-block scale to the A/B operands or once after the loop",
    )


def lazy_scale_products(kernel, lv, att, loop_idx) -> Suggestion | None:
    """AMD: many scale values (loaded scales and precomputed products of them) live at once in the loop."""
    lazy = _scale_values_at_once(kernel, lv, att, loop_idx)
    if lazy is None:
        return None
    j, raw, prod = lazy
    regs = sorted(raw + prod)
    return Suggestion(
        id="lazy_scale_products",
        title="compute scale products lazily",
        estimated_vgpr_savings=len(regs) - 2,
        evidence=f"{len(regs)} VGPRs of scale values are live at once at #{j} `{kernel.instructions[j].text}` "
        f"({len(raw)} loaded scales, {len(prod)} precomputed scale products): {fmt('v', regs)}",
        action="keep the raw scales (or load them just before use) and multiply right before the instruction "
        "that consumes the product, so only one product (pair) is live at a time",
    )


def per_k_step_b_loads(kernel, lv, att, points, loop_idx) -> Suggestion | None:
    """AMD: a whole tile of global/buffer-load data live at an in-loop peak of a loop that runs MFMAs (a GEMM's K
    loop: without matrix instructions there are no K steps to split the tile over, e.g. a row norm's loads)."""
    if not points or not any(kernel.instructions[i].category == "mfma" for i in loop_idx):
        return None
    at = points[0].instruction.index
    loads_live = [r for r in vgprs(lv.at(at, kernel)) if att.kind(r, at).kind == "global_load"]
    if not points[0].in_hot_loop or len(loads_live) < MIN_TILE_LOAD_VGPRS:
        return None
    return Suggestion(
        id="per_k_step_b_loads",
        title="load B-tile packs per K step",
        estimated_vgpr_savings=len(loads_live) // 2,
        evidence=f"{len(loads_live)} VGPRs of global/buffer-load data are live at the peak "
        f"({fmt('v', loads_live)}): the whole tile is in registers at once",
        action="split the tile load into per-K-step packs issued one step ahead of their MFMAs (or stage them "
        "through LDS with buffer_load ... lds); estimate assumes two K steps per tile",
    )


def local_spills_in_hot_loop(insts, loop_set: set[int], header_label: str | None, spills) -> Suggestion | None:
    """NVIDIA: STL/LDL (local-memory spills) inside the hot loop."""
    if not spills or not (spills.hot_loop_spill_reloads or spills.hot_loop_spill_stores):
        return None
    reloaded = sorted({r for i in insts if i.index in loop_set and i.root == "LDL" for r in i.gpr_defs})
    first = next(i for i in insts if i.index in loop_set and i.root in ("LDL", "STL"))
    return Suggestion(
        id="local_spills_in_hot_loop",
        title="take the local-memory spills out of the hot loop",
        estimated_vgpr_savings=len(reloaded),
        evidence=f"{spills.hot_loop_spill_reloads} LDL reloads and {spills.hot_loop_spill_stores} STL stores "
        f"inside {header_label} ({len(reloaded)} registers reloaded: {fmt('R', reloaded)}), e.g. "
        f"#{first.index} `{first.text.split('*/', 1)[-1].strip()}`",
        action="cut what is live across the loop (see the peak groups) by about that many registers, or give "
        "ptxas more: fewer warps per block / a higher maxnreg (Triton), __launch_bounds__ or -maxrregcount "
        "(CUDA); then check occupancy_warps_per_sm",
    )


def async_copy_to_shared(insts, att, points) -> Suggestion | None:
    """NVIDIA: LDG data live at an in-loop peak whose only use is an STS (a tile staged through registers)."""
    if not points or not points[0].in_hot_loop:
        return None
    j = points[0].instruction.index
    staged = []
    for r in sorted(insts[j].live):
        info = att.kind(r, j + 1 if r in insts[j].gpr_defs else j)
        if info.kind != "global_load":
            continue
        users = att.consumers(r, info.def_index)
        if users and all(u.root == "STS" for u in users):
            staged.append(r)
    if len(staged) < MIN_STAGED_GPRS:
        return None
    return Suggestion(
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


# --- per vendor -----------------------------------------------------------------------------------------------


def _ranked(found: list[Suggestion | None]) -> list[Suggestion]:
    out = [s for s in found if s is not None]
    out.sort(key=lambda s: -s.estimated_vgpr_savings)  # stable: ties keep the order above
    return out


def amd(kernel, cfg, lv, att, hot, points) -> list[Suggestion]:
    """The AMD suggestions for a kernel with a hot loop (none without one)."""
    if hot is None:
        return []
    loop_idx = hot.loop.instruction_indices(cfg)
    carried = pressure.loop_carried(cfg, lv, hot)
    header_first = cfg.blocks[hot.loop.header].start
    kinds: dict[str, list[int]] = {}
    for reg in vgprs(carried):
        kinds.setdefault(att.kind(reg, header_first).kind, []).append(reg)
    loop_set = set(loop_idx)
    accs = running_accumulators(
        kinds.get("valu_other", []),
        loop_set,
        att,
        lambda i: bool(_AMD_ACCUMULATE_RE.match(i.mnemonic)),
        lambda i: vgprs(i.uses),
    )
    other = [
        r
        for k, regs in kinds.items()
        if k in ("address", "valu_other", "spill_reload", "agpr_copy")
        for r in regs
        if r not in accs
    ]
    return _ranked(
        [
            drop_first_fragment_prefetch(kinds.get("lds_fragment", []), hot.header_label),
            drop_loop_carried_state("amd", other, len(kinds.get("address", [])), hot.header_label, len(accs)),
            fold_block_accumulators(kernel.instructions, att, set(loop_idx)),
            lazy_scale_products(kernel, lv, att, loop_idx),
            per_k_step_b_loads(kernel, lv, att, points, loop_idx),
        ]
    )


def sass(f, att, hot, loop_set, carried, points, spills) -> list[Suggestion]:
    """The NVIDIA suggestions for a function with a hot loop (none without one)."""
    if hot is None:
        return []
    header_first = hot.first_index
    accs = running_accumulators(
        [r for r in carried if att.kind(r, header_first).kind == "alu_other"],
        loop_set,
        att,
        lambda i: i.root in _SASS_ACCUMULATE,
        lambda i: i.gpr_uses if att.marks else i.uses,
    )
    other = sorted(
        r
        for r in carried
        if att.kind(r, header_first).kind in ("address", "alu_other", "spill_reload") and r not in accs
    )
    addresses = sum(1 for r in other if att.kind(r, header_first).kind == "address")
    return _ranked(
        [
            local_spills_in_hot_loop(f.insts, loop_set, hot.header_label, spills),
            drop_loop_carried_state("nvidia", other, addresses, hot.header_label, len(accs)),
            async_copy_to_shared(f.insts, att, points),
        ]
    )


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
