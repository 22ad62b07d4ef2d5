"""Warp-specialised kernels (Triton's ``ttg.warp_specialize``; issue 36): which warps run which code.

Triton 3.9 splits a ``tl.range(..., warp_specialize=True)`` loop for sm_90 into partitions: the default one (the
module's ``ttg.num-warps`` warps; on Hopper the producer, issuing the TMA loads) and worker partitions
(``partitionN(...) num_warps(W)``; the consumers, each running wgmma on its share of the tile), all in one block of
the partitions' warps summed. The SASS holds them side by side: the default partition from the entry to its
``EXIT``, then the workers' dispatch loop, which branches to each worker partition's body: from its
``USETMAXREG.TRY_ALLOC`` (``setmaxnreg.inc``: the partition's registers) to the next body, the last one to the
``USETMAXREG.DEALLOC`` after it (ptxas may share one between bodies). No warp
runs all of it, so the per-warp model (nvidia.py) weighs each instruction by the share of the block's warps that run
it. Where the hint is given but the TTGIR has no ``ttg.warp_specialize`` (num_warps=8, or a flatten=True nest, on sm_90), the compiler
did not split the loop: ``ignored_hint`` says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.isa.sass import SassInst
from tools.predict.work import InstCost, IsaLoop

WS_NOTE = "warp-specialised"  # the note's first words: evidence.warpspec_assumptions keys on them
WS_UNREAD = "warp-specialised, partitions not mapped"

_NUM_WARPS_RE = re.compile(r'"ttg\.num-warps"\s*=\s*(\d+)')
_WS_OP_RE = re.compile(r"ttg\.warp_specialize\(.*?(?:requestedRegisters\s*=\s*array<i32:\s*([\d,\s]*)>)?[^\n]*")
_PARTITION_RE = re.compile(r"^\s*(partition\d+)\(.*\)\s*num_warps\((\d+)\)\s*\{", re.M)
_DEFAULT_RE = re.compile(r"^\s*default\s*\{", re.M)
_BUFFER_RE = re.compile(r"ttg\.local_alloc\s*:\s*\(\)\s*->\s*!ttg\.memdesc<(\d+)x\d+x\d+x")
_SETMAXNREG_RE = re.compile(r"(0x[0-9a-fA-F]+|\d+)\s*;?\s*$")


@dataclass
class Partition:
    name: str  # "default", "partition0", ...
    warps: int
    role: str  # "producer" (TMA loads), "consumer" (wgmma), "other"
    registers: int | None = None  # what setmaxnreg gives its loop (SASS USETMAXREG); None where unread
    first: int | None = None  # its SASS region (instruction indices, inclusive)
    last: int | None = None


@dataclass
class WarpSpec:
    partitions: list[Partition]
    stages: int | None  # shared-memory buffers per TMA operand (the leading dimension of the staged allocations)
    notes: list[str] = field(default_factory=list)

    @property
    def block_warps(self) -> int:
        return sum(p.warps for p in self.partitions)

    def region_of(self, idx: int) -> int | None:
        """The partition whose SASS region holds instruction ``idx`` (None: dispatch code, spin-wait blocks)."""
        for n, p in enumerate(self.partitions):
            if p.first is not None and p.last is not None and p.first <= idx <= p.last:
                return n
        return None


def _role(text: str) -> str:
    if "ttng.warp_group_dot" in text or "tt.dot" in text:
        return "consumer"
    if "async_tma_copy_global_to_local" in text or "tt.descriptor_load" in text:
        return "producer"
    return "other"


def ttgir_partitions(ttgir: str | None) -> WarpSpec | None:
    """The partitions of the TTGIR's ``ttg.warp_specialize`` (None: the module has none), in program order, each
    with its warps and what it does."""
    if not ttgir or "ttg.warp_specialize(" not in ttgir:
        return None
    start = ttgir.index("ttg.warp_specialize(")
    default = _DEFAULT_RE.search(ttgir, start)
    heads = list(_PARTITION_RE.finditer(ttgir, start))
    if default is None or not heads:
        return None
    nw = _NUM_WARPS_RE.search(ttgir)
    bounds = [default.end(), *(h.start() for h in heads), len(ttgir)]
    texts = [ttgir[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]
    parts = [Partition("default", int(nw.group(1)) if nw else 4, _role(texts[0]))]
    parts += [Partition(h.group(1), int(h.group(2)), _role(t)) for h, t in zip(heads, texts[1:], strict=True)]
    depths = [int(d) for d in _BUFFER_RE.findall(ttgir)]
    return WarpSpec(parts, max(depths) if depths else None)


def ignored_hint(ttgir: str | None, target: str = "sm_90") -> str | None:
    """A line when a loop carries ``warp_specialize=True`` (``tt.warp_specialize``) but the compiler did not split
    it (no ``ttg.warp_specialize`` in the TTGIR)."""
    if not ttgir or "tt.warp_specialize" not in ttgir or "ttg.warp_specialize(" in ttgir:
        return None
    nw = _NUM_WARPS_RE.search(ttgir)
    warps = int(nw.group(1)) if nw else None
    why = (f"num_warps={warps}" if warps else "this num_warps") + (
        ", a flatten=True nest" if "tt.flatten" in ttgir else ""
    )
    return (
        "warp_specialize=True was not applied: the TTGIR keeps the hint on the loop (tt.warp_specialize) but has no "
        "ttg.warp_specialize, so every warp runs the whole loop, software-pipelined as without the hint "
        f"({why}; in our compiles Triton 3.9 splits such a loop for {target} only at num_warps=4 and not in a "
        "flatten=True nest, into a 4-warp TMA producer and two 4-warp wgmma consumers)"
    )


def _setmaxnreg(i: SassInst) -> int | None:
    hit = _SETMAXNREG_RE.search(i.operands.strip())
    return int(hit.group(1), 0) if hit else None


def map_sass(spec: WarpSpec, insts: list[SassInst]) -> bool:
    """Fill each partition's SASS region and registers: the default partition from the entry to the first ``EXIT``
    (its loop's registers: the ``USETMAXREG.DEALLOC`` before its first loop), each worker from a
    ``USETMAXREG.TRY_ALLOC`` after it to the next one, the last to the ``USETMAXREG.DEALLOC`` after it. False when the SASS
    does not have one such body per worker partition (then no region is trusted)."""
    exit_at = next((n for n, i in enumerate(insts) if i.root == "EXIT"), None)
    if exit_at is None:
        return False
    starts = [n for n in range(exit_at + 1, len(insts)) if insts[n].opcode.startswith("USETMAXREG.TRY_ALLOC")]
    ends = [n for n in range(exit_at + 1, len(insts)) if insts[n].opcode.startswith("USETMAXREG.DEALLOC")]
    tail = next((n for n in ends if starts and n > starts[-1]), None)
    # ptxas may share one DEALLOC between bodies (a body then branches to it): a body ends where the next begins
    workers = [(a, b - 1, _setmaxnreg(insts[a])) for a, b in zip(starts, starts[1:], strict=False)]
    if starts and tail is not None:
        workers.append((starts[-1], tail, _setmaxnreg(insts[starts[-1]])))
    if len(workers) != len(spec.partitions) - 1:
        return False
    head = spec.partitions[0]
    head.first, head.last = 0, exit_at
    dealloc = [n for n in range(exit_at) if insts[n].opcode.startswith("USETMAXREG.DEALLOC")]
    head.registers = _setmaxnreg(insts[dealloc[0]]) if dealloc else None
    for p, (first, last, regs) in zip(spec.partitions[1:], workers, strict=True):
        p.first, p.last, p.registers = first, last, regs
    return True


def describe(spec: WarpSpec, launch_registers: int | None) -> str:
    """The note predict prints for a warp-specialised launch (starts with ``WS_NOTE``)."""
    parts = ", ".join(
        f"{p.name} {p.warps} warps ({p.role}{f', {p.registers} registers' if p.registers else ''})"
        for p in spec.partitions
    )
    regs = f" at launch {launch_registers} registers per thread;" if launch_registers else ""
    return (
        f"{WS_NOTE}: {len(spec.partitions)} partitions in one block of {spec.block_warps} warps: {parts};{regs} "
        "setmaxnreg moves registers between them at run time, the launch's count sets occupancy. The partitions run "
        "concurrently: each instruction counts for the share of the block's warps that run it; the chain is one "
        "consumer warp's, one pipeline step per iteration (its wgmma and the producer's TMA loads of that step, "
        f"{spec.stages or '?'} stages of shared memory)"
    )


_WEIGHED = ("issue", "valu", "matrix", "lds_bytes", "load_bytes", "store_bytes", "matrix_flops")


def _nest(loops: list[IsaLoop]) -> list[IsaLoop]:
    """``loops`` with depth and parent recomputed from their members (a loop inside another: a strict subset)."""
    for lp in loops:
        lp.depth = 1 + sum(1 for o in loops if o is not lp and lp.members < o.members)
    for n, lp in enumerate(loops):
        parents = [j for j, o in enumerate(loops) if j != n and lp.members < o.members]
        lp.parent = min(parents, key=lambda j: len(loops[j].members)) if parents else None
    return loops


def split_partitions(
    insts: list[SassInst], loops: list[IsaLoop], costs: list[InstCost], spec: WarpSpec
) -> tuple[list[IsaLoop], str | None]:
    """The loops and costs of one warp that stands for a warp-specialised block (``spec``, mapped by ``map_sass``):
    every instruction's throughput costs scaled by its partition's share of the block's warps (the dispatch code and
    the spin-wait blocks by none), so the per-warp figures times the block's warps are the block's; the chain kept
    on one consumer's path only (the default partition's code before its loop, which the workers wait for, then the
    consumer's body). Loops: the workers' dispatch loop (spanning partitions) and setmaxnreg's retry loops are no
    work loops; each of the producer's loops is merged with the first consumer's loop of the same depth, one
    pipeline step per iteration. Returns the loops and a line when the producer's and the consumer's loops do not
    pair (then none are merged)."""
    warps = spec.block_warps
    consumer = next((n for n, p in enumerate(spec.partitions) if p.role == "consumer"), None)
    producer = next((n for n, p in enumerate(spec.partitions) if p.role == "producer"), None)
    kept = []
    for lp in loops:
        regions = {spec.region_of(n) for n in lp.members}
        if len(regions) != 1 or None in regions or any(insts[n].opcode.startswith("USETMAXREG") for n in lp.members):
            continue
        kept.append(IsaLoop(lp.header, lp.depth, lp.members, counter_step=lp.counter_step))
    kept = _nest(kept)
    head = spec.partitions[0]
    head_loops = [lp for lp in kept if spec.region_of(min(lp.members)) == 0]
    head_body_end = min((min(lp.members) for lp in head_loops), default=(head.last or 0) + 1)
    for n, c in enumerate(costs):
        r = spec.region_of(n)
        share = spec.partitions[r].warps / warps if r is not None else 0.0
        for key in _WEIGHED:
            setattr(c, key, getattr(c, key) * share)
        on_path = r == consumer or (r == 0 and n < head_body_end)
        if not on_path:
            c.chain = 0.0
    if consumer is None or producer is None:
        return kept, "no producer/consumer pair among the partitions: their loops are not merged"
    by_region = {r: sorted((lp for lp in kept if spec.region_of(min(lp.members)) == r), key=lambda lp: lp.depth)
                 for r in (producer, consumer)}  # fmt: skip
    prod, cons = by_region[producer], by_region[consumer]
    if len(prod) != len(cons) or any(a.depth != b.depth for a, b in zip(prod, cons, strict=True)):
        return kept, (
            f"the producer's {len(prod)} loop(s) and the consumer's {len(cons)} do not pair by depth: not merged, "
            "the hot loop is one partition's"
        )
    merged = []
    for lp in kept:
        if lp in prod:
            continue
        if lp in cons:
            other = prod[cons.index(lp)]
            lp = IsaLoop(lp.header, lp.depth, lp.members | other.members, counter_step=lp.counter_step)
        merged.append(lp)
    return _nest(merged), None


def warp_specialised(
    insts: list[SassInst], loops: list[IsaLoop], costs: list[InstCost], ttgir: str | None, waves_per_block: int
) -> tuple[list[IsaLoop], int | None, list[str]]:
    """(loops, TMA stages, notes) of a warp-specialised kernel (the module docstring), its costs weighed by the
    share of the block's warps that run each instruction; the loops unchanged and no note for any other kernel but
    one whose warp_specialize hint the compiler did not apply (a note saying so)."""
    spec = ttgir_partitions(ttgir)
    if spec is None:
        hint = ignored_hint(ttgir)
        return loops, None, [hint] if hint else []
    if not map_sass(spec, insts) or spec.block_warps != waves_per_block:
        return (
            loops,
            None,
            [
                f"{WS_UNREAD}: the TTGIR has {len(spec.partitions)} partitions of {spec.block_warps} warps, but the SASS "
                f"does not show one setmaxnreg body per worker partition (or the launch has {waves_per_block} warps): "
                "every warp is modelled as running every partition's code, in series"
            ],
        )
    loops, unpaired = split_partitions(insts, loops, costs, spec)
    return loops, spec.stages, [describe(spec, None)] + ([unpaired] if unpaired else [])
