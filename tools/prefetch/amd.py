"""Long because the load records, latencies and copies all read one loop walk (``LoopGraph``); see the end.

prefetch-data-load on AMDGCN: one record per memory load in a loop (``LoadSite``), computed here once and read by
every view (loop summary, per-load lines, ``--verify`` checks, the eval ISA checks).

Built on the ISA model (``tools.isa.amdgcn`` / ``tools.isa.cfg``). For each vector (``buffer_/global_load``) and scalar
(``s_load``) load the control-flow graph is walked path by path from the load, across the back edge for up to two
more iterations (a three-stage pipeline retires a load two iterations on):

- the retiring wait: vmcnt (loadcnt on gfx12) counts outstanding vector-memory operations that return in issue order
  (on gfx9 stores count too), so ``s_waitcnt vmcnt(N)`` retires a load once at least N operations were issued after
  it; SMEM returns out of order, so only ``lgkmcnt(0)`` (``s_wait_kmcnt 0``) retires a scalar load;
- the first use of the data and its consumer (copies ``v_mov``/``s_mov`` followed to the first real reader);
- why the wait sits there (first use, a copy, a register-pair read, in-order behind a later load, a barrier).

Paths that disagree (a branch around a masked load that uses the data in this iteration on one side and the next on
the other) make the load ``undetermined``, with the reason; the loop is then never called ``prefetched``.

Also here, because they read the same loop walk: the memory latencies exposed per iteration (``estimate_latencies``)
and the copies in the loop by kind and cause (``diagnose_copies``). That is why the module is longer than ~600 lines.
"""

from __future__ import annotations

import heapq
import re
from collections import deque
from dataclasses import dataclass, field

from tools.isa.amdgcn import SGPR_MASK, VGPR_MASK, Instruction, Kernel, reg_mask
from tools.isa.cfg import Cfg, Loop, build_cfg, find_hot_loop
from tools.isa.costs import cost
from tools.isa.machines import Machine
from tools.isa.mnemonics import VMEM_LOAD_CLASSES
from tools.isa.source_attr import attribute_loc
from tools.isa.waitcnt import counts_in_vmcnt, is_scalar_load, lgkm_want, lgkmcnt_of, vmcnt_of
from tools.models.prefetch import BarrierRegion, CopySite, LoadSite, LoopReport
from tools.prefetch.descriptors import unchecked_lookahead
from tools.prefetch.loops import (
    WALK_ITERATIONS,
    classify_loop,
    load_and_copy_counts,
    load_latency_cycles,
    machine_for,
    short_iteration_note,
)

_COPY_RE = re.compile(
    r"^(v_mov_b32|v_mov_b64|v_pk_mov_b32|s_mov_b32|s_mov_b64|v_readfirstlane_b32|"
    r"v_accvgpr_write|v_accvgpr_read|v_accvgpr_mov)(_e32|_e64|_b32)?$"
)
MAX_PATH_STATES = 20000  # per load: beyond this the paths are too many to follow; the load is undetermined


def issue_cycles(inst: Instruction, m: Machine) -> int:
    """Cycles ``inst`` occupies its issue slot on ``m`` (tools.isa.costs, from the device file)."""
    return int(cost(inst, m).issue)


def is_loop_load(inst: Instruction) -> bool:
    """The loads a loop record is kept for: vector-memory loads and scalar loads."""
    return inst.category in VMEM_LOAD_CLASSES or is_scalar_load(inst)


def source_of(inst: Instruction) -> str | None:
    """The user's file:line[:col], walked through inlined library frames, with the outermost user call site where it
    differs (``k.py:22 via k.py:40``: a helper called twice is told apart); None for line 0, which LLVM uses for code
    it made up (merged or rematerialized)."""
    return str(attribute_loc(inst.loc)) if inst.loc and inst.loc.line else None


def is_copy(inst: Instruction) -> bool:
    """A plain register copy (no DPP/SDWA lane movement): ``v_mov_b32 v1, v2``, ``s_mov_b32``, ``v_accvgpr_*``."""
    return bool(_COPY_RE.match(inst.mnemonic)) and not inst.modifiers


