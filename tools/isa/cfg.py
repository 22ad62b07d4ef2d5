"""Control flow of one kernel: basic blocks, successors, dominators, natural loops and the hot loop.

Blocks start at labels that are branch targets (and after every branch or ``s_endpgm``); a conditional branch
(``s_cbranch_*``) falls through, ``s_branch`` does not, ``s_endpgm`` and ``s_setpc_b64`` leave the kernel. Loops are the
natural loops of back edges (an edge whose target dominates its source); loops sharing a header are merged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tools.isa.amdgcn import Kernel

MEMORY_CATEGORIES = ("vmem_load", "vmem_load_lds", "vmem_store", "vmem_atomic", "lds_read", "lds_write", "lds_other",
                     "scratch_load", "scratch_store", "smem")


@dataclass
class Block:
    index: int
    start: int  # first instruction index
    end: int  # one past the last instruction index
    label: str | None
    succs: list[int] = field(default_factory=list)
    preds: list[int] = field(default_factory=list)


@dataclass
class Loop:
    header: int  # block index
    blocks: list[int]  # sorted block indices
    latches: list[int]
    depth: int = 1
    children: list[int] = field(default_factory=list)  # indices into Cfg.loops

    def instruction_indices(self, cfg: Cfg) -> list[int]:
        return [i for b in self.blocks for i in range(cfg.blocks[b].start, cfg.blocks[b].end)]


@dataclass
class HotLoop:
    loop: Loop
    header_label: str | None
    first_instruction: int
    last_instruction: int
    instruction_count: int
    reason: str


@dataclass
class Cfg:
    kernel: Kernel
    blocks: list[Block]
    block_of: list[int]  # instruction index -> block index
    loops: list[Loop]
    unresolved_targets: list[str]
    idom: list[int]


def build_cfg(kernel: Kernel) -> Cfg:
    insts = kernel.instructions
    n = len(insts)
    targets = {i.target for i in insts if i.target}
    leaders = {0}
    for lab, idx in kernel.labels.items():
        if lab in targets and idx < n:
            leaders.add(idx)
    for i in insts:
        if i.category in ("branch", "endpgm") and not i.mnemonic.startswith(("s_swappc", "s_call")):
            if i.index + 1 < n:
                leaders.add(i.index + 1)
    starts = sorted(leaders)
    blocks: list[Block] = []
    block_of = [0] * n
    for bi, s in enumerate(starts):
        e = starts[bi + 1] if bi + 1 < len(starts) else n
        label = next((lab for lab in insts[s].labels), None)
        blocks.append(Block(bi, s, e, label))
        for j in range(s, e):
            block_of[j] = bi
    unresolved: list[str] = []
    for b in blocks:
        last = insts[b.end - 1]
        m = last.mnemonic
        falls = True
        if last.category == "endpgm" or m.startswith("s_setpc") or m.startswith("s_branch"):
            falls = False
        if last.target is not None and m.startswith(("s_branch", "s_cbranch")):
            t = kernel.labels.get(last.target)
            if t is not None and t < n:
                b.succs.append(block_of[t])
            else:
                unresolved.append(last.target)
        if falls and b.end < n and (b.index + 1) not in b.succs:
            b.succs.append(b.index + 1)
    for b in blocks:
        for s in b.succs:
            blocks[s].preds.append(b.index)
    idom = _dominators(blocks)
    loops = _natural_loops(blocks, idom)
    return Cfg(kernel, blocks, block_of, loops, unresolved, idom)


def _dominators(blocks: list[Block]) -> list[int]:
    """Immediate dominators (Cooper-Harvey-Kennedy); unreachable blocks get -1."""
    order: list[int] = []
    seen = set()
    stack = [(0, iter(blocks[0].succs))] if blocks else []
    seen.add(0)
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(node)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(blocks[nxt].succs)))
    rpo = order[::-1]
    pos = {b: i for i, b in enumerate(rpo)}
    idom = [-1] * len(blocks)
    if not blocks:
        return idom
    idom[0] = 0
    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            new = -1
            for p in blocks[b].preds:
                if idom[p] == -1:
                    continue
                if new == -1:
                    new = p
                    continue
                x, y = p, new
                while x != y:
                    while pos[x] > pos[y]:
                        x = idom[x]
                    while pos[y] > pos[x]:
                        y = idom[y]
                new = x
            if new != idom[b]:
                idom[b] = new
                changed = True
    return idom


def dominates(idom: list[int], a: int, b: int) -> bool:
    while True:
        if a == b:
            return True
        if b == 0 or idom[b] == -1 or idom[b] == b:
            return False
        b = idom[b]


def _natural_loops(blocks: list[Block], idom: list[int]) -> list[Loop]:
    by_header: dict[int, tuple[set[int], list[int]]] = {}
    for b in blocks:
        if idom[b.index] == -1:
            continue
        for s in b.succs:
            if dominates(idom, s, b.index):
                body, latches = by_header.setdefault(s, ({s}, []))
                latches.append(b.index)
                stack = [b.index]
                while stack:
                    x = stack.pop()
                    if x not in body:
                        body.add(x)
                        stack.extend(blocks[x].preds)
    loops = [Loop(h, sorted(body), sorted(latches)) for h, (body, latches) in sorted(by_header.items())]
    sets = [set(lp.blocks) for lp in loops]
    for i, lp in enumerate(loops):
        parents = [j for j in range(len(loops)) if j != i and sets[i] < sets[j]]
        lp.depth = 1 + len(parents)
        if parents:
            parent = min(parents, key=lambda j: len(sets[j]))
            loops[parent].children.append(i)
    return loops


def loop_op_counts(cfg: Cfg, loop: Loop) -> dict[str, int]:
    counts: dict[str, int] = {}
    for i in loop.instruction_indices(cfg):
        c = cfg.kernel.instructions[i].category
        counts[c] = counts.get(c, 0) + 1
    return counts


def find_hot_loop(cfg: Cfg) -> HotLoop | None:
    """The innermost loop with the most MFMA + memory instructions (ties: the larger body), or None."""
    inner = [lp for lp in cfg.loops if not lp.children]
    if not inner:
        return None

    def weight(lp: Loop) -> tuple[int, int, int]:
        c = loop_op_counts(cfg, lp)
        mfma = c.get("mfma", 0)
        mem = sum(c.get(k, 0) for k in MEMORY_CATEGORIES)
        return mfma + mem, mfma, len(lp.instruction_indices(cfg))

    ranked = sorted(inner, key=weight, reverse=True)
    best = ranked[0]
    score, mfma, size = weight(best)
    idx = best.instruction_indices(cfg)
    header = cfg.blocks[best.header]
    label = header.label
    reason = (
        f"innermost loop headed by {label or f'block {best.header}'} (depth {best.depth}, {len(best.blocks)} blocks, "
        f"{size} instructions) has the most MFMA + memory instructions: {mfma} MFMA, {score - mfma} memory"
    )
    if len(ranked) > 1:
        reason += f"; {len(ranked) - 1} other innermost loop(s) have at most {weight(ranked[1])[0]}"
    else:
        reason += "; it is the only innermost loop"
    return HotLoop(best, label, min(idx), max(idx), len(idx), reason)
