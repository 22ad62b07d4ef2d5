"""prefetch-data-load on NVIDIA SASS (nvdisasm text): loops from backward branches, global loads (LDG) to first use,
cp.async (LDGSTS) to the ``DEPBAR.LE SB0, N`` that retires its ``LDGDEPBAR`` group.

nvdisasm prints no scoreboard control bits by default, so an LDG's wait is its first use (where the warp stalls on
the scoreboard). Registers: ``R4`` is one register; a ``.64``/``.128`` access or an ``R4.64`` operand spans 2 or 4.
"""

from __future__ import annotations

import re
from collections import deque

from tools.isa.costs import cost
from tools.isa.machines import Machine
from tools.isa.sass import SassFunction, SassInst, find_hot_loop, find_loops, parse_sass
from tools.models.dump import Resources
from tools.models.prefetch import BarrierRegion, CopySite, LoadSite, LoopReport
from tools.prefetch.loops import (
    WALK_ITERATIONS,
    KernelLoops,
    classify_loop,
    load_and_copy_counts,
    load_latency_cycles,
    machine_for,
    short_iteration_note,
)

DEFAULT_ARCH = "sm_90"  # whose device (h100.yaml) the costs and latency are read from where the SASS names none


def _cycles(i: SassInst, m: Machine) -> int:
    """Issue cycles of ``i`` on ``m`` (tools.isa.costs: ``mma`` or ``other`` in the device file)."""
    return int(cost(i, m).issue)


def _is_load(i: SassInst) -> bool:
    root = i.opcode.split(".")[0]
    return root in ("LDG", "LDGSTS") or (root == "LD" and ".E" in i.opcode)


def _is_copy(i: SassInst) -> bool:
    return i.opcode.split(".")[0] in ("MOV", "IMAD.MOV") or i.opcode.startswith("IMAD.MOV")


def _depbar_count(o: SassInst) -> int | None:
    m = re.search(r"SB0,\s*(0x[0-9a-fA-F]+|\d+)", o.operands) if o.opcode.startswith("DEPBAR") else None
    return int(m.group(1), 0) if m else None


def _clean(text: str) -> str:
    return text.split("*/", 1)[-1].strip()


def _trace(seq: list[SassInst], n: int, p: int, m: Machine) -> LoadSite:
    """One load's record: an LDG waits at its first use (the scoreboard), copies (MOV) are followed to the consumer;
    an LDGSTS waits at the DEPBAR that retires its commit group."""
    inst = seq[p]
    wait_p = use_p = consumer_p = None
    reason = detail = None
    copies: list[int] = []
    if inst.opcode.startswith("LDGSTS"):
        commits = 0
        for q in range(p + 1, WALK_ITERATIONS * n):  # its group is retired by a later iteration's DEPBAR
            o = seq[q]
            if o.opcode.startswith("LDGDEPBAR"):
                commits += 1
            want = _depbar_count(o)
            if want is not None and commits and want <= commits - 1:  # groups committed after ours may stay
                wait_p = use_p = consumer_p = q
                reason, detail = "async-group", f"`{_clean(o.text)}` retires its cp.async commit group"
                break
    else:
        regs = set(inst.defs)
        for q in range(p + 1, min(p + (WALK_ITERATIONS - 1) * n + 1, WALK_ITERATIONS * n)):
            o = seq[q]
            if o.uses & regs:
                if use_p is None:
                    use_p = wait_p = q
                    if _is_copy(o):
                        reason, detail = "loop-carried-copy", f"`{_clean(o.text)}` copies the loaded data"
                    else:
                        reason, detail = "first-use", f"`{_clean(o.text)}` reads the loaded data (scoreboard wait)"
                if _is_copy(o):
                    copies.append(o.index)
                    regs |= o.defs
                    continue
                consumer_p = q
                break
            regs -= o.defs
            if not regs:
                break
    if consumer_p is not None:
        consumed = "same-iteration" if consumer_p < n else "next-iteration"
    else:
        consumed = "after-loop"
    cycles = sum(_cycles(seq[q], m) for q in range(p + 1, wait_p)) if wait_p is not None else None
    placed_late = wait_p is None or wait_p >= n or (cycles or 0) >= load_latency_cycles(m)
    return LoadSite(
        index=inst.index,
        text=_clean(inst.text),
        block=inst.labels[0] if inst.labels else None,
        source=inst.source,
        bytes_per_lane=len(inst.defs) * 4,
        wait_index=seq[wait_p].index if wait_p is not None else None,
        wait_text=_clean(seq[wait_p].text) if wait_p is not None else None,
        wait_iteration=wait_p // n if wait_p is not None else None,
        wait_reason=reason,
        wait_reason_detail=detail,
        first_use_index=seq[use_p].index if use_p is not None else None,
        first_use_text=_clean(seq[use_p].text) if use_p is not None else None,
        consumer_index=seq[consumer_p].index if consumer_p is not None else None,
        consumer_text=_clean(seq[consumer_p].text) if consumer_p is not None else None,
        copy_indices=sorted(set(copies)),
        consumed=consumed,
        carried=wait_p is not None and wait_p >= n,
        waited_too_soon=not placed_late,
        latency_hidden=placed_late,  # no per-load stall model on NVIDIA: the placement decides
        load_to_wait_instructions=(wait_p - p - 1) if wait_p is not None else None,
        load_to_wait_cycles=cycles,
        load_to_use_distance=(use_p - p - 1) if use_p is not None else None,
    )


