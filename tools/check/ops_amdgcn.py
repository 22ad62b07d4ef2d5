"""What the AMDGPU intrinsics (``llvm.amdgcn.*``) do to a lane array: buffer resources and buffer loads/stores,
LDS DMA, MFMA, cross-lane moves (DPP, swizzle, permute, gfx950's permlane swaps, readlane), work-item ids.

Same contract as :mod:`tools.check.ops`: a handler takes the machine and the instruction and returns the result
value (or None); ``AMDGCN_INTRINSICS`` maps callee prefixes to handlers, the longest-matching first.
"""

from __future__ import annotations

import re

import numpy as np

from tools.check import xlane
from tools.check.ir import Ty, unsupported
from tools.check.values import WAVE, as_signed, mask_bits, to_bytes


def _args(m, ins):
    return [m.get(o) for o in ins.ops]


def _const_int(m, ins, i) -> int:
    v = np.asarray(m.get(ins.ops[i]))
    return int(v.flat[0])


def _rsrc_from_ptr(m, ins):
    base, stride, num, flags = _args(m, ins)
    out = np.zeros((m.n, 4), dtype=np.uint64)
    out[:, 0] = np.broadcast_to(base, (m.n,))
    out[:, 1] = np.broadcast_to(np.asarray(stride, dtype=np.uint64), (m.n,))
    out[:, 2] = np.broadcast_to(np.asarray(num, dtype=np.uint64), (m.n,))
    out[:, 3] = np.broadcast_to(np.asarray(flags, dtype=np.uint64), (m.n,))
    return out


def rsrc_decode(d: np.ndarray) -> np.ndarray:
    """A 128-bit buffer descriptor's four 32-bit words (n, 4) → [base, stride, num_records, flags]: word 1 holds
    base bits 32..47 and the stride in bits 16..29 (the hardware's V# layout)."""
    d = d.astype(np.uint64)
    base = d[:, 0] | ((d[:, 1] & np.uint64(0xFFFF)) << np.uint64(32))
    stride = (d[:, 1] >> np.uint64(16)) & np.uint64(0x3FFF)
    return np.stack([base, stride, d[:, 2], d[:, 3]], axis=1)


def rsrc_encode(r: np.ndarray) -> np.ndarray:
    """[base, stride, num_records, flags] (n, 4) → the descriptor's four 32-bit words: :func:`rsrc_decode` undone."""
    r = r.astype(np.uint64)
    lo = np.uint64(0xFFFFFFFF)
    word1 = ((r[:, 0] >> np.uint64(32)) & np.uint64(0xFFFF)) | ((r[:, 1] & np.uint64(0x3FFF)) << np.uint64(16))
    return np.stack([r[:, 0] & lo, word1, r[:, 2] & lo, r[:, 3] & lo], axis=1)


def _rsrc(m, op):
    """A buffer resource operand as (n, 4) [base, stride, num_records, flags]; <4 x i32> and i128 descriptors are
    decoded."""
    v = m.full(m.get(op), op.ty)
    if op.ty.kind == "rsrc":
        return v
    if (op.ty.kind == "vec" and op.ty.count == 4 and op.ty.elem.kind == "int" and op.ty.elem.bits == 32) or (
        op.ty.kind == "int" and op.ty.bits == 128
    ):
        return rsrc_decode(v)
    raise unsupported(f"buffer resource of type {op.ty}")


def _buffer_offset(m, ins, first: int):
    voff = np.broadcast_to(np.asarray(m.get(ins.ops[first]), dtype=np.uint64), (m.n,))
    soff = np.broadcast_to(np.asarray(m.get(ins.ops[first + 1]), dtype=np.uint64), (m.n,))
    return (voff + soff) & np.uint64(0xFFFFFFFF)


def buffer_address(m, ins, first: int):
    """A raw buffer access's (address, num_records, base) per lane, the resource at operand ``first`` and the
    voffset, soffset after it."""
    r = _rsrc(m, ins.ops[first])
    if np.any(r[:, 1] != 0):
        raise unsupported("raw buffer access through a resource with a stride", ins.text)
    return r[:, 0] + _buffer_offset(m, ins, first + 1), r[:, 2], r[:, 0]


def _buffer_load(m, ins):
    r = _rsrc(m, ins.ops[0])
    if np.any(r[:, 1] != 0) and "struct" not in ins.callee:
        raise unsupported("raw buffer access through a resource with a stride", ins.text)
    off = _buffer_offset(m, ins, 1)
    return m.load_global(ins, r[:, 0] + off, ins.ty, limit=r[:, 2], base=r[:, 0])


