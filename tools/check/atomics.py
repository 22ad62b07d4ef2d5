"""Atomics on the CPU engine: ``atomicrmw`` (every LLVM operation), ``cmpxchg`` and the AMDGPU buffer atomics
(``llvm.amdgcn.raw[.ptr].buffer.atomic.<op>``), as Triton emits them for ``tl.atomic_add/max/min/xchg/cas/and/or/xor``.

Order: a launch whose kernel has a global atomic runs one workgroup after another in linear order (x fastest, then
y, z; tools.check._llvm_child); within a workgroup the lanes of one atomic instruction take their turns in lane order
per address. Each lane reads the old value, combines, writes, and gets the old value back, so acquire/release
counters between workgroups (split-K partials, the last-arriving program reducing) see every earlier workgroup's
stores. A spin-wait on a value no earlier workgroup wrote would never end in that order: an atomic that runs
:data:`SPIN_LIMIT` times in one workgroup while no byte of global memory changes is reported as such
(:class:`~tools.check.errors.UnsupportedIR`, the verdict undetermined), never left to hang.
"""

from __future__ import annotations

import numpy as np

from tools.check.ir import Instr, unsupported
from tools.check.values import as_signed, fit_to_type

SPIN_LIMIT = 1000  # runs of one atomic in one workgroup with global memory unchanged: a wait that cannot end

# buffer atomic names (llvm.amdgcn.*.buffer.atomic.<name>) → the atomicrmw operation they are
_BUFFER_OPS = {"add": "add", "sub": "sub", "smin": "min", "umin": "umin", "smax": "max", "umax": "umax", "and": "and",
               "or": "or", "xor": "xor", "swap": "xchg", "fadd": "fadd", "fmin": "fmin", "fmax": "fmax",
               "cmpswap": "cmpxchg"}  # fmt: skip


def _combine(op: str, old: np.ndarray, v: np.ndarray, ty, ins: Instr):
    if op == "xchg":
        return v
    if op in ("add", "fadd"):
        return old + v
    if op in ("sub", "fsub"):
        return old - v
    if op in ("max", "min"):
        so, sv = as_signed(old, ty.bits), as_signed(v, ty.bits)
        return np.where((so >= sv) == (op == "max"), old, v)
    if op in ("umax", "umin"):
        return np.maximum(old, v) if op == "umax" else np.minimum(old, v)
    if op in ("fmax", "fmin"):  # llvm.maxnum / minnum: a NaN operand yields the other
        return np.fmax(old, v) if op == "fmax" else np.fmin(old, v)
    if op in ("and", "or", "xor"):
        return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op](old, v)
    if op == "uinc_wrap":
        return np.where(old >= v, 0, old + 1)
    if op == "udec_wrap":
        return np.where((old == 0) | (old > v), v, old - 1)
    raise unsupported(f"atomicrmw {op}", ins.text)


def _turns(lanes: np.ndarray, addr: np.ndarray):
    """The active lanes in turns: each turn at most one lane per address, every address's lanes in lane order."""
    a = addr[lanes]
    _, group = np.unique(a, return_inverse=True)
    order = np.argsort(group, kind="stable")
    first = np.searchsorted(group[order], group[order])  # start of each lane's group in the sorted order
    turn = np.empty(len(a), dtype=np.int64)
    turn[order] = np.arange(len(a)) - first
    for t in range(int(turn.max()) + 1 if len(a) else 0):
        yield lanes[turn == t]


def run_atomic(m, ins: Instr, op: str, ty, addr, val, load, store, cmp=None):
    """One atomic instruction over the active lanes: ``load()``/``store(value)`` access each lane's address under
    the mask of its turn. Returns the old values (cmpxchg: ``[old, success]``)."""
    if ty.kind not in ("int", "float"):
        raise unsupported(f"{'cmpxchg' if cmp is not None else 'atomicrmw ' + op} on {ty}", ins.text)
    addr = np.broadcast_to(np.asarray(addr, dtype=np.uint64), (m.n,))
    val = np.asarray(m.full(val, ty))
    cmp = None if cmp is None else np.asarray(m.full(cmp, ty))
    out = np.zeros(m.n, dtype=val.dtype)
    before = m.mem_version
    saved = m.mask
    m.in_atomic = True  # atomics are ordered by the hardware: no race between waves
    try:
        for lanes in _turns(np.flatnonzero(saved), addr):
            m.mask = np.zeros(m.n, dtype=bool)
            m.mask[lanes] = True
            old = np.asarray(load())
            if cmp is None:
                new = _combine(op, old, val, ty, ins)
            else:
                m.mask[lanes] = (old == cmp)[lanes]  # a failed compare writes nothing
                new = val
            if m.mask.any():
                store(fit_to_type(ty, new))
            out[lanes] = old[lanes]
    finally:
        m.mask, m.in_atomic = saved, False
    _spin_guard(m, ins, before)
    if cmp is not None:
        return [out, out == cmp]
    return out


