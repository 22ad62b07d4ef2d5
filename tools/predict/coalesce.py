"""Coalescing from Triton's TTIR: how far apart, in elements, neighbouring elements of each global access lie along
the dimension its lanes walk, from the offsets' arithmetic. Triton's coalescing pass orders each access's layout by
the pointer's contiguity: a dimension whose offsets step 1 element becomes the lanes' fastest whichever it is (a
column-major tile walks axis 0); with none, the default order's fastest, the last.

Each tensor value gets a per-dimension step (``tt.make_range`` steps 1, a splat 0; adds add, a multiply by a known
scalar scales, ``expand_dims``/``broadcast`` move dimensions). Lanes of a warp walk the fastest dimension, so an
access whose step there is s elements of b bytes touches min(s x b, sector) bytes per element instead of b: the DRAM
traffic grows by that factor (and re-reads of a neighbour's sector are not assumed to hit L2).
"""

from __future__ import annotations

import math
import re

from tools.isa.ttir import ARG_RE as _ARG_RE
from tools.isa.ttir import LOC_RE as _LOC_RE
from tools.isa.ttir import OP_RE as _OP_RE
from tools.predict.trips import access_bytes

_DENSE_RE = re.compile(r"dense<(-?\d+)>")
_SHAPE_RE = re.compile(r"tensor<([\dx]+)x")


def _rank(typ: str) -> int:
    m = _SHAPE_RE.search(typ)
    return len(m.group(1).split("x")) if m else 0


def access_factors(text: str, scalars: dict[str, int], sector_bytes: int) -> list[tuple[int, float]]:
    """(bytes per program, traffic factor) of each global tt.load / tt.store the strides could be followed for."""
    steps: dict[str, list[float] | None] = {}
    values: dict[str, int] = {}
    out = []
    for raw in text.splitlines():
        line = _LOC_RE.sub("", raw).strip()
        if line.startswith("tt.func"):
            for pos, m in enumerate(_ARG_RE.finditer(line[line.index("(") + 1 :])):
                v = scalars.get(m.group(1).lstrip("%"), scalars.get(str(pos)))
                if isinstance(v, int):
                    values[m.group(1)] = v
            continue
        if line.startswith("tt.store") or " tt.load " in line or line.startswith("%") and "= tt.load" in line:
            ptr = re.search(r"tt\.(?:load|store)\s+(%[\w.$-]+)", line)
            typ = line.rsplit(" : ", 1)[-1]
            step = steps.get(ptr.group(1)) if ptr else None
            m = re.search(r"tensor<[\dx]+x!tt\.ptr<(\w+)>", typ)
            if step and m:
                elem = access_bytes(f"!tt.ptr<{m.group(1)}>")
                s = 1.0 if any(abs(x) == 1 for x in step) else abs(step[-1])
                factor = 1.0 if s <= 1 else min(s * elem, sector_bytes) / elem
                out.append((access_bytes(typ), factor))
        m = _OP_RE.match(line)
        if not m:
            continue
        name, op, rest = m.groups()
        body, _, typ = rest.partition(" : ")
        ops = [o.strip() for o in body.split(",")]
        if op == "arith.constant":
            d = _DENSE_RE.search(body)
            if d and "tensor<" in typ:
                steps[name] = [0.0] * _rank(typ)
                values[name] = int(d.group(1))
            elif re.fullmatch(r"-?\d+", body.strip()):
                values[name] = int(body.strip())
            continue
        if op in ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast") and ops[0] in values:
            values[name] = values[ops[0]]
        if "tensor<" not in typ and "tensor<" not in rest:
            continue
        rank = _rank(rest)
        if op == "tt.make_range":
            steps[name] = [1.0]
        elif op == "tt.splat":
            steps[name] = [0.0] * rank
            if ops[0] in values:
                values[name] = values[ops[0]]
        elif op == "tt.expand_dims":
            axis = re.search(r"axis = (\d+)", rest)
            src = steps.get(ops[0].split()[0])
            if src is not None and axis:
                a = int(axis.group(1))
                steps[name] = src[:a] + [0.0] + src[a:]
        elif op in ("tt.broadcast", "arith.extsi", "arith.extui", "arith.trunci"):
            steps[name] = steps.get(ops[0])
        elif op in ("arith.addi", "arith.subi", "tt.addptr") and len(ops) >= 2:
            a, b = steps.get(ops[0]), steps.get(ops[1].split()[0])
            if a is not None and b is not None and len(a) == len(b):
                steps[name] = [x + (y if op != "arith.subi" else -y) for x, y in zip(a, b, strict=True)]
        elif op == "arith.muli" and len(ops) == 2:
            a, b = steps.get(ops[0]), steps.get(ops[1])
            if a is not None and b is not None:
                if not any(b) and ops[1] in values:
                    steps[name] = [x * values[ops[1]] for x in a]
                elif not any(a) and ops[0] in values:
                    steps[name] = [x * values[ops[0]] for x in b]
                elif not any(a) and not any(b):
                    steps[name] = list(a)
    return out