def _s_buffer_load(m, ins):
    """``llvm.amdgcn.s.buffer.load.*(<4 x i32> rsrc, i32 offset, i32 cachepolicy)``: ``s_buffer_load`` reads
    base + offset, zero past num_records. The backend issues it as a scalar load when the offset and resource are
    wave-uniform and as a per-lane buffer load otherwise: the same bytes for each lane either way."""
    r = _rsrc(m, ins.ops[0])
    if np.any(r[:, 1] != 0):
        raise unsupported("s.buffer.load through a resource with a stride", ins.text)
    off = np.broadcast_to(np.asarray(m.get(ins.ops[1]), dtype=np.uint64), (m.n,)) & np.uint64(0xFFFFFFFF)
    return m.load_global(ins, r[:, 0] + off, ins.ty, limit=r[:, 2], base=r[:, 0])


def _buffer_store(m, ins):
    r = _rsrc(m, ins.ops[1])
    off = _buffer_offset(m, ins, 2)
    m.store_global(ins, r[:, 0] + off, m.get(ins.ops[0]), ins.ops[0].ty, limit=r[:, 2], base=r[:, 0])


def _wave_full(m, ins):
    """Cross-lane operations need every live lane of each wave they touch active."""
    waves_mask = m.mask.reshape(-1, WAVE)
    alive = m.alive.reshape(-1, WAVE)
    touched = waves_mask.any(axis=1)
    if np.any(touched & (waves_mask != alive).any(axis=1)):
        raise unsupported(f"{ins.callee} with part of a wave's lanes disabled (divergent cross-lane operation)",
                          ins.text)  # fmt: skip


_MFMA = re.compile(
    r"llvm\.amdgcn\.mfma\.f32\.(\d+)x(\d+)x(\d+)\.?(f16|bf16(?:\.1k)?|fp8\.fp8|bf8\.bf8|fp8\.bf8|bf8\.fp8|f16|bf16)$"
)


_MFMA_I8 = re.compile(r"llvm\.amdgcn\.mfma\.i32\.(\d+)x(\d+)x(\d+)\.i8$")


def _mfma_i8(m, ins, mm):
    """Integer MFMA: int8 operands packed 8 (or 16) per lane, exact int32 accumulation (wrapping)."""
    size, k = int(mm.group(1)), int(mm.group(3))
    if mm.group(1) != mm.group(2) or size not in (16, 32) or any(_const_int(m, ins, i) for i in (3, 4, 5)):
        raise unsupported(f"intrinsic {ins.callee} with these sizes or modifiers", ins.text)
    _wave_full(m, ins)
    kpl = k // (WAVE // size)
    ops = [m.full(m.get(ins.ops[i]), ins.ops[i].ty) for i in range(3)]
    a, b = (to_bytes(x, ins.ops[i].ty, m.n)[:, :kpl].view(np.int8).astype(np.float64) for i, x in enumerate(ops[:2]))
    c = as_signed(np.asarray(ops[2]), 32).astype(np.float64)
    d = xlane.mfma_exact(a, b, c, size, k)
    return mask_bits(np.asarray(d, dtype=np.int64).view(np.uint64), 32)


def _mfma(m, ins):
    mi = _MFMA_I8.match(ins.callee)
    if mi:
        return _mfma_i8(m, ins, mi)
    mm = _MFMA.match(ins.callee)
    if not mm or mm.group(1) != mm.group(2):
        raise unsupported(f"intrinsic {ins.callee}", ins.text)
    size, k, kind = int(mm.group(1)), int(mm.group(3)), mm.group(4)
    if size not in (16, 32):
        raise unsupported(f"intrinsic {ins.callee}", ins.text)
    cbsz, abid, blgp = (_const_int(m, ins, i) for i in (3, 4, 5))
    if cbsz or abid or blgp:
        raise unsupported(f"{ins.callee} with cbsz/abid/blgp modifiers", ins.text)
    _wave_full(m, ins)
    groups = WAVE // size
    kpl = k // groups
    a = m.full(m.get(ins.ops[0]), ins.ops[0].ty)
    b = m.full(m.get(ins.ops[1]), ins.ops[1].ty)
    c = m.full(m.get(ins.ops[2]), ins.ops[2].ty)
    a, b = _mfma_operand(m, a, ins.ops[0].ty, kind, 0, kpl), _mfma_operand(m, b, ins.ops[1].ty, kind, 1, kpl)
    return xlane.mfma(a, b, c, size, k)


