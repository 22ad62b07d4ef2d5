"""The AMDGCN wait counters: which instruction occupies a slot of which counter, and what count a wait asks for.

ISA semantics, read by every analysis that walks waits (prefetch-data-load's load records and latencies, the timing
model's bytes in flight, the schedule view). On gfx9 ``vmcnt`` counts outstanding vector-memory operations that
return in issue order, stores and atomics included; on gfx12 ``loadcnt`` counts loads (and returning atomics) only.
``lgkmcnt`` (gfx12: ``kmcnt`` for scalar memory, ``dscnt`` for LDS) retires scalar loads out of order, so only a
count of 0 retires a given one. (CDNA3 ISA §4.4 "Data dependency resolution"; RDNA4 ISA §5.4 "S_WAIT_*".)
"""

from __future__ import annotations

import re

from tools.isa.amdgcn import Instruction
from tools.isa.mnemonics import VMEM_LOAD_CLASSES

_VMCNT_RE = re.compile(r"vmcnt\((\d+)\)")
_LGKMCNT_RE = re.compile(r"lgkmcnt\((\d+)\)")
_COUNT_RE = re.compile(r"(0x[0-9a-fA-F]+|\d+)\s*$")


def counts_in_vmcnt(inst: Instruction, arch: str | None) -> bool:
    """Does this instruction occupy a vmcnt (loadcnt on gfx12) slot?"""
    c = inst.category
    gfx9 = arch is None or arch.startswith("gfx9")
    if c in VMEM_LOAD_CLASSES or c == "scratch_load":
        return True
    if c in ("vmem_store", "scratch_store"):
        return gfx9
    if c == "vmem_atomic":
        return gfx9 or "_rtn" in inst.mnemonic
    return False


def is_scalar_load(inst: Instruction) -> bool:
    """A scalar-memory load (``s_load_*``, ``s_buffer_load_*``): lgkmcnt (kmcnt on gfx12) retires it."""
    return inst.category == "smem" and inst.mnemonic.startswith(("s_load", "s_buffer_load"))


def explicit_count(inst: Instruction) -> int | None:
    """The count written as the last operand of a one-counter wait (``s_waitcnt_vmcnt null, 0x3`` → 3)."""
    m = _COUNT_RE.search(inst.text)
    return int(m.group(1), 0) if m else None


def vmcnt_of(inst: Instruction) -> int | None:
    """The vmcnt/loadcnt a wait asks for, or None when it does not wait on vector memory."""
    if inst.mnemonic == "s_waitcnt":
        m = _VMCNT_RE.search(inst.modifiers + " " + inst.text)
        return int(m.group(1)) if m else None
    if inst.mnemonic in ("s_waitcnt_vmcnt", "s_wait_loadcnt"):
        return explicit_count(inst)
    if inst.mnemonic == "s_wait_loadcnt_dscnt" and explicit_count(inst) == 0:
        return 0
    return None


def lgkmcnt_of(inst: Instruction) -> int | None:
    """The lgkmcnt (kmcnt on gfx12) a wait asks for, or None when it does not wait on scalar memory."""
    if inst.mnemonic == "s_waitcnt":
        m = _LGKMCNT_RE.search(inst.modifiers + " " + inst.text)
        return int(m.group(1)) if m else None
    if inst.mnemonic in ("s_waitcnt_lgkmcnt", "s_wait_kmcnt"):
        return explicit_count(inst)
    return None


def lgkm_want(inst: Instruction, gfx12: bool) -> int | None:
    """The lgkmcnt a wait asks for (gfx12: the dscnt of ``s_wait_dscnt`` too), or None when it does not wait on it."""
    if gfx12 and inst.mnemonic == "s_wait_dscnt":
        return explicit_count(inst)
    return lgkmcnt_of(inst)