def traffic_factor(text: str, scalars: dict[str, int], sector_bytes: int) -> tuple[float, str | None]:
    """The accesses' byte-weighted traffic factor (1 when coalesced or unknown), and a note when above 1."""
    found = access_factors(text, scalars, sector_bytes)
    total = sum(b for b, _ in found)
    if not total:
        return 1.0, None
    factor = sum(b * f for b, f in found) / total
    if factor <= 1.01:
        return 1.0, None
    strided = sum(1 for _, f in found if f > 1)
    return factor, (
        f"{strided} of {len(found)} global accesses step more than one element between neighbouring lanes: each "
        f"element costs a {sector_bytes}-byte sector, DRAM traffic x{factor:.2f} (TTIR offsets)"
    )


# ---- SASS: the same question from the machine code, for kernels with no TTIR (CUDA) ------------------------------

RUNTIME = math.inf  # a lane step scaled by a value known only at run time (a row length read from the parameters)
_SASS_REG_RE = re.compile(r"^-?(U?R)(\d+|Z)(?:\.reuse)?$")
_ADDR_RE = re.compile(r"\[(R\d+)(?:\.64)?(?:\+(?:UR\d+))?(?:\+?(-?0x[0-9a-f]+))?\]")
_LANE_SOURCES = ("SR_TID.X", "SR_LANEID")


def _imm(tok: str) -> int | None:
    try:
        return int(tok, 0)
    except ValueError:
        return None