def _mfma_operand(m, x, ty, kind, which, kpl):
    if kind == "f16":
        return x.astype(np.float32)
    if kind.startswith("bf16"):  # bf16 operands travel as i16 lanes
        return (x.astype(np.uint32) << np.uint32(16)).view(np.float32) if x.dtype != np.float32 else x
    fmt = kind.split(".")[which]
    raw = to_bytes(x, ty, x.shape[0])  # i64 / <2 x i32>: 8 fp8 values per lane, little endian
    table = {"fp8": "fp8", "bf8": "bf8"}[fmt] + ("_ocp" if m.arch == "gfx950" else "_fnuz")
    return xlane.fp8_decode(raw[:, :kpl], table)


def _dpp(m, ins):
    """``update.dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl)`` / ``mov.dpp(src, …)`` on any type (i32, i64,
    floats, vectors): source lanes outside the exec mask are invalid, as on the hardware (no divergence limit)."""
    if ins.callee.startswith("llvm.amdgcn.update.dpp"):
        old, src = m.full(m.get(ins.ops[0]), ins.ty), m.full(m.get(ins.ops[1]), ins.ty)
        first = 2
    else:
        src = m.full(m.get(ins.ops[0]), ins.ty)
        old, first = np.zeros_like(src), 1
    ctrl, rmask, bmask, bound = (_const_int(m, ins, first + i) for i in range(4))
    try:
        return xlane.dpp(old, src, ctrl, rmask, bmask, bool(bound), exec_mask=m.mask, arch=m.arch)
    except ValueError:
        raise unsupported(f"{ins.callee} dpp_ctrl {ctrl:#x} on {m.arch}", ins.text) from None


def _swizzle(m, ins):
    _wave_full(m, ins)
    src = m.full(m.get(ins.ops[0]), ins.ty)
    return xlane.gather_in_wave(src, xlane.swizzle_source_lanes(_const_int(m, ins, 1)))


def _bpermute(m, ins):
    _wave_full(m, ins)
    addr = np.broadcast_to(np.asarray(m.get(ins.ops[0]), dtype=np.uint64), (m.n,))
    src = m.full(m.get(ins.ops[1]), ins.ty)
    return xlane.gather_in_wave(src, ((addr >> np.uint64(2)) % np.uint64(WAVE)).astype(np.int64))


def _permute(m, ins):  # ds_permute: lane (addr/4) receives this lane's data
    _wave_full(m, ins)
    addr = np.broadcast_to(np.asarray(m.get(ins.ops[0]), dtype=np.uint64), (m.n,))
    src = m.full(m.get(ins.ops[1]), ins.ty)
    dst = ((addr >> np.uint64(2)) % np.uint64(WAVE)).astype(np.int64).reshape(-1, WAVE)
    out = np.zeros_like(src).reshape(-1, WAVE)
    s = src.reshape(-1, WAVE)
    for w in range(dst.shape[0]):
        out[w, dst[w]] = s[w]
    return out.reshape(src.shape)


def _permlane_swap(m, ins):
    """gfx950's ``llvm.amdgcn.permlane{16,32}.swap(i32 old, i32 src0, i1 fi, i1 bound_ctrl)`` → ``{i32, i32}``: the
    VDST (``old``) and SRC0 registers after lane l's value trades places with lane ``l ^ 16`` / ``l ^ 32``'s
    (:func:`xlane.permlane_swap`). Every active lane's partner must be active: what the swap reads from or writes to
    a lane outside EXEC, and what ``fi`` / ``bound_ctrl`` change there, is not modelled (undetermined)."""
    rows = 16 if ins.callee.startswith("llvm.amdgcn.permlane16.swap") else 32
    i32 = Ty("int", bits=32)
    if m.arch != "gfx950":
        raise unsupported(f"{ins.callee} on {m.arch} (a gfx950 instruction)", ins.text)
    if ins.ty != Ty("struct", members=(i32, i32)) or any(o.ty != i32 for o in ins.ops[:2]):
        raise unsupported(f"{ins.callee} of type {ins.ty}", ins.text)
    fi, bound = (_const_int(m, ins, i) for i in (2, 3))
    mask = m.mask.reshape(-1, WAVE)
    if np.any(mask & ~mask[:, np.arange(WAVE) ^ rows]):
        raise unsupported(f"{ins.callee} with a lane's partner (lane ^ {rows}) outside EXEC "
                          f"(fi={bool(fi)}, bound_ctrl={bool(bound)})", ins.text)  # fmt: skip
    vdst = m.full(np.asarray(m.get(ins.ops[0]), dtype=np.uint64), i32)
    src0 = m.full(np.asarray(m.get(ins.ops[1]), dtype=np.uint64), i32)
    new_vdst, new_src0 = xlane.permlane_swap(vdst, src0, rows)
    return [new_vdst.copy(), new_src0.copy()]


