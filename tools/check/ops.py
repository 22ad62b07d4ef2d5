"""What each LLVM opcode and AMDGPU intrinsic does to a lane array (the executor's instruction set).

Handlers take the machine and the instruction and return the result value (or None); the machine merges it under
the exec mask. Integers are stored zero-extended in uint64 and wrapped to their width after every operation.
"""

from __future__ import annotations

import re

import numpy as np

from tools.check import atomics
from tools.check.inline_asm import asm_handler
from tools.check.ir import Instr, unsupported
from tools.check.ops_amdgcn import AMDGCN_INTRINSICS, rsrc_decode, rsrc_encode
from tools.check.values import WAVE, as_signed, fit_to_type, from_bytes, mask_bits, to_bytes, wide, words


def _int_binop(m, ins: Instr):
    a, b = m.get(ins.ops[0]), m.get(ins.ops[1])
    bits = ins.ty.scalar.bits
    op = ins.opcode
    if bits > 64:
        raise unsupported(f"i{bits} {op}", ins.text)
    if bits == 1:
        a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
        table = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor, "add": np.logical_xor,
                 "sub": np.logical_xor, "mul": np.logical_and}  # fmt: skip
        if op not in table:
            raise unsupported(f"i1 {op}", ins.text)
        return table[op](a, b)
    a = np.asarray(a, dtype=np.uint64)
    b = np.asarray(b, dtype=np.uint64)
    if op == "add":
        r = a + b
    elif op == "sub":
        r = a - b
    elif op == "mul":
        r = a * b
    elif op == "and":
        r = a & b
    elif op == "or":
        r = a | b
    elif op == "xor":
        r = a ^ b
    elif op == "shl":
        r = np.where(b < bits, a << np.minimum(b, np.uint64(63)), np.uint64(0))
    elif op == "lshr":
        r = np.where(b < bits, a >> np.minimum(b, np.uint64(63)), np.uint64(0))
    elif op == "ashr":
        r = (as_signed(a, bits) >> np.minimum(b, np.uint64(63)).astype(np.int64)).astype(np.uint64)
    elif op in ("udiv", "urem"):
        safe = np.where(b == 0, np.uint64(1), b)
        r = a // safe if op == "udiv" else a % safe
    elif op in ("sdiv", "srem"):
        sa, sb = as_signed(a, bits), as_signed(b, bits)
        safe = np.where(sb == 0, 1, sb)
        q = np.abs(sa) // np.abs(safe)
        q = np.where((sa < 0) ^ (safe < 0), -q, q)  # C semantics: truncate toward zero
        r = np.ascontiguousarray(q if op == "sdiv" else sa - q * safe, dtype=np.int64).view(np.uint64)
    else:
        raise unsupported(op, ins.text)
    return mask_bits(np.asarray(r, dtype=np.uint64), bits)


def _float_binop(m, ins: Instr):
    a, b = m.get(ins.ops[0]), m.get(ins.ops[1])
    op = ins.opcode
    if op == "fadd":
        r = np.add(a, b)
    elif op == "fsub":
        r = np.subtract(a, b)
    elif op == "fmul":
        r = np.multiply(a, b)
    elif op == "fdiv":
        r = np.divide(a, b)
    elif op == "frem":
        r = np.fmod(a, b)
    else:
        raise unsupported(op, ins.text)
    return fit_to_type(ins.ty, r)


def _fneg(m, ins):
    return fit_to_type(ins.ty, -np.asarray(m.get(ins.ops[0])))


_ICMP = {"eq": np.equal, "ne": np.not_equal, "ugt": np.greater, "uge": np.greater_equal, "ult": np.less,
         "ule": np.less_equal, "sgt": np.greater, "sge": np.greater_equal, "slt": np.less, "sle": np.less_equal}  # fmt: skip


def _icmp(m, ins: Instr):
    a, b = m.get(ins.ops[0]), m.get(ins.ops[1])
    sty = ins.ops[0].ty.scalar
    if wide(sty):
        raise unsupported(f"icmp on i{sty.bits}", ins.text)
    bits = sty.bits if sty.kind == "int" else 64
    if ins.predicate.startswith("s"):
        a, b = as_signed(np.asarray(a), bits), as_signed(np.asarray(b), bits)
    return _ICMP[ins.predicate](a, b)


