"""Triton IR (TTIR) and MLIR text: the lexical pieces every reader of a ``ttir`` (or FlyDSL ``origin``) stage shares.

Pure text functions over the MLIR that dump-ir keeps, defined once here and read by the timing model's TTIR walks
(``tools.predict``: trips, atomics, coalescing, floors) and the static checks (``tools.check``). ``tools.isa.ttgir``
is the layout-aware reader beside it.

- location attributes: ``loc(#loc3)``, ``loc("k.py":40:5)``, ``loc("acc"(#loc1))``, ``loc(callsite(#a at #b))``
  (one level of nested parentheses) are stripped from an operation line with ``strip_loc``; the trailing reference
  is read with ``LOC_REF_RE``; ``loc_lines`` resolves references to source lines through the ``#locN = loc(...)``
  definitions at the end of the module;
- an operation line ``%r = dialect.op operands : types`` (``OP_RE``), a function argument ``%arg0: !tt.ptr<f32>``
  (``ARG_RE``), an SSA value name (``VALUE_RE``), ``tt.get_program_id x`` (``PID_RE``) and an ``scf.for`` header
  (``FOR_RE``).
"""

from __future__ import annotations

import re

# a location attribute with what precedes it: `` loc(#loc3)``, `` loc("k.py":4:1)``, `` loc(callsite(#a at #b))``
LOC_RE = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)")
# the location reference that ends an operation line: ``#loc6`` or an inline ``"k.py":40:5``
LOC_REF_RE = re.compile(r"\bloc\((#loc\d*|\"[^\"]*\":\d+:\d+)\)\s*$")
# a location definition at the end of a module: ``#loc6 = loc("k.py":40:5)``
LOC_DEF_RE = re.compile(r"^(#loc\d*)\s*=\s*loc\((.*)\)\s*$", re.M)
_LOC_LINE_RE = re.compile(r"\"[^\"]*\":(\d+):\d+")
_LOC_ALIAS_RE = re.compile(r"#loc\d*")

# ``%r = op rest`` / ``%r:2 = op rest``: (result, op, rest)
OP_RE = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)?\s*=\s*([\w.]+)\s*(.*)$")
# a function argument and its type: ``%arg0: !tt.ptr<f32>`` / ``%arg3: i32``
ARG_RE = re.compile(r"(%[\w.$-]+)\s*:\s*(![\w.]+<[^>]*>|\w+)")
VALUE_RE = re.compile(r"%[\w.$-]+")
PID_RE = re.compile(r"tt\.get_program_id\s+([xyz])")
# ``scf.for %iv = %lo to %hi step %step``: (iv, lo, hi, step)
FOR_RE = re.compile(r"scf\.for\s+(%[\w.$-]+)\s*=\s*(%[\w.$-]+)\s+to\s+(%[\w.$-]+)\s+step\s+(%[\w.$-]+)")

MAX_LOC_ALIASES = 16  # a chain of named/call-site locations followed this deep before giving up


def strip_loc(text: str) -> str:
    """``%0 = tt.load %p loc(#loc3)`` → ``%0 = tt.load %p``: every location attribute removed (a line or a module)."""
    return LOC_RE.sub("", text)


def loc_lines(text: str, refs: list[str | None]) -> list[int | None]:
    """The source line each location reference names (``#loc6`` → ``#loc6 = loc("k.py":40:5)`` → 40), through
    named and call-site locations (their first file location); None where none is found."""
    defs = dict(LOC_DEF_RE.findall(text))
    out = []
    for ref in refs:
        line = None
        for _ in range(MAX_LOC_ALIASES):
            if ref is None:
                break
            body = defs.get(ref, ref)
            hit = _LOC_LINE_RE.search(body)
            if hit:
                line = int(hit.group(1))
                break
            alias = _LOC_ALIAS_RE.search(body)
            ref = alias.group(0) if alias and alias.group(0) != ref else None
        out.append(line)
    return out