def readfirstlane(m, ins):
    src = m.full(m.get(ins.ops[0]), ins.ty)
    waves = src.reshape(-1, WAVE, *src.shape[1:])
    first = np.argmax(m.mask.reshape(-1, WAVE), axis=1)
    return np.repeat(waves[np.arange(waves.shape[0]), first], WAVE, axis=0)


def readlane(m, ins):
    src = m.full(m.get(ins.ops[0]), ins.ty)
    waves = src.reshape(-1, WAVE, *src.shape[1:])
    lane = np.broadcast_to(np.asarray(m.get(ins.ops[1]), dtype=np.int64), (m.n,)).reshape(-1, WAVE)[:, 0] % WAVE
    return np.repeat(waves[np.arange(waves.shape[0]), lane], WAVE, axis=0)


def _mbcnt(m, ins):
    mask = np.broadcast_to(np.asarray(m.get(ins.ops[0]), dtype=np.uint64), (m.n,))
    acc = np.broadcast_to(np.asarray(m.get(ins.ops[1]), dtype=np.uint64), (m.n,))
    lane = np.arange(m.n) % WAVE
    shift = np.clip(lane if ins.callee.endswith(".lo") else lane - 32, 0, 32).astype(np.uint64)
    below = np.where(shift >= 32, mask, mask & ((np.uint64(1) << shift) - np.uint64(1)))
    bits = np.unpackbits(below.astype(np.uint32).view(np.uint8).reshape(-1, 4), axis=1).sum(axis=1)
    return mask_bits(acc + bits.astype(np.uint64), 32)