def _fcmp(m, ins: Instr):
    a, b = np.asarray(m.get(ins.ops[0])), np.asarray(m.get(ins.ops[1]))
    p = ins.predicate
    unordered = np.isnan(a) | np.isnan(b)
    if p == "true":
        return np.ones(np.broadcast(a, b).shape, dtype=bool)
    if p == "false":
        return np.zeros(np.broadcast(a, b).shape, dtype=bool)
    if p == "ord":
        return ~unordered
    if p == "uno":
        return unordered
    base = {"eq": np.equal, "gt": np.greater, "ge": np.greater_equal, "lt": np.less, "le": np.less_equal,
            "ne": np.not_equal}[p[1:]]  # fmt: skip
    r = base(a, b)
    return (r | unordered) if p[0] == "u" else (r & ~unordered)


def _select(m, ins: Instr):
    c, a, b = (m.get(o) for o in ins.ops)
    if ins.ty.kind in ("struct", "array"):
        raise unsupported("select of aggregates", ins.text)
    c = np.asarray(c)
    if (ins.ty.kind in ("vec", "rsrc") or wide(ins.ty)) and c.ndim == 1:
        c = c[:, None]
    return np.where(c, a, b)


def _low64(w: np.ndarray) -> np.ndarray:
    """The low 64 bits of a wide integer's 32-bit words."""
    return w[:, 0] | (w[:, 1] << np.uint64(32))


def _wide_cast(m, ins: Instr, x):
    """Casts to or from integers wider than 64 bits and buffer resources as integers (``ptrtoint ptr
    addrspace(8) … to i128``, ``inttoptr``): the 128-bit descriptor's words (:func:`ops_amdgcn.rsrc_encode`)."""
    src, dst, op = ins.ops[0].ty, ins.ty, ins.opcode
    if op == "ptrtoint" and src.kind == "rsrc":
        w = rsrc_encode(m.full(x, src))
        return w if wide(dst) and words(dst) == 4 else mask_bits(_low64(w), dst.bits)
    if op == "inttoptr" and dst.kind == "rsrc" and wide(src) and words(src) == 4:
        return rsrc_decode(m.full(x, src))
    if op in ("trunc", "ptrtoint", "inttoptr") and wide(src) and not wide(dst):
        bits = dst.bits if dst.kind == "int" else dst.size * 8
        low = _low64(m.full(x, src))
        return (low & np.uint64(1)).astype(bool) if bits == 1 else mask_bits(low, bits)
    if op in ("zext", "sext") and wide(dst) and not wide(src) and src.kind == "int":
        v = np.broadcast_to(np.asarray(x, dtype=np.uint64), (m.n,))
        neg = np.zeros(m.n, dtype=bool)
        if op == "sext":
            signed = as_signed(v, src.bits) if src.bits > 1 else -(v != 0).astype(np.int64)
            v, neg = np.ascontiguousarray(signed).view(np.uint64), signed < 0
        fill = np.where(neg, np.uint64(0xFFFFFFFF), np.uint64(0))
        low = [v & np.uint64(0xFFFFFFFF), v >> np.uint64(32)]
        return np.stack(low + [fill] * (words(dst) - 2), axis=1)
    if op in ("zext", "trunc") and wide(src) and wide(dst):
        w = m.full(x, src)
        n = words(dst)
        return w[:, :n] if n <= w.shape[1] else np.pad(w, ((0, 0), (0, n - w.shape[1])))
    raise unsupported(f"{op} from {src} to {dst}", ins.text)


