"""Look-ahead loads through buffer descriptors without bounds (AMDGCN).

A buffer descriptor's third dword is ``num_records``: loads at or past it return 0. FlyDSL's default descriptor
(``make_buffer_ptr`` without ``num_records_bytes``) sets it to 0xFFFFFFFF, so nothing is checked: a load issued for
the next iteration (``i + 1``, ``i + 2``) past the end of its tensor reads whatever memory is there. Such a load's
index must be clamped (``min``/``max``/``med3``/a select) or its descriptor must carry the tensor's size.
"""

from __future__ import annotations

from tools.isa.amdgcn import Instruction, Kernel, reg_mask
from tools.models.prefetch import LoadSite

MAX_DEPTH = 12  # instructions followed back from a load's offset
UNBOUNDED = ("-1", "0xffffffff", "4294967295")
_CLAMPS = ("min", "max", "med3", "cndmask", "cselect")


def _reaching(kernel: Kernel, mask: int, before: int) -> Instruction | None:
    """The nearest instruction before ``before`` in program order that writes any of ``mask``."""
    for i in reversed(kernel.instructions[:before]):
        if i.defs & mask:
            return i
    return None


def _unbounded(kernel: Kernel, load: Instruction) -> bool:
    """The load's descriptor (its 4-SGPR operand) has num_records -1, set by ``s_mov_b32`` (through copies)."""
    desc = next((op for op in load.operands if op.kind == "s" and op.count == 4), None)
    if desc is None:
        return False
    mask = 1 << (reg_mask(desc).bit_length() - 2)  # the descriptor's third dword (num_records)
    at = load.index
    for _ in range(MAX_DEPTH):
        d = _reaching(kernel, mask, at)
        if d is None or d.mnemonic != "s_mov_b32" or len(d.operands) < 2:
            return False
        src = d.operands[1]
        if src.kind != "s":
            return src.text.lower() in UNBOUNDED
        mask, at = reg_mask(src), d.index
    return False


def _offset_clamped_or_loaded(kernel: Kernel, load: Instruction) -> bool:
    """True when the chain computing the load's offset (its registers other than the data and the descriptor) holds a
    clamp, or starts at another load (an index read from memory: that load is the one to check)."""
    desc = next((op for op in load.operands if op.kind == "s" and op.count == 4), None)
    regs = [op for op in load.operands[1:] if op.is_reg and op is not desc]
    stack = [(reg_mask(op), load.index) for op in regs]
    seen: set[int] = set()
    while stack and len(seen) < MAX_DEPTH:
        mask, at = stack.pop()
        d = _reaching(kernel, mask, at)
        if d is None or d.index in seen:
            continue
        seen.add(d.index)
        if any(c in d.mnemonic for c in _CLAMPS) or d.category in ("vmem_load", "smem", "lds_read"):
            return True
        stack.extend((reg_mask(op), d.index) for op in d.operands[1:] if op.is_reg)
    return False


def unchecked_lookahead(kernel: Kernel, loads: list[LoadSite]) -> list[str]:
    """A warning per load consumed in a later iteration that goes through a descriptor without bounds and whose
    offset is computed without a clamp."""
    out = []
    for ld in loads:
        inst = kernel.instructions[ld.index]
        if ld.consumed != "next-iteration" or not inst.mnemonic.startswith("buffer_load"):
            continue
        if _unbounded(kernel, inst) and not _offset_clamped_or_loaded(kernel, inst):
            out.append(
                f"look-ahead load [{ld.index}] `{inst.text}` {ld.source or ''} goes through a buffer descriptor "
                "without bounds (num_records 0xFFFFFFFF, FlyDSL's default) and its offset is computed without a "
                "clamp: in the last iterations it reads past the tensor, whatever memory is there. Clamp the "
                "look-ahead index (fx.min(i + 2, n - 1)) or give the descriptor the tensor's size "
                "(make_buffer_ptr(..., num_records_bytes=...))"
            )
    return out
