"""Lane values: how each LLVM type is stored per lane (numpy), brought back to its width, and turned into bytes.

Integers are stored zero-extended in uint64 (i1 as bool), bfloat as float32 rounded to bfloat, vectors as a trailing
axis. ``to_bytes``/``from_bytes`` are the memory and ``bitcast`` view of a value: little endian, vectors packed, and
vectors of sub-byte integers (``<8 x i1>``) packed element 0 in the lowest bits, as LLVM lays them out. Integers
wider than 64 bits (``i128``: a buffer resource as an integer) are stored as their 32-bit words, lowest first, on a
trailing axis, the same array as the ``<4 x i32>`` they bitcast to; only moves and casts run on them (:func:`wide`).
"""

from __future__ import annotations

import numpy as np

from tools.check.ir import Ty, unsupported

WAVE = 64


def mask_bits(x: np.ndarray, bits: int) -> np.ndarray:
    if bits >= 64:
        return x
    return x & np.uint64((1 << bits) - 1)


def as_signed(x: np.ndarray, bits: int) -> np.ndarray:
    x = np.ascontiguousarray(np.asarray(x, dtype=np.uint64))
    if bits < 64:
        sign = np.uint64(1 << (bits - 1))
        x = (x ^ sign) - sign
    return x.view(np.int64)


def round_bf16(x: np.ndarray) -> np.ndarray:
    """float32 → bfloat (held in float32): to nearest, ties to even; a NaN keeps its sign and its payload's top bits,
    quieted (LLVM's fptrunc: the low payload bits that do not fit are dropped), so a bfloat NaN constant such as
    Triton's 0x7FFF is stored as those bits, as the GPU stores it."""
    u = np.ascontiguousarray(np.asarray(x, dtype=np.float32)).view(np.uint32).copy()
    nan = np.isnan(u.view(np.float32))
    rounded = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    quiet = (u & np.uint32(0xFFFF0000)) | np.uint32(0x00400000)
    return np.where(nan, quiet, rounded).view(np.float32)


def fit_to_type(ty: Ty, x):
    """Bring an arithmetic result back to its type's storage: ints wrap to their width, bfloat rounds."""
    s = ty.scalar
    if s.kind == "int":
        if s.bits == 1:
            return np.asarray(x).astype(np.bool_)
        return mask_bits(np.asarray(x).astype(np.uint64), s.bits)
    if s.kind == "float":
        if s.fmt == "bfloat":
            return round_bf16(x)
        return np.asarray(x).astype(s.np_dtype)
    return x


_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def wide(ty: Ty) -> bool:
    """An integer wider than 64 bits, held as 32-bit words (``words(ty)`` of them) on a trailing axis."""
    return ty.kind == "int" and ty.bits > 64


def words(ty: Ty) -> int:
    if ty.bits % 32:
        raise unsupported(f"values of type {ty}")
    return ty.bits // 32


def _packed_bits(ty: Ty) -> bool:
    """A vector of sub-byte integers (``<8 x i1>``, ``<2 x i4>``): its elements share bytes."""
    return ty.kind == "vec" and ty.elem.kind == "int" and ty.elem.bits < 8


def to_bytes(x: np.ndarray, ty: Ty, n: int) -> np.ndarray:
    """(n, …) lane values → (n, ty.size) bytes, little endian."""
    s = ty.scalar
    if wide(ty):
        raw = np.ascontiguousarray(np.broadcast_to(x, (n, words(ty))).astype(np.uint32))
        return raw.view(np.uint8).reshape(n, ty.size)
    count = ty.count if ty.kind == "vec" else 1
    shape = (n, count) if ty.kind == "vec" else (n,)
    x = np.broadcast_to(x, shape)
    if _packed_bits(ty):
        if s.bits * count > 64 or (s.bits * count) % 8:
            raise unsupported(f"memory or bitcast of {ty}")
        word = np.zeros(n, dtype=np.uint64)
        for i in range(count):
            word |= (x[:, i].astype(np.uint64) & np.uint64((1 << s.bits) - 1)) << np.uint64(i * s.bits)
        return np.ascontiguousarray(word).view(np.uint8).reshape(n, 8)[:, : ty.size]
    if s.kind == "int" or s.kind == "ptr":
        bits = s.bits if s.kind == "int" else s.size * 8
        if bits == 1 and ty.kind != "vec":  # a lone i1 is stored as a byte, 0 or 1
            bits = 8
        if bits not in _UINT:
            raise unsupported(f"memory or bitcast of {ty}")
        raw = np.ascontiguousarray(x.astype(_UINT[bits]))
    elif s.kind == "float":
        if s.fmt == "bfloat":
            raw = (np.ascontiguousarray(round_bf16(x)).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
        else:
            raw = np.ascontiguousarray(x.astype(s.np_dtype))
    else:
        raise unsupported(f"memory or bitcast of {ty}")
    return raw.view(np.uint8).reshape(n, ty.size)


def from_bytes(b: np.ndarray, ty: Ty):
    n = b.shape[0]
    s = ty.scalar
    b = np.ascontiguousarray(b)
    if wide(ty):
        return b.view(np.uint32).reshape(n, words(ty)).astype(np.uint64)
    if _packed_bits(ty):
        if s.bits * ty.count > 64 or (s.bits * ty.count) % 8:
            raise unsupported(f"memory or bitcast of {ty}")
        padded = np.zeros((n, 8), dtype=np.uint8)
        padded[:, : ty.size] = b
        word = padded.view(np.uint64).reshape(n)
        shifts = np.arange(ty.count, dtype=np.uint64) * np.uint64(s.bits)
        vals = (word[:, None] >> shifts[None, :]) & np.uint64((1 << s.bits) - 1)
        return vals.astype(bool) if s.bits == 1 else vals
    if s.kind == "int" or s.kind == "ptr":
        bits = s.bits if s.kind == "int" else s.size * 8
        if bits == 1 and ty.kind != "vec":
            return b.reshape(n).astype(bool)
        if bits not in _UINT:
            raise unsupported(f"memory or bitcast of {ty}")
        vals = b.view(_UINT[bits]).astype(np.uint64)
    elif s.kind == "float":
        if s.fmt == "bfloat":
            vals = (b.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
        else:
            vals = b.view(s.np_dtype).copy()
    else:
        raise unsupported(f"memory or bitcast of {ty}")
    return vals.reshape(n, ty.count) if ty.kind == "vec" else vals.reshape(n)
