"""What one instruction costs on one machine: the one place prefetch-data-load and the timing model read it from.

``cost(inst, machine)`` looks the instruction's class up in the device file's ``instruction_classes``
(tools/isa/machines/<device>.yaml, each figure with its source): AMDGCN by its mnemonic class
(``tools.isa.mnemonics``: ``valu``, ``mfma``, ``vmem_load`` …; an MFMA by its shape in ``mfma_cycles``), SASS as
``mma`` or ``other``. The code here holds no figure: only which class an instruction is in, and the ISA's rule that
``s_nop N`` waits N+1 states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.errors import InputError
from tools.isa.amdgcn import Instruction
from tools.isa.machines import ClassCost, Machine
from tools.isa.sass import SassInst

_NOP_COUNT_RE = re.compile(r"\d+")


@dataclass(frozen=True)
class InstructionCost:
    """``issue``: cycles the instruction occupies its issue slot or pipe (an MFMA: its passes x 4); ``latency``:
    cycles until a memory instruction's result is back (None for the rest); each with the source of its figure."""

    instruction_class: str
    issue: float
    source: str
    latency: float | None = None
    latency_source: str | None = None


def class_cost(inst: Instruction | SassInst, machine: Machine) -> ClassCost:
    """The device file's entry for the instruction's class; an InputError naming the file when it has none."""
    name = ("mma" if inst.is_mma else "other") if isinstance(inst, SassInst) else inst.category
    entry = machine.instruction_classes.get(name)
    if entry is None:
        raise InputError(
            f"{machine.path or machine.name}: instruction_classes has no entry for '{name}'",
            hint=f"compare with the shipped {machine.name}.yaml: every class an instruction can be in needs "
            "{issue: <cycles or a figure's name>, source: ...}",
        )
    return entry


def cost(inst: Instruction | SassInst, machine: Machine) -> InstructionCost:
    """The issue cycles and (memory) latency of ``inst`` on ``machine``, with their sources."""
    c = class_cost(inst, machine)
    issue, source = c.issue, c.source
    if c.by_shape:
        mnemonic = inst.mnemonic
        for key, cycles in c.by_shape:
            if key in mnemonic:
                issue, source = cycles, c.by_shape_source or c.source
                break
    elif c.name == "nop" and isinstance(inst, Instruction):
        n = _NOP_COUNT_RE.search(inst.modifiers or "")
        issue = issue + int(n.group()) if n else issue
    return InstructionCost(c.name, issue, source, c.latency, c.latency_source)
