"""prefetch-data-load on AMDGCN: which s_waitcnt retires each loop load, where its data is first used, and whether
that is this iteration (latency exposed) or the next (prefetched).

Built on the ISA model (``tools.isa.amdgcn`` / ``tools.isa.cfg``). vmcnt counts outstanding vector-memory operations
that return in issue order (on gfx9 stores count too; on gfx10+ stores have their own counter), so
``s_waitcnt vmcnt(N)`` retires a load once fewer than N+1 operations were issued after it. The loop body is walked
twice (this iteration, then the next) so waits and uses across the back edge are found.
"""

from __future__ import annotations

import re

from tools.isa.amdgcn import Instruction, Kernel
from tools.isa.cfg import Cfg, Loop, build_cfg, find_hot_loop
from tools.models.prefetch import BarrierRegion, LoadSite, LoopReport

# Issue cycles per instruction class, wave64 on CDNA (estimates: VALU issues over 4 cycles, an MFMA occupies the
# matrix core for its passes x 4 cycles; CDNA3 ISA §7 "MFMA passes" table). Good for comparing two versions of a loop.
MFMA_CYCLES = (("_4x4x", 8), ("_16x16x", 32), ("_32x32x", 64))
CATEGORY_CYCLES = {
    "valu": 4,
    "cndmask": 4,
    "accvgpr_move": 4,
    "salu": 1,
    "smem": 1,
    "waitcnt": 1,
    "barrier": 1,
    "branch": 1,
    "lds_read": 4,
    "lds_write": 4,
    "lds_other": 4,
}
MEMORY_ISSUE_CYCLES = 4
# A load that misses to HBM takes several hundred cycles on CDNA3 (~500-800); below this the latency is exposed.
LOAD_LATENCY_CYCLES = 500

LOAD_CATEGORIES = ("vmem_load", "vmem_load_lds")
_VMCNT_RE = re.compile(r"vmcnt\((\d+)\)")
_COPY_RE = re.compile(r"^v_(mov_b32|mov_b64|pk_mov_b32|accvgpr_write|accvgpr_read|accvgpr_mov)")
MAX_LOADS = 32


def issue_cycles(inst: Instruction) -> int:
    if inst.category == "mfma":
        for key, cyc in MFMA_CYCLES:
            if key in inst.mnemonic:
                return cyc
        return 32
    if inst.category == "nop":
        m = re.search(r"\d+", inst.modifiers or "")
        return int(m.group()) + 1 if m else 1
    if inst.category.startswith(("vmem", "scratch")):
        return MEMORY_ISSUE_CYCLES
    return CATEGORY_CYCLES.get(inst.category, 4)


def counts_in_vmcnt(inst: Instruction, arch: str | None) -> bool:
    """Does this instruction occupy a vmcnt (loadcnt on gfx12) slot?"""
    c = inst.category
    gfx9 = arch is None or arch.startswith("gfx9")
    if c in LOAD_CATEGORIES or c == "scratch_load":
        return True
    if c in ("vmem_store", "scratch_store"):
        return gfx9
    if c == "vmem_atomic":
        return gfx9 or "_rtn" in inst.mnemonic
    return False


def vmcnt_of(inst: Instruction) -> int | None:
    """The vmcnt/loadcnt a wait asks for, or None when it does not wait on vector memory."""
    if inst.mnemonic == "s_waitcnt":
        m = _VMCNT_RE.search(inst.modifiers + " " + inst.text)
        return int(m.group(1)) if m else None
    if inst.mnemonic in ("s_waitcnt_vmcnt", "s_wait_loadcnt"):
        m = re.search(r"(0x[0-9a-fA-F]+|\d+)\s*$", inst.text)
        return int(m.group(1), 0) if m else None
    return None


def source_of(inst: Instruction) -> str | None:
    """file:line[:col]; None for line 0, which LLVM uses for code it made up (merged or rematerialized)."""
    return str(inst.loc) if inst.loc and inst.loc.line else None


def _load_regs(inst: Instruction) -> int:
    if inst.category != "vmem_load" or not inst.operands:
        return 0
    op = inst.operands[0]
    return op.count if op.kind in ("v", "a") else 0