def _spin_guard(m, ins: Instr, before: int) -> None:
    """Count the runs of ``ins`` in this workgroup during which no byte of global memory changed (since its last run,
    and by its own): past SPIN_LIMIT the workgroup waits for a value no workgroup run before it wrote."""
    last = m.atomic_seen.get(id(ins))
    quiet = last is not None and last[0] == before and m.mem_version == before
    runs = last[1] + 1 if quiet else 0
    m.atomic_seen[id(ins)] = (m.mem_version, runs)
    if runs >= SPIN_LIMIT:
        lanes = np.flatnonzero(m.mask)
        wg = int(m.wg[lanes[0]]) if lanes.size else -1
        raise unsupported(
            f"a spin-wait that cannot end in the order run: workgroup {wg} ran this atomic {runs} times while no "
            "byte of global memory changed; the CPU engine runs a launch's workgroups one after another in linear "
            "order (x fastest, then y, z) and no workgroup before it wrote the value it waits for (on a GPU a "
            "workgroup running at the same time may; whether one is resident is not guaranteed)",
            ins.text,
        )


def atomicrmw(m, ins: Instr):
    ptr_ty, ty = ins.ops[0].ty, ins.ty
    addr = m.get(ins.ops[0])
    return run_atomic(m, ins, ins.extra["op"], ty, addr, m.get(ins.ops[1]),
                      lambda: m.load(ins, ptr_ty, addr, ty), lambda v: m.store(ins, ptr_ty, addr, v, ty))  # fmt: skip


def cmpxchg(m, ins: Instr):
    ptr_ty, ty = ins.ops[0].ty, ins.ops[1].ty
    addr = m.get(ins.ops[0])
    return run_atomic(m, ins, "cmpxchg", ty, addr, m.get(ins.ops[2]), lambda: m.load(ins, ptr_ty, addr, ty),
                      lambda v: m.store(ins, ptr_ty, addr, v, ty), cmp=m.get(ins.ops[1]))  # fmt: skip


def buffer_atomic(m, ins: Instr):
    """``llvm.amdgcn.raw[.ptr].buffer.atomic.<op>(vdata, rsrc, voffset, soffset, aux)`` (``cmpswap``: ``(src, cmp,
    rsrc, …)``) → the old value; past num_records the hardware reads 0 and drops the write."""
    from tools.check.ops_amdgcn import buffer_address

    name = ins.callee.split(".buffer.atomic.")[1].split(".")[0]
    op = _BUFFER_OPS.get(name)
    if op is None:
        raise unsupported(f"intrinsic {ins.callee}", ins.text)
    first = 2 if op == "cmpxchg" else 1
    addr, limit, base = buffer_address(m, ins, first)
    ty = ins.ops[0].ty

    def load():
        return m.load_global(ins, addr, ty, limit=limit, base=base)

    def store(v):
        m.store_global(ins, addr, v, ty, limit=limit, base=base)

    got = run_atomic(m, ins, op, ty, addr, m.get(ins.ops[0]), load, store,
                     cmp=m.get(ins.ops[1]) if op == "cmpxchg" else None)  # fmt: skip
    return got[0] if op == "cmpxchg" else got


def has_global_atomics(kernel) -> bool:
    """Whether a kernel has an atomic on global memory (then its workgroups run one after another)."""
    for block in kernel.blocks:
        for ins in block.phis + block.body:
            if ins.opcode in ("atomicrmw", "cmpxchg") and ins.ops[0].ty.addrspace != 3:
                return True
            if ins.opcode == "call" and ".buffer.atomic." in (ins.callee or ""):
                return True
    return False
