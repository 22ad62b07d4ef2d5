"""Register liveness of one kernel: backward dataflow over the basic-block CFG, VGPR/AGPR/SGPR as one bitset.

Counting convention (matches RGA's ``shae analyse-liveness`` 'Rn' column, checked on both gfx942 fixtures): the count
at an instruction is |live-after ∪ uses|: registers it reads are counted even on their last use, registers it writes
are counted when the value is read later, and a dead write (``v3`` of ``v_mad_u64_u32 v[2:3], …`` when ``v3`` is
overwritten before any read) is not counted — shae marks it '^' in its map but leaves it out of 'Rn'. Liveness is wave-level and exec-independent: a write under a partial exec mask
still kills, and every branch direction is possible.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.isa.amdgcn import AGPR_BASE, SGPR_BASE, VGPR_MASK, Kernel
from tools.isa.cfg import Cfg

_AGPR_LOW = VGPR_MASK  # after shifting by AGPR_BASE
_SGPR_LOW = (1 << 128) - 1


@dataclass
class Liveness:
    """Per-instruction live sets and counts; ``live_in``/``live_out`` are per block."""

    live_after: list[int]  # per instruction: live set after it
    vgpr: list[int]  # per instruction: counts as defined in the module docstring
    agpr: list[int]
    sgpr: list[int]
    live_in: list[int]
    live_out: list[int]

    @property
    def max_vgpr(self) -> int:
        return max(self.vgpr, default=0)

    @property
    def max_agpr(self) -> int:
        return max(self.agpr, default=0)

    @property
    def max_sgpr(self) -> int:
        return max(self.sgpr, default=0)

    def at(self, index: int, kernel: Kernel) -> int:
        """The set the count at ``index`` is taken over."""
        i = kernel.instructions[index]
        return self.live_after[index] | i.uses


def vgprs(mask: int) -> list[int]:
    return _bits(mask & VGPR_MASK)


def agprs(mask: int) -> list[int]:
    return _bits((mask >> AGPR_BASE) & _AGPR_LOW)


def sgprs(mask: int) -> list[int]:
    return _bits((mask >> SGPR_BASE) & _SGPR_LOW)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def compute_liveness(cfg: Cfg) -> Liveness:
    insts = cfg.kernel.instructions
    blocks = cfg.blocks
    nb = len(blocks)
    gen = [0] * nb
    kill = [0] * nb
    for b in blocks:
        g = k = 0
        for j in range(b.end - 1, b.start - 1, -1):
            i = insts[j]
            g = (g & ~i.defs) | i.uses
            k |= i.defs
        gen[b.index] = g
        kill[b.index] = k
    live_in = [0] * nb
    live_out = [0] * nb
    work = list(range(nb))
    in_work = [True] * nb
    while work:
        b = work.pop()
        in_work[b] = False
        out = 0
        for s in blocks[b].succs:
            out |= live_in[s]
        live_out[b] = out
        new_in = gen[b] | (out & ~kill[b])
        if new_in != live_in[b]:
            live_in[b] = new_in
            for p in blocks[b].preds:
                if not in_work[p]:
                    in_work[p] = True
                    work.append(p)
    n = len(insts)
    after = [0] * n
    vc = [0] * n
    ac = [0] * n
    sc = [0] * n
    vmask, amask, smask = VGPR_MASK, _AGPR_LOW, _SGPR_LOW
    abase, sbase = AGPR_BASE, SGPR_BASE
    for b in blocks:
        live = live_out[b.index]
        for j in range(b.end - 1, b.start - 1, -1):
            i = insts[j]
            after[j] = live
            d, u = i.defs, i.uses
            at = live | u
            vc[j] = (at & vmask).bit_count()
            if at >> abase:
                ac[j] = ((at >> abase) & amask).bit_count()
                sc[j] = ((at >> sbase) & smask).bit_count()
            live = (live & ~d) | u
    return Liveness(after, vc, ac, sc, live_in, live_out)
