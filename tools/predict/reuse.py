"""Re-reads one program's loads serve from the SM's L1 (issue 31: the depthwise convolution's taps).

A stencil's taps load shifted copies of one tile (``x[h + kh - 1, w + kw - 1, c]`` for nine ``(kh, kw)``): the ISA
requests nine tiles, but the lines the taps share are fetched once into the SM's L1 (global loads are cached in L1 by
default on sm_70 and later) and the other taps hit there. The model's L2 term counts every requested byte
(``model.py``), so it charges nine tiles where the L2 serves about three.

This module evaluates, on the launch's scalar arguments, the addresses each ``tt.load`` of a straight-line Triton
kernel (no ``scf`` region) touches in a few sampled programs: per program, the 32-byte sectors each load touches on
its own (what the L2 would serve without reuse) against the distinct sectors all loads of one pointer argument touch
together (what it serves when the re-reads hit L1). Masked-off lanes touch nothing. The hit fraction is scaled down
when the resident programs' distinct footprints do not fit the L1 left beside their shared memory (``l1_bytes``).

Anything the evaluator does not follow (a loop, a gather whose offsets are loaded, an op it does not know) gives no
reuse: the model keeps every requested byte, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tools.isa.ttir import LOC_RE as _LOC_RE
from tools.isa.ttir import OP_RE as _DEF_RE
from tools.isa.ttir import VALUE_RE as _NAME_RE

_FUNC_RE = re.compile(r"tt\.func\b[^(]*\((.*)\)\s*(?:attributes|\{)")
_ARG_RE = re.compile(r"(%[\w.$-]+)\s*:\s*(!tt\.ptr<(\w+)>|i\d+)")
_RESULT_TENSOR_RE = re.compile(r"tensor<([\dx]+)x(?:!tt\.ptr<)?(\w+)>*\s*$")
_PTR_ELEM_RE = re.compile(r"!tt\.ptr<(\w+)>")
_INT_RE = re.compile(r"^(-?\d+)\s*:")
_DENSE_RE = re.compile(r"^dense<(-?\d+|true|false)>\s*:\s*tensor<([\dx]+)x")
_RANGE_RE = re.compile(r"end\s*=\s*(\d+)\s*:\s*i32,\s*start\s*=\s*(\d+)")
_AXIS_RE = re.compile(r"axis\s*=\s*(\d+)")
_ELEM_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1, "i1": 1}
_FP8 = ("f8", "F8")
_BINARY = {
    "arith.addi": np.add,
    "arith.subi": np.subtract,
    "arith.muli": np.multiply,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "arith.minsi": np.minimum,
    "arith.maxsi": np.maximum,
    "arith.shli": np.left_shift,
    "arith.shrsi": np.right_shift,
}
_CMP = {
    "eq": np.equal,
    "ne": np.not_equal,
    "slt": np.less,
    "sle": np.less_equal,
    "sgt": np.greater,
    "sge": np.greater_equal,
    "ult": np.less,
    "ule": np.less_equal,
    "ugt": np.greater,
    "uge": np.greater_equal,
}
_CASTS = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.bitcast")
SAMPLES = 3


@dataclass
class L1Reuse:
    """Per program (mean of the sampled ones): sectors the loads request one by one, and the distinct ones."""

    requested_sectors: float
    distinct_sectors: float
    sector_bytes: int

    @property
    def hit_fraction(self) -> float:
        """The share of requested load sectors that hit a line an earlier load of the program brought in."""
        if self.requested_sectors <= 0:
            return 0.0
        return max(0.0, 1.0 - self.distinct_sectors / self.requested_sectors)

    @property
    def footprint_bytes(self) -> float:
        return self.distinct_sectors * self.sector_bytes


def _elem_bytes(name: str) -> int | None:
    if name.startswith(_FP8):
        return 1
    return _ELEM_BYTES.get(name)


def _div(a, b, rem: bool):
    """C-style (truncating) signed division and remainder, as arith.divsi / remsi; None on a zero divisor."""
    b = np.asarray(b)
    if np.any(b == 0):
        return None
    q = np.trunc(np.asarray(a, dtype=np.float64) / b).astype(np.int64)
    return np.asarray(a) - q * b if rem else q


class _Unknown(Exception):
    """The evaluator met something it does not follow: no reuse is claimed."""


def _reshaped(op: str, rest: str, line: str):
    """The array function of a ``tt.expand_dims`` (its axis) or a ``tt.splat`` / ``tt.broadcast`` (its result shape)."""
    if op == "tt.expand_dims":
        ax = _AXIS_RE.search(rest)
        if not ax:
            raise _Unknown(line)
        axis = int(ax.group(1))
        return lambda a: np.expand_dims(a, axis)
    shape_m = _RESULT_TENSOR_RE.search(rest)
    if not shape_m:
        raise _Unknown(line)
    shape = [int(s) for s in shape_m.group(1).split("x")]
    return lambda a: np.broadcast_to(a, shape)


def _program(lines: list[str], args: dict, pid: tuple[int, int, int], sector: int) -> tuple[int, int]:  # noqa: C901 — one case per op kind
    """(sectors requested load by load, distinct sectors per pointer argument) of one program."""
    env: dict[str, object] = dict(args["scalars"])
    ptrs: dict[str, tuple[str, np.ndarray, int]] = {name: (name, np.zeros(()), eb) for name, eb in args["ptrs"].items()}
    requested = 0
    union: dict[str, set] = {}
    for line in lines:
        d = _DEF_RE.match(line)
        if not d:
            continue
        name, op, rest = d.groups()
        ops = _NAME_RE.findall(rest)
        if op == "arith.constant":
            hit = _INT_RE.match(rest) or _DENSE_RE.match(rest)
            if not hit:
                continue  # a float constant: never an address
            v = {"true": 1, "false": 0}.get(hit.group(1), None)
            v = int(hit.group(1)) if v is None else v
            if _DENSE_RE.match(rest):
                shape = [int(s) for s in hit.group(2).split("x")]
                env[name] = np.full(shape, v, dtype=np.int64)
            else:
                env[name] = np.int64(v)
        elif op == "tt.get_program_id":
            env[name] = np.int64(pid["xyz".index(rest.split()[0])])
        elif op == "tt.make_range":
            r = _RANGE_RE.search(rest)
            if not r:
                raise _Unknown(line)
            env[name] = np.arange(int(r.group(2)), int(r.group(1)), dtype=np.int64)
        elif op in ("tt.splat", "tt.broadcast", "tt.expand_dims"):
            env_or_ptr = _reshaped(op, rest, line)
            src = ops[0]
            if src in ptrs:
                arg, offs, eb = ptrs[src]
                ptrs[name] = (arg, env_or_ptr(offs), eb)
            elif src in env:
                env[name] = env_or_ptr(np.asarray(env[src]))
        elif op == "tt.addptr":
            base, off = ops[0], ops[1]
            if base in ptrs and off in env:
                arg, offs, eb = ptrs[base]
                ptrs[name] = (arg, offs + np.asarray(env[off]), eb)
        elif op in _BINARY:
            if ops[0] in env and ops[1] in env:
                env[name] = _BINARY[op](np.asarray(env[ops[0]]), np.asarray(env[ops[1]]))
        elif op in ("arith.divsi", "arith.remsi", "arith.divui", "arith.remui"):
            if ops[0] in env and ops[1] in env:
                v = _div(env[ops[0]], env[ops[1]], op.startswith("arith.rem"))
                if v is not None:
                    env[name] = v
        elif op == "arith.cmpi":
            pred = rest.split(",")[0].strip()
            if pred in _CMP and ops[0] in env and ops[1] in env:
                env[name] = _CMP[pred](np.asarray(env[ops[0]]), np.asarray(env[ops[1]])).astype(np.int64)
        elif op == "arith.select":
            if all(o in env for o in ops[:3]):
                env[name] = np.where(np.asarray(env[ops[0]]) != 0, env[ops[1]], env[ops[2]])
        elif op in _CASTS:
            if ops[0] in env:
                env[name] = np.asarray(env[ops[0]])
        elif op == "tt.load":
            if ops[0] not in ptrs:
                raise _Unknown(f"a load whose address is not followed: {line.strip()[:80]}")
            arg, offs, eb = ptrs[ops[0]]
            offs = np.asarray(offs)
            if len(ops) > 1:
                if ops[1] not in env:
                    raise _Unknown(f"a load whose mask is not followed: {line.strip()[:80]}")
                offs = offs[np.broadcast_to(np.asarray(env[ops[1]]) != 0, offs.shape)]
            sectors = np.unique(offs.reshape(-1) * eb // sector)
            requested += len(sectors)
            union.setdefault(arg, set()).update(sectors.tolist())
    return requested, sum(len(s) for s in union.values())


def l1_reuse(ttir: str, scalars: dict[str, int], grid: list[int], sector: int) -> L1Reuse | None:
    """The sampled programs' load sectors (requested one load at a time, and distinct), or None where the kernel has
    a loop or a branch, an address or mask the evaluator does not follow, or no load."""
    text = "\n".join(_LOC_RE.sub("", ln) for ln in ttir.splitlines())
    if re.search(r"\bscf\.(for|if|while)\b", text):
        return None
    head = _FUNC_RE.search(text)
    if not head:
        return None
    args: dict = {"scalars": {}, "ptrs": {}}
    pos = 0
    for a in _ARG_RE.finditer(head.group(1)):
        name, typ, elem = a.groups()
        if elem:
            eb = _elem_bytes(elem)
            if eb is None:
                return None
            args["ptrs"][name] = eb
        else:
            v = scalars.get(name.lstrip("%"), scalars.get(str(pos)))
            if v is not None:
                args["scalars"][name] = np.int64(v)
        pos += 1
    body = text[head.end() :].splitlines()
    g = [*grid, 1, 1][:3]
    picks = [tuple(max(0, min(n - 1, (n * (2 * s + 1)) // (2 * SAMPLES))) for n in g) for s in range(SAMPLES)]
    req = dist = 0.0
    try:
        with np.errstate(all="ignore"):
            for pid in picks:
                r, u = _program(body, args, pid, sector)
                req += r
                dist += u
    except (_Unknown, ValueError, IndexError):
        return None
    if req <= 0:
        return None
    return L1Reuse(req / len(picks), dist / len(picks), sector)


def l1_hit_fraction(reuse: L1Reuse | None, resident_blocks: int, l1_bytes: float | None, shared_bytes: int) -> float:
    """The share of a program's requested load bytes its L1 serves: the re-read share, scaled by how much of the
    resident programs' distinct footprints the L1 left beside their shared memory holds (0 without ``l1_bytes``)."""
    if reuse is None or not l1_bytes:
        return 0.0
    free = l1_bytes - resident_blocks * shared_bytes
    need = resident_blocks * reuse.footprint_bytes
    if free <= 0 or need <= 0:
        return 0.0
    return reuse.hit_fraction * min(1.0, free / need)
