"""Inline asm check runs: the few one-instruction forms kernels use to pin a value or read a lane, run as the move
they are. Any other text is :class:`UnsupportedIR` (``inline asm "<text>"``): the verdict is ``undetermined``.

* ``v_mov_b32 $0, $1`` (``=v,v``): a copy, often there only to keep the compiler from moving or merging a value;
* ``v_readlane_b32 $0, $1, $2`` / ``v_readfirstlane_b32 $0, $1``: the lane read of ``llvm.amdgcn.readlane`` /
  ``readfirstlane``;
* ``s_nop N`` and the empty string: nothing runs; an empty string with outputs (``=v,0``) hands each output the input
  tied to it (the pinning idiom), and an untied output would be whatever the register held, so it is refused.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools.check.errors import UnsupportedIR
from tools.check.ir import Instr, unsupported
from tools.check.ops_amdgcn import readfirstlane, readlane
from tools.errors import CompileError

_FORMS = [
    (re.compile(r"v_mov_b32(?:_e32)?\s+\$0\s*,\s*\$1"), "mov"),
    (re.compile(r"v_readlane_b32\s+\$0\s*,\s*\$1\s*,\s*\$2"), "readlane"),
    (re.compile(r"v_readfirstlane_b32\s+\$0\s*,\s*\$1"), "readfirstlane"),
    (re.compile(r"s_nop\s+(?:0x[0-9a-fA-F]+|\d+)"), "nop"),
    (re.compile(r""), "empty"),
]


def _constraints(text: str) -> tuple[list[str], list[str]]:
    """Output and input constraint codes (clobbers ``~{…}`` dropped): ``=v,v,~{vcc}`` → (['v'], ['v'])."""
    items = [c.strip() for c in text.split(",") if c.strip() and not c.strip().startswith("~")]
    outs = [c.lstrip("=&") for c in items if c.startswith("=")]
    return outs, [c for c in items if not c.startswith("=")]


def _one_statement(text: str) -> str:
    """The asm text without comments and blank statements; more than one real statement stays as written."""
    parts = [p.split(";")[0].strip() for p in re.split(r"[\n]", text)]
    parts = [p for p in parts if p]
    return parts[0] if len(parts) == 1 else ("" if not parts else text)


def asm_handler(ins: Instr):
    """The handler for an inline asm call, chosen when the kernel is bound; one that raises for any other text."""
    text, constraints = ins.extra["asm"]
    stmt = _one_statement(text)
    outs, ins_c = _constraints(constraints)
    kind = next((k for pattern, k in _FORMS if pattern.fullmatch(stmt)), None)
    words_ok = all(op.ty.size <= 4 for op in ins.ops) and (ins.ty.kind == "void" or ins.ty.size <= 4)
    if kind == "mov" and outs == ["v"] and len(ins_c) == 1 and words_ok:
        return lambda m, i: m.get(i.ops[0])
    if kind == "readlane" and len(outs) == 1 and len(ins_c) == 2 and words_ok:
        return readlane
    if kind == "readfirstlane" and len(outs) == 1 and len(ins_c) == 1 and words_ok:
        return readfirstlane
    if kind == "nop" and not outs:
        return lambda m, i: None
    if kind == "empty":
        if not outs:
            return lambda m, i: None  # keeps its inputs alive in registers: no effect on values
        ties = [int(c) for c in ins_c if c.isdigit()]
        if sorted(ties) == list(range(len(outs))):  # every output tied to an input: it is that input
            order = [next(k for k, c in enumerate(ins_c) if c == str(o)) for o in range(len(outs))]
            if len(outs) == 1:
                return lambda m, i: m.get(i.ops[order[0]])
            return lambda m, i: [m.full(m.get(i.ops[k]), i.ops[k].ty) for k in order]
    shown = text.replace("\n", "\\n")
    return _refuse(f'inline asm "{shown}" (constraints "{constraints}")')


_ASSEMBLER_REJECTS = re.compile(r"assembler:(\d+):\d+: error: ([^\n]*)\n[ \t]*([^\n]+)")


def rejected_asm(exc: CompileError, source: Path) -> UnsupportedIR | None:
    """The construct check cannot run when the AMD assembler refuses the build it runs (``source`` compiled for
    gfx942): Triton's own code always assembles, so what it refuses is the kernel's inline asm, written for another
    target (PTX such as ``tanh.approx.f32 $0, $1;`` for NVIDIA). None for any other compile failure."""
    m = _ASSEMBLER_REJECTS.search(exc.details or "")
    if m is None:
        return None
    return UnsupportedIR(
        f'inline asm "{m.group(3).strip()}" of {source.name}: the AMD assembler rejects it ({m.group(2).strip()}, '
        f"line {m.group(1)} of the AMDGCN built for the CPU engine); asm for another target (PTX for NVIDIA) has "
        "no AMDGPU meaning to run"
    )


def _refuse(what: str):
    def handler(m, ins):
        raise unsupported(what, ins.text)

    return handler