def analyze_loop(kernel: Kernel, cfg: Cfg, loop: Loop, arch: str | None, is_hot: bool) -> LoopReport:
    insts = kernel.instructions
    body = loop.instruction_indices(cfg)
    n = len(body)
    seq = [insts[i] for i in body] * 2  # this iteration, then the next
    vm_after = [0] * (2 * n + 1)  # vm ops issued at positions >= p
    for p in range(2 * n - 1, -1, -1):
        vm_after[p] = vm_after[p + 1] + (1 if counts_in_vmcnt(seq[p], arch) else 0)

    loads: list[LoadSite] = []
    for p in range(n):
        inst = seq[p]
        if inst.category not in LOAD_CATEGORIES:
            continue
        wait_p = None
        for q in range(p + 1, p + n + 1):
            want = vmcnt_of(seq[q]) if q < 2 * n else None
            if want is not None and want <= vm_after[p + 1] - vm_after[q]:  # in-order return: later ops may stay
                wait_p = q
                break
        use_p = None
        regs = inst.defs
        if regs:
            for q in range(p + 1, p + n + 1):
                if q >= 2 * n:
                    break
                other = seq[q]
                if other.uses & regs:
                    use_p = q
                    break
                regs &= ~other.defs
                if not regs:
                    break
        else:  # buffer_load … lds: the data is in LDS once the wait retires it
            use_p = wait_p
        if use_p is not None:
            consumed = "same-iteration" if use_p < n else "next-iteration"
        else:
            consumed = "after-loop" if inst.defs or wait_p is None else "unused"
        cycles = sum(issue_cycles(seq[q]) for q in range(p + 1, wait_p)) if wait_p is not None else None
        src = source_of(inst)
        if src is None and use_p is not None and source_of(seq[use_p]):
            src = f"{source_of(seq[use_p])} (line of its first use; the load has no line)"
        loads.append(
            LoadSite(
                index=inst.index,
                text=inst.text,
                source=src,
                bytes_per_lane=_load_regs(inst) * 4,
                wait_index=seq[wait_p].index if wait_p is not None else None,
                wait_text=seq[wait_p].text if wait_p is not None else None,
                first_use_index=seq[use_p].index if use_p is not None else None,
                first_use_text=seq[use_p].text if use_p is not None else None,
                consumed=consumed,
                load_to_wait_instructions=(wait_p - p - 1) if wait_p is not None else None,
                load_to_wait_cycles=cycles,
                load_to_use_distance=(use_p - p - 1) if use_p is not None else None,
            )
        )

    body_insts = seq[:n]
    mfma = sum(1 for i in body_insts if i.category == "mfma")
    valu = sum(1 for i in body_insts if i.category in ("valu", "cndmask", "accvgpr_move"))
    compute = sum(issue_cycles(i) for i in body_insts if i.category in ("mfma", "valu", "cndmask", "accvgpr_move"))
    load_defs = 0
    for i in body_insts:
        if i.category == "vmem_load":
            load_defs |= i.defs
    copies = sum(1 for i in body_insts if _COPY_RE.match(i.mnemonic) and i.uses & load_defs)

    barriers = []
    for p, i in enumerate(body_insts):
        if i.category != "barrier":
            continue
        after = sum(1 for j in body_insts[p + 1 :] if j.category in LOAD_CATEGORIES)
        note = (
            f"{after} load(s) issue after this barrier in the same iteration; if their addresses do not depend on "
            "what the barrier protects, issue them before it so their latency overlaps the barrier wait"
            if after
            else "no load issues after this barrier; loads already overlap the barrier wait"
        )
        barriers.append(BarrierRegion(index=i.index, text=i.text, source=source_of(i), loads_after=after, note=note))

    verdict, reason = classify_loop(loads, mfma, valu, compute)
    header = cfg.blocks[loop.header]
    return LoopReport(
        header=header.label or f"block {loop.header}",
        first_instruction=min(body),
        last_instruction=max(body),
        instruction_count=n,
        depth=loop.depth,
        is_hot=is_hot,
        verdict=verdict,
        reason=reason,
        loads=loads[:MAX_LOADS],
        loads_total=len(loads),
        bytes_per_lane_per_iteration=sum(ld.bytes_per_lane for ld in loads),
        compute_cycles=compute,
        mfma_count=mfma,
        valu_count=valu,
        barriers=barriers[:8],
        head_copies=copies,
    )


def classify_loop(loads: list[LoadSite], mfma: int, compute_ops: int, compute_cycles: int) -> tuple[str, str]:
    """The loop's verdict and the one-line reason for it (shared by the AMD and NVIDIA paths)."""
    if not loads:
        return "no-loads", "the loop issues no vector-memory load"
    carried = [ld for ld in loads if ld.consumed == "next-iteration"]
    exposed = [
        ld
        for ld in loads
        if ld.consumed == "same-iteration"
        and (ld.load_to_wait_cycles is None or ld.load_to_wait_cycles < LOAD_LATENCY_CYCLES)
    ]
    if not exposed:
        if carried:
            return "prefetched", (
                f"{len(carried)} of {len(loads)} load(s) are consumed in the next iteration (loop-carried); "
                "their latency overlaps a whole iteration"
            )
        return "prefetched", "every load has at least ~500 estimated cycles of work before its wait"
    worst = min(exposed, key=lambda ld: ld.load_to_wait_cycles or 0)
    where = f" ({worst.source})" if worst.source else ""
    detail = (
        f"{len(exposed)} of {len(loads)} load(s) are waited for in the iteration that issues them; the closest "
        f"wait is {worst.load_to_wait_instructions} instruction(s) / ~{worst.load_to_wait_cycles} cycles after "
        f"`{worst.text}`{where}, far below a ~{LOAD_LATENCY_CYCLES}-cycle memory latency"
    )
    if carried:
        detail += f"; {len(carried)} load(s) are already carried to the next iteration"
    if mfma == 0 and compute_ops <= 2 * len(loads):
        return "memory-bound", (
            detail + f"; with {compute_ops} compute instruction(s) for {len(loads)} load(s) there is little work to "
            "hide latency behind: prefetching helps only a little, more loads in flight or more waves do more"
        )
    return "exposed-latency", detail


def analyze_kernel(kernel: Kernel, arch: str | None) -> tuple[list[LoopReport], int]:
    """Loop reports (hot loop first, then by instruction order) and the loads issued before the hot loop."""
    cfg = build_cfg(kernel)
    hot = find_hot_loop(cfg)
    reports = []
    for lp in cfg.loops:
        reports.append(analyze_loop(kernel, cfg, lp, arch, hot is not None and lp is hot.loop))
    reports.sort(key=lambda r: (not r.is_hot, r.first_instruction))
    prologue = 0
    if hot is not None:
        prologue = sum(1 for i in kernel.instructions[: hot.first_instruction] if i.category in LOAD_CATEGORIES)
    return reports, prologue