def _ballot(m, ins):
    cond = np.broadcast_to(np.asarray(m.get(ins.ops[0]), dtype=bool), (m.n,)) & m.mask
    w = cond.reshape(-1, WAVE).astype(np.uint64)
    bits = (w << np.arange(WAVE, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    return mask_bits(np.repeat(bits, WAVE), ins.ty.bits)


def _workitem(m, ins):
    return m.ids[ins.callee.removeprefix("llvm.amdgcn.")].astype(np.uint64)


def _cvt_pkrtz(m, ins):
    a, b = (np.asarray(m.get(o), dtype=np.float32) for o in ins.ops[:2])
    out = np.stack([np.broadcast_to(a, (m.n,)), np.broadcast_to(b, (m.n,))], axis=1)
    # round toward zero: truncate the float32 to the nearest half not larger in magnitude
    h = out.astype(np.float16)
    over = np.abs(h.astype(np.float32)) > np.abs(out)
    h = np.where(over, np.nextafter(h, np.float16(0)), h)
    return h


def _buffer_load_lds(m, ins):
    """LDS DMA (``buffer_load_* … lds``): ``llvm.amdgcn.raw.ptr.buffer.load[.async].lds(rsrc, lds, size, voffset,
    soffset, offset, aux)``. Each active lane reads ``size`` bytes of the buffer at voffset + soffset + offset
    (bounds-checked against num_records like any buffer load) and the wave writes them to LDS at
    M0 + offset + lane * size, where M0 is the ``lds`` pointer of the wave's first active lane (the backend's
    readfirstlane into M0) and lane the lane's index in its wave: no VGPR receives the data. The synchronous form's
    bytes are in LDS for the next instruction (the compiler waits vmcnt(0) before LDS is read); the async form's land
    at the ``wait.asyncmark`` that retires their group (:func:`_wait_asyncmark`), so a read before that wait sees the
    old bytes, as it may on the GPU. The writes count as the issuing wave's for the barrier (lds-race) rules.
    """
    r = _rsrc(m, ins.ops[0])
    if np.any(r[:, 1] != 0):
        raise unsupported("LDS DMA through a resource with a stride", ins.text)
    size = _const_int(m, ins, 2)
    if size not in (1, 2, 4, 12, 16) or (size > 4 and m.arch != "gfx950"):
        raise unsupported(f"LDS DMA of {size} bytes per lane on {m.arch} (1, 2 or 4; 12 and 16 on gfx950)", ins.text)
    imm = np.uint64(_const_int(m, ins, 5) & 0xFFFFFFFF)
    off = (_buffer_offset(m, ins, 3) + imm) & np.uint64(0xFFFFFFFF)
    ty = Ty("vec", count=size, elem=Ty("int", bits=8))
    data = m.load_global(ins, r[:, 0] + off, ty, limit=r[:, 2], base=r[:, 0])
    lds_ptr = m.full(np.asarray(m.get(ins.ops[1]), dtype=np.uint64), ins.ops[1].ty)
    first = np.argmax(m.mask.reshape(-1, WAVE), axis=1)
    m0 = np.repeat(lds_ptr.reshape(-1, WAVE)[np.arange(first.shape[0]), first], WAVE)
    lane = (np.arange(m.n) % WAVE).astype(np.uint64)
    addr = (m0 + imm + lane * np.uint64(size)) & np.uint64(0xFFFFFFFF)
    if ".async." in ins.callee:
        m.async_lds[-1].append((ins, addr, data, ty, m.mask.copy()))
    else:
        m.store_lds(ins, addr, data, ty)


def _asyncmark(m, ins):
    """Closes the open group of async LDS DMAs (``asyncmark``): ``wait.asyncmark(n)`` counts groups."""
    m.async_lds.append([])


def _wait_asyncmark(m, ins):
    """``wait.asyncmark(n)``: every closed group but the newest n has landed; their LDS writes happen here, under
    the exec mask each DMA was issued with (the DMAs after the last asyncmark stay outstanding)."""
    keep = _const_int(m, ins, 0)
    closed = len(m.async_lds) - 1
    done = max(closed - keep, 0)
    mask = m.mask
    try:
        for group in m.async_lds[:done]:
            for dma_ins, addr, data, ty, issued in group:
                m.mask = issued
                m.store_lds(dma_ins, addr, data, ty)
    finally:
        m.mask = mask
    del m.async_lds[:done]


def _implicitarg_ptr(m, ins):
    from tools.check.engine import IMPLICIT_BASE

    return np.full(m.n, IMPLICIT_BASE, dtype=np.uint64)


AMDGCN_INTRINSICS: list[tuple[str, object]] = [
    ("llvm.amdgcn.implicitarg.ptr", _implicitarg_ptr),
    ("llvm.amdgcn.workitem.id.", _workitem),
    ("llvm.amdgcn.workgroup.id.", _workitem),
    ("llvm.amdgcn.make.buffer.rsrc", _rsrc_from_ptr),
    ("llvm.amdgcn.raw.ptr.buffer.load.async.lds", _buffer_load_lds),
    ("llvm.amdgcn.raw.ptr.buffer.load.lds", _buffer_load_lds),
    ("llvm.amdgcn.raw.buffer.load.lds", _buffer_load_lds),
    ("llvm.amdgcn.raw.ptr.buffer.load", _buffer_load),
    ("llvm.amdgcn.raw.buffer.load", _buffer_load),
    ("llvm.amdgcn.raw.ptr.buffer.store", _buffer_store),
    ("llvm.amdgcn.raw.buffer.store", _buffer_store),
    ("llvm.amdgcn.s.buffer.load", _s_buffer_load),
    ("llvm.amdgcn.mfma.", _mfma),
    ("llvm.amdgcn.update.dpp", _dpp),
    ("llvm.amdgcn.mov.dpp", _dpp),
    ("llvm.amdgcn.ds.swizzle", _swizzle),
    ("llvm.amdgcn.ds.bpermute", _bpermute),
    ("llvm.amdgcn.ds.permute", _permute),
    ("llvm.amdgcn.permlane16.swap", _permlane_swap),
    ("llvm.amdgcn.permlane32.swap", _permlane_swap),
    ("llvm.amdgcn.readfirstlane", readfirstlane),
    ("llvm.amdgcn.readlane", readlane),
    ("llvm.amdgcn.mbcnt.", _mbcnt),
    ("llvm.amdgcn.ballot", _ballot),
    ("llvm.amdgcn.cvt.pkrtz", _cvt_pkrtz),
    # async LDS DMA groups: a group's LDS writes land at the wait that retires it
    ("llvm.amdgcn.asyncmark", _asyncmark),
    ("llvm.amdgcn.wait.asyncmark", _wait_asyncmark),
]