def lane_steps(insts) -> dict[int, float]:
    """Per SASS instruction that reads or writes global memory, its address's step between neighbouring lanes in
    bytes (``RUNTIME`` when a lane-varying value is multiplied by a parameter). Followed from ``S2R SR_TID.X`` (step
    1) through IMAD / IADD3 / LEA / shifts / moves; uniform registers, constants and other special registers step 0.
    An instruction whose step cannot be followed is left out."""
    step: dict[str, float | None] = {}

    def of(tok: str) -> float | None:
        tok = tok.strip().split(".reuse")[0].lstrip("-|").rstrip("|")
        if tok in ("RZ", "URZ", "PT") or tok.startswith(("UR", "c[", "SR_")) or _imm(tok) is not None:
            return 0.0
        return step.get(tok)

    def scaled(a: float | None, tok: str) -> float | None:
        """a x the value of ``tok`` (an immediate, else a uniform value known only at run time)."""
        if a is None:
            return None
        if a == 0:
            return 0.0
        v = _imm(tok.strip())
        if v is not None:
            return a * v
        return RUNTIME if of(tok) == 0 else None

    out: dict[int, float] = {}
    for n, i in enumerate(insts):
        ops = [o.strip() for o in i.operands.split(",")]
        root = i.root
        if root in ("LDG", "STG", "ATOMG", "RED", "ATOM", "LD", "ST"):
            m = _ADDR_RE.search(i.operands)
            if m:
                s = step.get(m.group(1))
                if s is not None:
                    out[n] = abs(s)
        dest = ops[0] if ops and _SASS_REG_RE.match(ops[0]) else None
        if dest is None or dest.startswith("U"):
            continue
        src = [o for o in ops[1:] if not o.startswith(("P", "!P"))]  # carry / predicate operands
        val: float | None = None
        if root == "S2R":
            val = 1.0 if any(s in i.operands for s in _LANE_SOURCES) else 0.0
        elif root in ("LDC", "S2UR", "CS2R"):
            val = 0.0
        elif root == "MOV" and src:
            val = of(src[0])
        elif root == "IMAD" and len(src) >= 3:
            if ".SHL" in i.opcode or ".MOV" in i.opcode or ".IADD" in i.opcode:
                a, b, c = of(src[0]), of(src[1]), of(src[2])
                val = None if None in (a, b, c) else (scaled(a, src[1]) if ".SHL" in i.opcode else a + b) + c
                if ".MOV" in i.opcode:
                    val = c
            else:
                a, b, c = of(src[0]), of(src[1]), of(src[2])
                if None not in (a, b, c):
                    if a and b:
                        val = None
                    else:
                        prod = scaled(a, src[1]) if a else scaled(b, src[0])
                        val = None if prod is None else prod + c
        elif root in ("IADD3", "IADD", "VIADD") and src:
            parts = [of(o) for o in src]
            val = None if None in parts else sum(parts)
        elif root == "LEA" and len(src) >= 3 and ".HI" not in i.opcode:
            a, b, sh = of(src[0]), of(src[1]), _imm(src[2])
            val = None if None in (a, b) or sh is None else a * (1 << sh) + b
        elif root == "SHF" and ".L" in i.opcode and len(src) >= 2:
            a, sh = of(src[0]), _imm(src[1])
            val = None if a is None or sh is None else a * (1 << sh)
        elif root == "SHF" and ".HI" in i.opcode:
            val = 0.0  # the high word of a sign or zero extension
        step[dest] = val
    return out


def sass_traffic_factor(insts, sector_bytes: int, lanes: int = 32) -> tuple[float, str | None]:
    """The global accesses' byte-weighted DRAM traffic factor from their lane steps (``lane_steps``): an access whose
    neighbouring lanes lie s > its width apart costs min(s, sector) bytes per element, unless the same lane's other
    accesses off the same base fill its sector (a thread walking its own row). 1 when coalesced or not followed."""
    from tools.predict.nvidia import access_bytes

    steps = lane_steps(insts)
    spans: dict[str, list[tuple[int, int]]] = {}
    for n in steps:
        m = _ADDR_RE.search(insts[n].operands)
        off = _imm(m.group(2)) if m.group(2) else 0
        spans.setdefault(m.group(1), []).append((off, access_bytes(insts[n].opcode)))
    total = weighted = 0.0
    strided = 0
    for n, s in steps.items():
        width = access_bytes(insts[n].opcode)
        base = _ADDR_RE.search(insts[n].operands).group(1)
        offs = spans[base]
        span = max(o + w for o, w in offs) - min(o for o, _ in offs)
        factor = 1.0
        if s > width:
            factor = min(s, sector_bytes) / max(width, min(span, sector_bytes, s))
        factor = max(factor, 1.0)
        strided += factor > 1
        total += width * lanes
        weighted += width * lanes * factor
    if not total or weighted / total <= 1.01:
        return 1.0, None
    factor = weighted / total
    return factor, (
        f"{strided} of {len(steps)} global accesses step more than their width between neighbouring lanes (SASS "
        f"address arithmetic from SR_TID.X; a step scaled by a kernel parameter is taken as at least a "
        f"{sector_bytes}-byte sector): DRAM traffic x{factor:.2f}"
    )
