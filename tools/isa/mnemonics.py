"""AMDGCN mnemonic classes: the one place that says what an instruction is (``vmem_load``, ``lds_read``, ``mfma``…).

Used by the parser (``tools.isa.amdgcn``), the analyses and the profiler's stall classes; pure text.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

# The comment LLVM puts on a spill or reload (``; 4-byte Folded Spill``).
SPILL_COMMENT_RE = re.compile(r"Folded (Spill|Reload)|\bSpill\b|\bReload\b")

# Matrix instructions of every generation: MFMA/SMFMAC (CDNA), WMMA/SWMMAC (RDNA3+). The one MFMA classification here.
MFMA_PREFIXES = ("v_mfma", "v_smfmac", "v_wmma", "v_swmmac")


# Every class classify returns: the one set, read by Instruction.category and by the groups below (compare a class
# with these, not with a prefix of its name).
InstructionClass = Literal[
    "mfma", "accvgpr_move", "cndmask", "valu",
    "waitcnt", "barrier", "branch", "nop", "endpgm", "smem", "salu",
    "lds_read", "lds_write", "lds_other",
    "scratch_load", "scratch_store",
    "vmem_atomic", "vmem_load", "vmem_load_lds", "vmem_store", "vmem_other",
    "other",
]  # fmt: skip
INSTRUCTION_CLASSES: tuple[str, ...] = get_args(InstructionClass)
VMEM_CLASSES = frozenset({"vmem_load", "vmem_load_lds", "vmem_store", "vmem_atomic", "vmem_other"})  # buffer/global/…
VMEM_LOAD_CLASSES = frozenset({"vmem_load", "vmem_load_lds"})  # loads from memory, into VGPRs or straight to LDS
LDS_CLASSES = frozenset({"lds_read", "lds_write", "lds_other"})  # ds_* instructions
SCRATCH_CLASSES = frozenset({"scratch_load", "scratch_store"})  # scratch_* and (pre-gfx940) spills through buffer ops


def classify(mnemonic: str, modifiers: str = "", comment: str = "") -> InstructionClass:
    """Category of an instruction; the names are the report's words (``vmem_load``, ``lds_read``, ``mfma``…)."""
    m = mnemonic
    if m.startswith("v_"):
        if m.startswith(MFMA_PREFIXES):
            return "mfma"
        if m.startswith("v_accvgpr"):
            return "accvgpr_move"
        if m.startswith("v_cndmask"):
            return "cndmask"
        return "valu"
    if m.startswith("s_"):
        if m.startswith(("s_waitcnt", "s_wait_")):
            return "waitcnt"
        if m.startswith("s_barrier"):
            return "barrier"
        if m.startswith(("s_branch", "s_cbranch", "s_setpc", "s_swappc", "s_call")):
            return "branch"
        if m == "s_nop":
            return "nop"
        if m == "s_endpgm" or m.startswith("s_endpgm"):
            return "endpgm"
        if m.startswith(("s_load", "s_buffer_load", "s_scratch_load", "s_store", "s_buffer_store", "s_dcache")):
            return "smem"
        return "salu"
    if m.startswith("ds_"):
        if m.startswith(("ds_read", "ds_load")):
            return "lds_read"
        if m.startswith(("ds_write", "ds_store")):
            return "lds_write"
        return "lds_other"
    spill = bool(SPILL_COMMENT_RE.search(comment))
    if m.startswith("scratch_"):
        return "scratch_load" if "_load" in m else "scratch_store"
    if m.startswith(("buffer_", "global_", "flat_", "tbuffer_", "image_")):
        if "atomic" in m:
            return "vmem_atomic"
        is_load = "_load" in m or m.startswith("image_sample") or m.startswith("image_gather")
        if spill:  # pre-gfx940 spills go through buffer ops on the scratch descriptor
            return "scratch_load" if is_load else "scratch_store"
        if is_load:
            return "vmem_load_lds" if re.search(r"(^|\s)lds(\s|$)", modifiers) or "_lds_" in m else "vmem_load"
        if "_store" in m:
            return "vmem_store"
        return "vmem_other"
    return "other"