def _load_regs(inst: Instruction) -> int:
    if inst.category != "vmem_load" or not inst.operands:
        return 0
    op = inst.operands[0]
    return op.count if op.kind in ("v", "a") else 0


# --- the loop as a graph ---------------------------------------------------------------------------------------


@dataclass
class LoopGraph:
    """One loop: its blocks, header, a linear order (reverse post-order from the header, back edges ignored) and that
    order's instruction sequence (one iteration); ``machine``: the device whose costs and latencies it is walked
    with (``arch``'s default; gfx942's where the ISA names none)."""

    kernel: Kernel
    cfg: Cfg
    loop: Loop
    arch: str | None
    machine: Machine
    blocks: set[int] = field(default_factory=set)
    order: list[int] = field(default_factory=list)
    seq: list[Instruction] = field(default_factory=list)
    pos: dict[int, int] = field(default_factory=dict)  # instruction index -> position in seq
    cycles: dict[int, int] = field(default_factory=dict)  # instruction index -> issue cycles on machine (read once)

    @classmethod
    def build(cls, kernel: Kernel, cfg: Cfg, loop: Loop, arch: str | None) -> LoopGraph:
        g = cls(kernel, cfg, loop, arch, machine_for(arch, "gfx942"), set(loop.blocks))
        seen = {loop.header}
        post: list[int] = []
        stack = [(loop.header, iter(cfg.blocks[loop.header].succs))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                post.append(node)
                stack.pop()
            elif nxt in g.blocks and nxt not in seen and nxt != loop.header:
                seen.add(nxt)
                stack.append((nxt, iter(cfg.blocks[nxt].succs)))
        g.order = post[::-1] + sorted(g.blocks - seen)  # blocks not reached from the header keep layout order
        g.seq = [kernel.instructions[i] for b in g.order for i in range(cfg.blocks[b].start, cfg.blocks[b].end)]
        g.pos = {inst.index: p for p, inst in enumerate(g.seq)}
        g.cycles = {inst.index: issue_cycles(inst, g.machine) for inst in g.seq}
        return g

    def successors(self, b: int, it: int):
        """(block, iteration) after block ``b``; None for an edge that leaves the loop."""
        for s in self.cfg.blocks[b].succs:
            if s not in self.blocks:
                yield None
            else:
                yield (s, it + 1 if s == self.loop.header else it)


@dataclass
class _Walk:
    wait: list[tuple[int, int, int, int]] = field(default_factory=list)  # (iteration, inst, instructions, cycles)
    wait_exit: bool = False  # some path leaves the loop (or the walk) without a wait
    uses: list[tuple[tuple[int, int] | None, tuple[int, int] | None]] = field(default_factory=list)
    use_ends: set[str] = field(default_factory=set)  # "exit", "killed", "limit" for paths without a consumer
    copies: set[int] = field(default_factory=set)
    limit: bool = False


def _walk_wait(g: LoopGraph, load: Instruction, scalar: bool, out: _Walk) -> None:
    """Every path from the load to the wait that retires it (cheapest path to each wait first)."""
    insts = g.kernel.instructions
    b0 = g.cfg.block_of[load.index]
    heap = [(0, 0, b0, load.index + 1, 0, 0)]
    seen: set[tuple[int, int, int, int]] = set()
    found: set[tuple[int, int]] = set()
    while heap:
        cyc, n, b, start, it, cnt = heapq.heappop(heap)
        key = (b, start, it, cnt)
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > MAX_PATH_STATES:
            out.limit = True
            return
        blk = g.cfg.blocks[b]
        hit = False
        for j in range(start, blk.end):
            inst = insts[j]
            if scalar:
                retires = lgkmcnt_of(inst) == 0
            else:
                want = vmcnt_of(inst)
                retires = want is not None and want <= cnt
            if retires:
                if (it, j) not in found:
                    found.add((it, j))
                    out.wait.append((it, j, n, cyc))
                hit = True
                break
            if not scalar and counts_in_vmcnt(inst, g.arch):
                cnt = min(cnt + 1, 64)
            cyc += g.cycles[inst.index]
            n += 1
        if hit:
            continue
        for nxt in g.successors(b, it):
            if nxt is None or nxt[1] >= WALK_ITERATIONS:
                out.wait_exit = True
                continue
            heapq.heappush(heap, (cyc, n, nxt[0], g.cfg.blocks[nxt[0]].start, nxt[1], cnt))


def _walk_uses(g: LoopGraph, load: Instruction, out: _Walk) -> None:
    """Every path from the load to the first reader of its data and the first reader that is not a copy."""
    insts = g.kernel.instructions
    b0 = g.cfg.block_of[load.index]
    stack = [(b0, load.index + 1, 0, load.defs, None)]
    seen: set = set()
    while stack:
        b, start, it, mask, first = stack.pop()
        key = (b, start, it, mask, first)
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > MAX_PATH_STATES:
            out.limit = True
            return
        blk = g.cfg.blocks[b]
        ended = False
        for j in range(start, blk.end):
            inst = insts[j]
            if inst.uses & mask:
                if first is None:
                    first = (it, j)
                if is_copy(inst):
                    out.copies.add(j)
                    mask |= inst.defs
                    continue
                out.uses.append((first, (it, j)))
                ended = True
                break
            if inst.defs & mask:
                mask &= ~inst.defs
                if not mask:
                    out.uses.append((first, None))
                    out.use_ends.add("killed")
                    ended = True
                    break
        if ended:
            continue
        for nxt in g.successors(b, it):
            if nxt is None:
                out.uses.append((first, None))
                out.use_ends.add("exit")
            elif nxt[1] >= WALK_ITERATIONS:
                out.uses.append((first, None))
                out.use_ends.add("limit")
            else:
                stack.append((nxt[0], g.cfg.blocks[nxt[0]].start, nxt[1], mask, first))


def staged_for_next_iteration(g: LoopGraph, use_index: int) -> bool:
    """A load whose consumer is an LDS write with no LDS read after it in the iteration: the data can only be read
    back in a later iteration (Triton's AMD stream pipeliner: global load at the top, ds_write after the MFMAs, ds_read
    next iteration), so the load is a prefetch even though its s_waitcnt is in the iteration that issues it."""
    p = g.pos.get(use_index)
    if p is None or g.seq[p].category != "lds_write":
        return False
    return not any(i.category == "lds_read" for i in g.seq[p + 1 :])


# --- why the wait sits there -------------------------------------------------------------------------------------


def _reads_partly(inst: Instruction, mask: int) -> bool:
    """Does ``inst`` read a register range that holds ``mask``'s registers and others besides?"""
    for k, op in enumerate(inst.operands):
        if k == 0 and inst.defs and reg_mask(op) & inst.defs:
            continue
        m = reg_mask(op)
        if m & mask and m & ~mask:
            return True
    return False


def _wait_reason(g: LoopGraph, site: LoadSite, load: Instruction, sites: dict[int, tuple[LoadSite, Instruction]]):
    """(reason, detail, waits_for_index) for the wait that retires ``load`` on its cheapest path."""
    if site.wait_index is None:
        return None, None, None
    p = g.pos.get(site.wait_index)
    if p is None:
        return "other", None, None
    scalar = site.memory == "scalar"
    same_wait = [(s, i) for s, i in sites.values() if s.wait_index == site.wait_index and s.memory == site.memory]
    own = load.defs
    copies_of_own = set(site.copy_indices)
    n = len(g.seq)
    for k in range(1, min(n, 64)):
        inst = g.seq[(p + k) % n]
        if k > 1 and inst.category == "waitcnt" and (lgkmcnt_of(inst) if scalar else vmcnt_of(inst)) is not None:
            break
        if own and inst.uses & own:
            where = f"`{inst.text}` [{inst.index}]"
            if inst.index in copies_of_own or is_copy(inst):
                detail = f"{where} copies the loaded data, so the wait sits before the copy"
                held = own
                for c in site.copy_indices:
                    held |= g.kernel.instructions[c].defs
                if site.consumer_index is not None:
                    consumer = g.kernel.instructions[site.consumer_index]
                    when = "the next iteration" if site.consumed == "next-iteration" else "this iteration"
                    detail += f"; its consumer `{consumer.text}` [{consumer.index}] is in {when}"
                    if _reads_partly(consumer, held):
                        detail += " and reads the copy as part of a register pair/range"
                return "loop-carried-copy", detail, None
            if _reads_partly(inst, own):
                return (
                    "register-pair",
                    f"{where} reads a register pair/range that only partly holds this load's data; the read waits "
                    "for the load even where it needs the other half",
                    None,
                )
            return "first-use", f"{where} reads the loaded data", None
        for _site, oinst in same_wait:
            if oinst is load or not (oinst.defs and inst.uses & oinst.defs):
                continue
            if scalar:
                return (
                    "scalar-out-of-order",
                    f"`{inst.text}` [{inst.index}] reads the scalar load [{oinst.index}]; SMEM returns out of order, "
                    "so its lgkmcnt(0) retires every scalar load in flight",
                    oinst.index,
                )
            later = (
                0 < (g.pos.get(oinst.index, 0) - g.pos.get(load.index, 0)) % n <= (site.load_to_wait_instructions or 0)
            )
            if later:
                counter = "loadcnt" if (g.arch or "").startswith("gfx12") else "vmcnt"
                return (
                    "in-order",
                    f"the wait is for the later load [{oinst.index}] read by `{inst.text}` [{inst.index}]; loads "
                    f"return in issue order for {counter}, so this earlier load is retired with it",
                    oinst.index,
                )
            return (
                "drained",
                f"the wait is for the earlier load [{oinst.index}] read by `{inst.text}` [{inst.index}]; its count "
                f"(`{site.wait_text}`) is lower than that load alone needs and retires this later load too (the "
                "compiler counts conservatively where paths into the wait leave different numbers of loads in flight)",
                oinst.index,
            )
        if inst.category == "barrier":
            return "barrier", f"the compiler drains memory before `{inst.text}` [{inst.index}]", None
        if inst.category == "branch" and g.cfg.block_of[inst.index] in g.loop.latches:
            return "loop-end", f"the wait sits before the back edge `{inst.text}` [{inst.index}]", None
    nxt = g.seq[(p + 1) % n]
    return "other", f"the wait precedes `{nxt.text}` [{nxt.index}]", None


# --- one load's record -------------------------------------------------------------------------------------------


def _trace_load(g: LoopGraph, load: Instruction, est: LatencyEstimate | None) -> LoadSite:
    insts = g.kernel.instructions
    scalar = is_scalar_load(load)
    walk = _Walk()
    _walk_wait(g, load, scalar, walk)
    if load.defs:
        _walk_uses(g, load, walk)
    wait = min(walk.wait, key=lambda w: w[3]) if walk.wait else None
    wait_iters = {w[0] for w in walk.wait}
    undetermined: list[str] = []
    if walk.limit:
        undetermined.append(f"more than {MAX_PATH_STATES} path states from this load")

    consumers = [c for _, c in walk.uses if c is not None]
    firsts = [f for f, _ in walk.uses if f is not None]
    first = min(firsts, key=lambda f: (f[0], g.pos.get(f[1], 0))) if firsts else None
    consumer = min(consumers, key=lambda c: (c[0], g.pos.get(c[1], 0))) if consumers else None
    if not load.defs:  # buffer_load … lds: the data is in LDS once the wait retires it
        consumer = first = (wait[0], wait[1]) if wait else None
        consumer_iters = {wait[0]} if wait else set()
    else:
        consumer_iters = {c[0] for c in consumers}
    staged = consumer is not None and staged_for_next_iteration(g, consumer[1])
    if staged:
        consumed = "next-iteration"
    elif consumer_iters == {0}:
        consumed = "same-iteration"
    elif consumer_iters and 0 not in consumer_iters:
        consumed = "next-iteration"
    elif consumer_iters:
        consumed = "undetermined"
        undetermined.append(
            "its data is consumed in the issuing iteration on some paths through the loop's branches and in the next "
            "on others"
        )
    elif load.defs:
        consumed = "after-loop" if "exit" in walk.use_ends or not walk.use_ends else "unused"
    else:
        consumed = "after-loop"
    if walk.limit:
        consumed = "undetermined"

    cycles = wait[3] if wait else None
    carried = staged or bool(wait_iters and 0 not in wait_iters)
    if carried or (cycles is not None and cycles >= load_latency_cycles(g.machine)):
        placed_late = True
    elif not wait_iters:
        placed_late = True  # retired after the loop: nothing in the loop waits for it
    elif wait_iters == {0}:
        # retired in its own iteration: late enough only if the model sees no stall on it (other stalls count)
        placed_late = est is not None and load.index in g.pos and est.stall_by_load.get(load.index, 0) == 0
    else:
        placed_late = None
        undetermined.append("it is retired in the issuing iteration on some paths and in a later one on others")
    if walk.limit:
        placed_late = None
    stall = est.stall_by_load.get(load.index, 0) if est else None

    src = source_of(load)
    if src is None and consumer is not None and source_of(insts[consumer[1]]):
        src = f"{source_of(insts[consumer[1]])} (line of its consumer; the load has no line)"
    n = len(g.seq)

    def dist(at: tuple[int, int] | None) -> int | None:
        if at is None or at[1] not in g.pos:
            return None
        return at[0] * n + g.pos[at[1]] - g.pos[load.index] - 1

    return LoadSite(
        index=load.index,
        text=load.text,
        block=g.cfg.blocks[g.cfg.block_of[load.index]].label,
        memory="scalar" if scalar else "vector",
        source=src,
        bytes_per_lane=_load_regs(load) * 4,
        wait_index=wait[1] if wait else None,
        wait_text=insts[wait[1]].text if wait else None,
        wait_iteration=wait[0] if wait else None,
        first_use_index=first[1] if first else None,
        first_use_text=insts[first[1]].text if first else None,
        consumer_index=consumer[1] if consumer else None,
        consumer_text=insts[consumer[1]].text if consumer else None,
        copy_indices=sorted(walk.copies),
        consumed=consumed,
        undetermined_reason="; ".join(undetermined) or None,
        carried=None if walk.limit else carried,
        waited_too_soon=None if placed_late is None else not placed_late,
        latency_hidden=load_hidden(placed_late, stall),
        exposed_cycles=stall,
        load_to_wait_instructions=wait[2] if wait else None,
        load_to_wait_cycles=cycles,
        load_to_use_distance=dist(first),
    )


def load_hidden(placed_late: bool | None, stall_cycles: int | None) -> bool | None:
    """A load's latency is hidden when its wait is placed late enough and the latency model (where there is one)
    has no stall on it: the per-load field and the model beside it say one thing."""
    if placed_late is None:
        return None
    return placed_late and not stall_cycles


# --- latencies per iteration -------------------------------------------------------------------------------------


@dataclass
class LatencyEstimate:
    iteration_cycles: int
    work_cycles: int  # issue cycles of one iteration, stalls not counted
    latencies: float  # memory stall cycles per steady-state iteration / the DRAM load latency
    stall_by_load: dict[int, int]  # load instruction index -> stall cycles its retiring wait spends on it
    note: str


def _latency(inst: Instruction, m: Machine) -> int:
    """Cycles until a memory instruction's result (or its counter slot) is back on ``m``."""
    return int(cost(inst, m).latency)


def estimate_latencies(g: LoopGraph) -> LatencyEstimate:
    """How many memory latencies one steady-state iteration exposes, and which load each stall cycle waits for.

    The iteration (every block of the loop once, in reverse post-order) is issued in order for four iterations;
    each memory operation is ready its latency after issue (a DRAM miss; LDS: ``lds_latency_cycles``), and a wait
    stalls until what it retires is ready (vmcnt in issue order; lgkmcnt retires the oldest first). A chain of
    dependent loads stalls once per link, because the next address is computed only after the wait. The fourth
    iteration's stall cycles on global/scalar memory (not LDS), divided by the latency, are the figure. The
    latencies are the device's (``g.machine``: each class's ``latency`` in its file)."""
    m = g.machine
    load_latency, lds_latency = load_latency_cycles(m), int(m.value("lds_latency_cycles"))
    gfx12 = (g.arch or "").startswith("gfx12")
    t = 0
    stall_by_load: dict[int, int] = {}
    vm: deque[tuple[int, int]] = deque()  # (ready, load index or -1)
    lgkm: deque[tuple[int, int]] = deque()  # (ready, scalar load index; -1 for LDS)
    ends = []
    for it in range(4):
        for inst in g.seq:
            for queue, want in ((vm, vmcnt_of(inst)), (lgkm, lgkm_want(inst, gfx12))):
                if want is None:
                    continue
                while len(queue) > want:
                    ready, index = queue.popleft()
                    if it == 3 and index >= 0 and ready > t:
                        stall_by_load[index] = stall_by_load.get(index, 0) + ready - t
                    t = max(t, ready)
            t += g.cycles[inst.index]
            if counts_in_vmcnt(inst, g.arch):
                vm.append((t + _latency(inst, m), inst.index if is_loop_load(inst) else -1))
            elif is_scalar_load(inst):
                lgkm.append((t + _latency(inst, m), inst.index))
            elif inst.category.startswith("lds_"):
                lgkm.append((t + _latency(inst, m), -1))
        ends.append(t)
    note = (
        f"every load assumed to take ~{load_latency} cycles (a miss to HBM; scalar loads too), LDS "
        f"~{lds_latency}, every block of the loop issued once per iteration"
    )
    latencies = round(sum(stall_by_load.values()) / load_latency, 1)
    work = sum(g.cycles.values())
    return LatencyEstimate(ends[3] - ends[2], work, latencies, stall_by_load, note)


# --- copies ------------------------------------------------------------------------------------------------------


def is_rotated(g: LoopGraph) -> bool:
    """False when the exit test sits at the top (the header leaves the loop) and a latch jumps back unconditionally,
    the shape LLVM leaves when loop rotation gave up (header larger than rotation-max-header-size)."""
    header_exits = any(s not in g.blocks for s in g.cfg.blocks[g.loop.header].succs)
    insts = g.kernel.instructions
    jumps_back = any(insts[g.cfg.blocks[b].end - 1].mnemonic == "s_branch" for b in g.loop.latches)
    return not (header_exits and jumps_back)


def diagnose_copies(g: LoopGraph, loads: list[LoadSite]) -> list[CopySite]:
    """Every register copy in one iteration, by kind (loaded data, accumulator, other) and place, with its cause."""
    load_pos = [g.pos[ld.index] for ld in loads if ld.index in g.pos]
    first_load, last_load = (min(load_pos), max(load_pos)) if load_pos else (None, None)
    copy_of = {c: ld for ld in loads for c in ld.copy_indices}
    mfma_defs = 0
    for i in g.seq:
        if i.category == "mfma":
            mfma_defs |= i.defs
    rotated = is_rotated(g)
    out: list[CopySite] = []
    for p, inst in enumerate(g.seq):
        if not is_copy(inst) or not inst.uses:
            continue
        if first_load is None or p < first_load:
            place = "loop-head"
        elif p > last_load:
            place = "loop-end"
        else:
            place = "between-loads"
        ld = copy_of.get(inst.index)
        if ld is not None:
            kind, cause = "loaded-data", _loaded_copy_cause(g, p, inst, ld, {x.index: x for x in loads})
        elif inst.uses & mfma_defs or inst.category == "accvgpr_move":
            kind = "accumulator"
            cause = "the loop-carried accumulator is moved between registers every iteration" + (
                ": the loop is unrotated (exit test at the top), so the value at the back edge lives elsewhere "
                "than at the header"
                if not rotated
                else ": its value at the back edge is allocated to other registers than at the header (more "
                "values live across the loop, e.g. a prefetch buffer, split its live range)"
            )
        elif inst.uses & SGPR_MASK and inst.defs & VGPR_MASK:
            kind = "other"
            cause = "moves a uniform scalar value (an address or offset) into a VGPR for a vector instruction"
        else:
            kind = "other"
            cause = "a loop-carried value (index, address or mask) kept in another register across the back edge"
        out.append(
            CopySite(
                index=inst.index,
                text=inst.text,
                kind=kind,
                place=place,
                load_index=ld.index if ld else None,
                cause=cause,
            )
        )
    return out


def _move_or_second_buffer(g: LoopGraph, load: Instruction, last_read: Instruction, site: LoadSite | None) -> str:
    """The way to drop a loaded-data copy that the load's own numbers allow: issuing the load after the copied
    value's last read shortens its flight by the cycles in between, so that is offered only while the load's wait
    stays a memory latency away; otherwise (a prefetch whose overlap that move would remove) a second buffer."""
    n = len(g.seq)
    a, b = g.pos[load.index], g.pos[last_read.index]
    lost = sum(g.cycles[g.seq[(a + k) % n].index] for k in range(1, (b - a) % n + 1))
    latency = load_latency_cycles(g.machine)
    buffer = (
        "unroll the loop by two so consecutive iterations' data alternate between two register buffers (or load "
        "into a second buffer)"
    )
    flight = site.load_to_wait_cycles if site is not None else None
    if flight is None:
        return f"issuing that load after [{last_read.index}] takes ~{lost} cycles from its flight; or {buffer}"
    if flight - lost >= latency:
        return (
            f"issuing that load after [{last_read.index}] lets the compiler drop the copy: its wait stays ~"
            f"{flight - lost} cycles away (from ~{flight}), still past the ~{latency}-cycle latency"
        )
    return (
        f"the copy keeps the prefetch's overlap: issuing that load after [{last_read.index}] would cut its "
        f"load-to-wait from ~{flight} to ~{max(flight - lost, 0)} cycles (under the ~{latency}-cycle "
        f"latency); to drop the copy, {buffer}"
    )


def _loaded_copy_cause(g: LoopGraph, p: int, inst: Instruction, ld: LoadSite, loads: dict[int, LoadSite]) -> str:
    """Why loaded data is copied: the register that holds it is written again (by the next load) while the copy's
    value is still to be read — this block's and the next block's data live at once."""
    n = len(g.seq)
    src, dst = inst.uses, inst.defs
    redef = last_read = None
    for k in range(1, n):
        other = g.seq[(p + k) % n]
        if redef is None and other.defs & src and is_loop_load(other):
            redef = other
        if other.uses & dst:
            last_read = other
        if other.defs & dst and not other.uses & dst:
            break
    if redef is not None and last_read is not None and g.pos[redef.index] != g.pos[last_read.index]:
        rp, lp = (g.pos[redef.index] - p) % n, (g.pos[last_read.index] - p) % n
        if rp < lp:
            head = (
                f"this block's and the next block's data live at once: the load [{redef.index}] writes the register "
                f"again before the copied value's last read [{last_read.index}]; "
            )
            return head + _move_or_second_buffer(g, redef, last_read, loads.get(redef.index))
    if not is_rotated(g):
        return "the loop is unrotated (exit test at the top): the loaded value is moved to its loop-carried register"
    return "the loaded value is moved to the register the loop carries it in (a phi copy at the back edge)"


# --- one loop ----------------------------------------------------------------------------------------------------


def analyze_loop(kernel: Kernel, cfg: Cfg, loop: Loop, arch: str | None, is_hot: bool) -> LoopReport:
    g = LoopGraph.build(kernel, cfg, loop, arch)
    body = loop.instruction_indices(cfg)
    n = len(g.seq)
    load_insts = [i for i in g.seq if is_loop_load(i)]
    est = estimate_latencies(g) if n else None
    loads = [_trace_load(g, i, est) for i in load_insts]
    sites = {ld.index: (ld, inst) for ld, inst in zip(loads, load_insts, strict=True)}
    for ld, inst in zip(loads, load_insts, strict=True):
        reason, detail, waits_for = _wait_reason(g, ld, inst, sites)
        ld.wait_reason, ld.wait_reason_detail, ld.waits_for_index = reason, detail, waits_for

    body_insts = g.seq
    mfma = sum(1 for i in body_insts if i.category == "mfma")
    valu = sum(1 for i in body_insts if i.category in ("valu", "cndmask", "accvgpr_move"))
    compute = sum(g.cycles[i.index] for i in body_insts if i.category in ("mfma", "valu", "cndmask", "accvgpr_move"))
    latency = load_latency_cycles(g.machine)
    copies = diagnose_copies(g, loads)

    # each load is in flight from its issue to its retiring wait (positions in the walk, later iterations + n)
    spans = [
        (g.pos[ld.index], g.pos[ld.wait_index] + n * ld.wait_iteration if ld.wait_index in g.pos else 10 * n)
        for ld in loads
    ]
    barriers = []
    for p, i in enumerate(body_insts):
        if i.category != "barrier":
            continue
        after = sum(1 for j in body_insts[p + 1 :] if is_loop_load(j))
        in_flight = sum(1 for span in spans if span[0] < p < span[1] or span[0] < p + n < span[1])
        flight = f"{in_flight} load(s) in flight overlap its wait" if in_flight else "no load is in flight during it"
        note = (
            f"{flight}; {after} load(s) issue after this barrier in the same iteration: if their addresses do not "
            "depend on what the barrier protects, issue them before it so their latency overlaps the barrier wait"
            if after
            else f"{flight}; no load issues after it"
        )
        barriers.append(
            BarrierRegion(
                index=i.index,
                text=i.text,
                source=source_of(i),
                loads_after=after,
                loads_in_flight=in_flight,
                note=note,
            )
        )

    verdict, reason = classify_loop(loads, mfma, valu, compute, latency)
    waits = [ld.load_to_wait_cycles for ld in loads if ld.load_to_wait_cycles is not None]
    if verdict == "prefetched" and est is not None:
        reason += short_iteration_note(est.latencies, est.work_cycles, latency, min(waits) if waits else None)
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
        **load_and_copy_counts(loads, copies, barriers),
        compute_cycles=compute,
        mfma_count=mfma,
        valu_count=valu,
        rotated=is_rotated(g),
        iteration_cycles=est.iteration_cycles if est else None,
        memory_latencies_per_iteration=est.latencies if est else None,
        latency_note=est.note if est else None,
        warnings=unchecked_lookahead(kernel, loads),
    )