def _estimate_latencies(body: list[SassInst], m: Machine) -> tuple[int, float]:
    """(cycles of one steady-state iteration, memory latencies exposed per iteration): four iterations issued in
    order; an LDG's registers are ready ``dram_latency_cycles`` (the device file's) after issue and its first reader stalls until then;
    a DEPBAR stalls until enough cp.async groups are ready."""
    latency = load_latency_cycles(m)
    t = stall = 0
    ready: dict[int, int] = {}
    group: list[int] = []  # ready time of the LDGSTS issued since the last commit
    groups: deque[int] = deque()
    ends = []
    for it in range(4):
        for inst in body:
            before = t
            for r in inst.uses:
                t = max(t, ready.pop(r, 0))
            want = _depbar_count(inst)
            if want is not None:
                while len(groups) > want:
                    t = max(t, groups.popleft())
            if it == 3:
                stall += t - before
            t += _cycles(inst, m)
            if inst.opcode.startswith("LDGSTS"):
                group.append(t + latency)
            elif inst.opcode.startswith("LDGDEPBAR"):
                groups.append(max(group, default=t))
                group = []
            elif _is_load(inst):
                for r in inst.defs:
                    ready[r] = t + latency
            else:
                for r in inst.defs:
                    ready.pop(r, None)
        ends.append(t)
    return ends[3] - ends[2], round(stall / latency, 1)


def _copies(body: list[SassInst], loads: list[LoadSite]) -> list[CopySite]:
    copy_of = {c: ld for ld in loads for c in ld.copy_indices}
    mma_defs: set[int] = set()
    for i in body:
        if i.is_mma:
            mma_defs |= i.defs
    load_pos = [p for p, i in enumerate(body) if _is_load(i)]
    out = []
    for p, i in enumerate(body):
        if not _is_copy(i) or not i.uses:
            continue
        place = "loop-head" if not load_pos or p < load_pos[0] else "loop-end" if p > load_pos[-1] else "between-loads"
        ld = copy_of.get(i.index)
        if ld is not None:
            kind, cause = "loaded-data", "the loaded value is moved to the register the loop carries it in"
        elif i.uses & mma_defs:
            kind, cause = "accumulator", "the loop-carried accumulator is moved between registers every iteration"
        else:
            kind, cause = "other", "a loop-carried value kept in another register across the back edge"
        out.append(
            CopySite(
                index=i.index,
                text=_clean(i.text),
                kind=kind,
                place=place,
                load_index=ld.index if ld else None,
                cause=cause,
            )
        )
    return out


def _analyze_loop(f: SassFunction, start: int, end: int, is_hot: bool, depth: int, m: Machine) -> LoopReport:
    n = end - start + 1
    seq = f.insts[start : end + 1] * WALK_ITERATIONS  # a 3-stage cp.async ring retires a group 2 iterations on
    loads = [_trace(seq, n, p, m) for p in range(n) if _is_load(seq[p])]
    body = seq[:n]
    mma = sum(1 for i in body if i.is_mma)
    compute = [i for i in body if i.is_compute]
    barriers = []
    for p, i in enumerate(body):
        if i.opcode.startswith("BAR"):
            after = sum(1 for j in body[p + 1 :] if _is_load(j))
            barriers.append(
                BarrierRegion(
                    index=i.index,
                    text=_clean(i.text),
                    source=i.source,
                    loads_after=after,
                    note=f"{after} load(s) issue after this barrier; issue them before it if their addresses allow"
                    if after
                    else "no load issues after this barrier",
                )
            )
    verdict, reason = classify_loop(loads, mma, len(compute), 0, load_latency_cycles(m))
    copies = _copies(body, loads)
    iteration, latencies = _estimate_latencies(body, m)
    waits = [ld.load_to_wait_cycles for ld in loads if ld.load_to_wait_cycles is not None]
    if verdict == "prefetched":
        reason += short_iteration_note(
            latencies, sum(_cycles(i, m) for i in body), load_latency_cycles(m), min(waits) if waits else None
        )
    return LoopReport(
        header=f.insts[start].labels[0] if f.insts[start].labels else f"/*{f.insts[start].addr:04x}*/",
        first_instruction=start,
        last_instruction=end,
        instruction_count=n,
        depth=depth,
        is_hot=is_hot,
        verdict=verdict,
        reason=reason,
        **load_and_copy_counts(loads, copies, barriers),
        compute_cycles=sum(_cycles(i, m) for i in compute),
        mfma_count=mma,
        valu_count=len(compute),
        iteration_cycles=iteration,
        memory_latencies_per_iteration=latencies,
        latency_note=f"every global load assumed to take ~{load_latency_cycles(m)} cycles; the loop body issued in order",
    )


def analyze_sass(text: str, arch: str | None, kernel: str | None, res: Resources | None) -> list[KernelLoops]:
    """Every (selected) function's loops, as the AMD path returns them."""
    m = machine_for(arch, DEFAULT_ARCH)
    out = []
    funcs = parse_sass(text)
    for f in funcs:
        if kernel and kernel != f.name and kernel not in f.name:
            continue
        found = find_loops(f)
        chosen = find_hot_loop(f)
        hot = (chosen.loop.first, chosen.loop.last) if chosen else None
        loops = []
        for lp in found:
            loops.append(_analyze_loop(f, lp.first, lp.last, (lp.first, lp.last) == hot, lp.depth, m))
        loops.sort(key=lambda r: (not r.is_hot, r.first_instruction))
        prologue = sum(1 for i in f.insts[: hot[0]] if _is_load(i)) if hot else 0
        has_lines = any(i.source for i in f.insts)
        out.append(KernelLoops(f.name, loops, prologue, has_lines, res if len(funcs) == 1 else None, arch))
    return out