def _cast(m, ins: Instr):
    x = m.get(ins.ops[0])
    src, dst = ins.ops[0].ty, ins.ty
    op = ins.opcode
    ss, ds = src.scalar, dst.scalar
    if op != "bitcast" and (wide(ss) or wide(ds) or ss.kind == "rsrc" or ds.kind == "rsrc"):
        return _wide_cast(m, ins, x)
    if op == "zext":
        return mask_bits(np.asarray(x).astype(np.uint64), ds.bits) if ds.bits > 1 else np.asarray(x, dtype=bool)
    if op == "sext":
        if ss.bits == 1:
            v = np.where(np.asarray(x, dtype=bool), np.uint64((1 << 64) - 1), np.uint64(0))
        else:
            v = as_signed(np.asarray(x), ss.bits).view(np.uint64)
        return mask_bits(v, ds.bits)
    if op == "trunc":
        if ds.bits == 1:
            return (np.asarray(x, dtype=np.uint64) & np.uint64(1)).astype(bool)
        return mask_bits(np.asarray(x, dtype=np.uint64), ds.bits)
    if op in ("fptrunc", "fpext"):
        return fit_to_type(dst, np.asarray(x).astype(np.float64) if op == "fpext" else np.asarray(x, dtype=np.float64))
    if op == "sitofp":
        return fit_to_type(dst, as_signed(np.asarray(x), ss.bits).astype(np.float64))
    if op == "uitofp":
        return fit_to_type(dst, np.asarray(x).astype(np.float64))
    if op in ("fptosi", "fptoui"):
        f = np.nan_to_num(np.asarray(x, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
        return mask_bits(np.trunc(f).astype(np.int64).view(np.uint64), ds.bits)
    if op in ("ptrtoint", "inttoptr"):
        bits = ds.bits if ds.kind == "int" else ds.size * 8
        return mask_bits(np.asarray(x, dtype=np.uint64), bits)
    if op == "addrspacecast":
        if ss.addrspace in (3, 5) or ds.addrspace in (3, 5):
            raise unsupported("addrspacecast to or from LDS/scratch", ins.text)
        return x
    if op == "bitcast":
        if src == dst:
            return x
        return from_bytes(to_bytes(m.full(x, src), src, m.n), dst)
    raise unsupported(op, ins.text)


def _gep(m, ins: Instr):
    base = np.asarray(m.get(ins.ops[0]), dtype=np.uint64)
    ty = ins.extra["source"]
    addr = base
    for n, op in enumerate(ins.ops[1:]):
        idx = as_signed(np.asarray(m.get(op)), op.ty.scalar.bits).view(np.uint64)
        if n == 0:
            step = ty.size
        elif ty.kind in ("array", "vec"):
            ty = ty.elem
            step = ty.size
        elif ty.kind == "struct":
            k = int(np.asarray(idx).flat[0])
            offs, off = [], 0
            for mem in ty.members:
                off = (
                    (off + (1 if ty.packed else mem.align) - 1)
                    // (1 if ty.packed else mem.align)
                    * (1 if ty.packed else mem.align)
                )
                offs.append(off)
                off += mem.size
            addr = addr + np.uint64(offs[k])
            ty = ty.members[k]
            continue
        else:
            raise unsupported("getelementptr into a scalar", ins.text)
        addr = addr + idx * np.uint64(step)
    bits = 32 if ins.ty.scalar.kind == "ptr" and ins.ty.scalar.addrspace in (3, 5) else 64
    return mask_bits(addr, bits)


def _load(m, ins: Instr):
    return m.load(ins, ins.ops[0].ty, m.get(ins.ops[0]), ins.ty)


def _store(m, ins: Instr):
    m.store(ins, ins.ops[1].ty, m.get(ins.ops[1]), m.get(ins.ops[0]), ins.ops[0].ty)


def _alloca(m, ins: Instr):
    size = ins.extra["alloc"].size
    off = m.private_size
    m.private_size = off + (size + 15) // 16 * 16
    old = m.private
    m.private = np.zeros(m.n * m.private_size, dtype=np.uint8)
    if old is not None and off:
        m.private.reshape(m.n, m.private_size)[:, :off] = old.reshape(m.n, off)
    return np.uint64(off)


def _extractelement(m, ins: Instr):
    v = m.full(m.get(ins.ops[0]), ins.ops[0].ty)
    idx = np.broadcast_to(np.asarray(m.get(ins.ops[1]), dtype=np.int64), (m.n,))
    return np.take_along_axis(v, np.minimum(idx, v.shape[1] - 1)[:, None], axis=1)[:, 0]


def _insertelement(m, ins: Instr):
    v = np.array(m.full(m.get(ins.ops[0]), ins.ty))
    x = np.broadcast_to(m.get(ins.ops[1]), (m.n,))
    idx = np.broadcast_to(np.asarray(m.get(ins.ops[2]), dtype=np.int64), (m.n,))
    v[np.arange(m.n), np.minimum(idx, v.shape[1] - 1)] = x
    return v


def _shuffle_mask(ins: Instr) -> list[int]:
    if "mask" in ins.extra:
        return ins.extra["mask"]
    text = ins.text.split(", !dbg")[0].strip()
    m = re.search(r"<(\d+) x i32> (zeroinitializer|poison|undef|<[^<>]*>)$", text)
    if not m:
        raise unsupported("shufflevector mask", ins.text)
    n, body = int(m.group(1)), m.group(2)
    if not body.startswith("<"):
        mask = [0] * n  # zeroinitializer: every element from lane 0; poison/undef: any choice is valid
    else:
        mask = [0 if "poison" in t or "undef" in t else int(t.split()[-1]) for t in body[1:-1].split(",")]
    ins.extra["mask"] = mask
    return mask


def _shufflevector(m, ins: Instr):
    a = m.full(m.get(ins.ops[0]), ins.ops[0].ty)
    b = m.full(m.get(ins.ops[1]), ins.ops[1].ty)
    both = np.concatenate([a, b], axis=1)
    return both[:, _shuffle_mask(ins)]


def _extractvalue(m, ins: Instr):
    v = m.get(ins.ops[0])
    for i in ins.extra["indices"]:
        v = v[i]
    return v


def _insertvalue(m, ins: Instr):
    import copy

    agg = copy.copy(m.get(ins.ops[0]))
    if not isinstance(agg, list):
        raise unsupported("insertvalue into a constant aggregate", ins.text)
    idx = ins.extra["indices"]
    target = agg
    for i in idx[:-1]:
        target[i] = copy.copy(target[i])
        target = target[i]
    ty = ins.ops[1].ty
    target[idx[-1]] = np.array(m.full(m.get(ins.ops[1]), ty))
    return agg


def _freeze(m, ins):
    return m.get(ins.ops[0])


def _noop(m, ins):
    return None


# --------------------------------------------------------------------------------------------------- intrinsics
def _unary_float(fn):
    def handler(m, ins):
        return fit_to_type(ins.ty, fn(np.asarray(m.get(ins.ops[0]), dtype=np.float64)))

    return handler


def _binary_float(fn):
    def handler(m, ins):
        a, b = (np.asarray(m.get(o), dtype=np.float64) for o in ins.ops[:2])
        return fit_to_type(ins.ty, fn(a, b))

    return handler


def _fma(m, ins):
    a, b, c = (np.asarray(m.get(o), dtype=np.float64) for o in ins.ops[:3])
    return fit_to_type(ins.ty, a * b + c)


def _int_minmax(kind):
    def handler(m, ins):
        a, b = (np.asarray(m.get(o)) for o in ins.ops[:2])
        bits = ins.ty.scalar.bits
        if kind[0] == "s":
            sa, sb = as_signed(a, bits), as_signed(b, bits)
            pick_a = sa > sb if kind == "smax" else sa < sb
        else:
            pick_a = a > b if kind == "umax" else a < b
        return np.where(pick_a, a, b)

    return handler


def _abs_int(m, ins):
    a = np.asarray(m.get(ins.ops[0]))
    bits = ins.ty.scalar.bits
    return mask_bits(np.abs(as_signed(a, bits)).view(np.uint64), bits)


def _fabs(m, ins):
    return np.abs(m.get(ins.ops[0]))


def _copysign(m, ins):
    return fit_to_type(ins.ty, np.copysign(m.get(ins.ops[0]), m.get(ins.ops[1])))


def _barrier(m, ins):
    """All waves run in lock step; a barrier that some waves of a workgroup have not reached cannot be modelled."""
    per_wave = m.mask.reshape(-1, WAVE).any(axis=1) | ~m.alive.reshape(-1, WAVE).any(axis=1)
    per_wg = per_wave.reshape(m.n_wg, m.waves_per_wg)
    touched = m.mask.reshape(m.n_wg, -1).any(axis=1)
    if np.any(touched & ~per_wg.all(axis=1)):
        raise unsupported("s.barrier reached by some waves of a workgroup while others are elsewhere", ins.text)
    m.wg_epoch[touched] += 1  # a new barrier interval: LDS written before it is ordered for every wave


INTRINSICS: list[tuple[str, object]] = [
    *AMDGCN_INTRINSICS,
    ("llvm.amdgcn.s.barrier", _barrier),
    ("llvm.amdgcn.s.waitcnt", _noop),
    ("llvm.amdgcn.s.setprio", _noop),
    ("llvm.amdgcn.sched.", _noop),
    ("llvm.amdgcn.wave.barrier", _noop),  # only keeps the compiler from moving code across it: a wave is in lock step
    ("llvm.amdgcn.s.sleep", _noop),
    ("llvm.assume", _noop),
    ("llvm.lifetime.", _noop),
    ("llvm.dbg.", _noop),
    ("llvm.experimental.noalias.scope.decl", _noop),
    ("llvm.amdgcn.rcp", _unary_float(lambda x: 1.0 / x)),
    ("llvm.amdgcn.rsq", _unary_float(lambda x: 1.0 / np.sqrt(x))),
    ("llvm.amdgcn.sqrt", _unary_float(np.sqrt)),
    ("llvm.amdgcn.exp2", _unary_float(np.exp2)),
    ("llvm.amdgcn.log", _unary_float(np.log2)),
    ("llvm.exp2.", _unary_float(np.exp2)),
    ("llvm.exp.", _unary_float(np.exp)),
    ("llvm.log2.", _unary_float(np.log2)),
    ("llvm.log.", _unary_float(np.log)),
    ("llvm.sqrt.", _unary_float(np.sqrt)),
    ("llvm.sin.", _unary_float(np.sin)),
    ("llvm.cos.", _unary_float(np.cos)),
    ("llvm.floor.", _unary_float(np.floor)),
    ("llvm.ceil.", _unary_float(np.ceil)),
    ("llvm.trunc.", _unary_float(np.trunc)),
    ("llvm.rint.", _unary_float(np.rint)),
    ("llvm.nearbyint.", _unary_float(np.rint)),
    ("llvm.round.", _unary_float(lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5))),
    ("llvm.fabs.", _fabs),
    ("llvm.copysign.", _copysign),
    ("llvm.maxnum.", _binary_float(np.fmax)),
    ("llvm.minnum.", _binary_float(np.fmin)),
    ("llvm.maximum.", _binary_float(np.maximum)),
    ("llvm.minimum.", _binary_float(np.minimum)),
    ("llvm.fma.", _fma),
    ("llvm.fmuladd.", _fma),
    ("llvm.smax.", _int_minmax("smax")),
    ("llvm.smin.", _int_minmax("smin")),
    ("llvm.umax.", _int_minmax("umax")),
    ("llvm.umin.", _int_minmax("umin")),
    ("llvm.abs.", _abs_int),
]


_BY_PREFIX = dict(INTRINSICS)
_BY_PREFIX.update(
    {p: atomics.buffer_atomic for p in ("llvm.amdgcn.raw.ptr.buffer.atomic.", "llvm.amdgcn.raw.buffer.atomic.")}
)


def _intrinsic(name: str):
    """The handler of a callee, by the longest listed prefix it starts with (None: not modelled)."""
    best = max((p for p in _BY_PREFIX if name.startswith(p)), key=len, default=None)
    return _BY_PREFIX[best] if best is not None else None


def _not_modelled(name: str):
    def handler(m, ins):
        raise unsupported(f"intrinsic {name}" if name.startswith("llvm.") else f"call to @{name}", ins.text)

    return handler


def call_handler(ins: Instr):
    """A call's handler, chosen once when the kernel is bound (:func:`bind`): an intrinsic, inline asm, or a handler
    that raises :class:`UnsupportedIR` when (and only if) a lane reaches the call."""
    if ins.extra.get("asm") is not None:
        return asm_handler(ins)
    return _intrinsic(ins.callee) or _not_modelled(ins.callee)


def _unknown_opcode(m, ins):
    raise unsupported(f"opcode '{ins.opcode}'", ins.text)


def bind(kernel) -> None:
    """Give every instruction of ``kernel`` its handler (``ins.handler``), once: execution then does no lookups."""
    for block in kernel.blocks:
        for ins in block.body:
            if ins.handler is None:
                ins.handler = call_handler(ins) if ins.opcode == "call" else HANDLERS.get(ins.opcode, _unknown_opcode)


HANDLERS = {
    **{
        op: _int_binop
        for op in ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "udiv", "sdiv", "urem", "srem")
    },  # fmt: skip
    **{op: _float_binop for op in ("fadd", "fsub", "fmul", "fdiv", "frem")},
    "fneg": _fneg,
    "icmp": _icmp,
    "fcmp": _fcmp,
    "select": _select,
    **{
        op: _cast
        for op in (
            "zext",
            "sext",
            "trunc",
            "fptrunc",
            "fpext",
            "sitofp",
            "uitofp",
            "fptosi",
            "fptoui",
            "ptrtoint",
            "inttoptr",
            "addrspacecast",
            "bitcast",
        )
    },  # fmt: skip
    "getelementptr": _gep,
    "load": _load,
    "store": _store,
    "alloca": _alloca,
    "extractelement": _extractelement,
    "insertelement": _insertelement,
    "shufflevector": _shufflevector,
    "extractvalue": _extractvalue,
    "insertvalue": _insertvalue,
    "freeze": _freeze,
    "fence": _noop,
    "atomicrmw": atomics.atomicrmw,
    "cmpxchg": atomics.cmpxchg,
}