def analyze_kernel(kernel: Kernel, arch: str | None, hot_header: str | None = None) -> tuple[list[LoopReport], int]:
    """Loop reports (hot loop first, then by instruction order) and the loads issued before the hot loop (vector
    loads, and scalar loads of computed addresses: the s_loads of kernel arguments do not count). ``hot_header``:
    the hot loop's header label where the caller knows it (the loop with the most executed instructions); otherwise
    the static pick (``find_hot_loop``: the most MFMA + memory instructions)."""
    cfg = build_cfg(kernel)
    hot_loop = next((lp for lp in cfg.loops if hot_header and cfg.blocks[lp.header].label == hot_header), None)
    if hot_loop is None:
        found = find_hot_loop(cfg)
        hot_loop = found.loop if found is not None else None
    reports = []
    for lp in cfg.loops:
        reports.append(analyze_loop(kernel, cfg, lp, arch, lp is hot_loop))
    reports.sort(key=lambda r: (not r.is_hot, r.first_instruction))
    prologue = 0
    if hot_loop is not None:
        written = 0
        for i in kernel.instructions[: min(hot_loop.instruction_indices(cfg))]:
            if i.category in VMEM_LOAD_CLASSES or (is_scalar_load(i) and i.uses & written):
                prologue += 1
            written |= i.defs
    return reports, prologue
