"""Coalescing from Triton's TTIR: how far apart, in elements, neighbouring elements of each global access lie along
the tensor's fastest dimension (the last; Triton's default order), from the offsets' arithmetic.

Each tensor value gets a per-dimension step (``tt.make_range`` steps 1, a splat 0; adds add, a multiply by a known
scalar scales, ``expand_dims``/``broadcast`` move dimensions). Lanes of a warp walk the fastest dimension, so an
access whose step there is s elements of b bytes touches min(s x b, sector) bytes per element instead of b: the DRAM
traffic grows by that factor (and re-reads of a neighbour's sector are not assumed to hit L2).
"""

from __future__ import annotations

import re

from tools.predict.trips import access_bytes

_LOC_RE = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)")
_OP_RE = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)?\s*=\s*([\w.]+)\s*(.*)$")
_ARG_RE = re.compile(r"(%[\w.$-]+)\s*:\s*(![\w.]+<[^>]*>|\w+)")
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
                s = abs(step[-1])
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
