"""Reference implementations of the cross-lane AMDGPU operations: MFMA, DPP, ds_swizzle, ds_bpermute,
gfx950's permlane16/32 swaps.

Every function takes per-lane arrays shaped ``(waves * 64, …)`` and works wave by wave (lanes reshaped to
``(waves, 64, …)``). The MFMA lane/register layouts follow AMD's CDNA3 ISA guide (section "Matrix fused multiply
add", dependent-register tables; the amd_matrix_instruction_calculator prints the same): for an ``M×N×K`` single-block
MFMA with ``G = 64 / M`` lane groups and ``K / G`` operand items per lane,

* A[i][k] is in lane ``i + M * (k // (K/G))``, item ``k % (K/G)``; B[k][j] likewise with ``j`` for ``i``;
* D[i][j] is in lane ``j + M * ((i // 4) % G)``, item ``i % 4 + 4 * (i // (4 * G))``.
"""

from __future__ import annotations

import numpy as np

WAVE = 64


def _fp8_table(fmt: str) -> np.ndarray:
    """The 256 values of an 8-bit float format as float32 (gfx942 FNUZ formats, gfx950 OCP formats)."""
    exp_bits, man_bits, bias, fnuz = {
        "fp8_fnuz": (4, 3, 8, True),
        "bf8_fnuz": (5, 2, 16, True),
        "fp8_ocp": (4, 3, 7, False),
        "bf8_ocp": (5, 2, 15, False),
    }[fmt]
    out = np.zeros(256, dtype=np.float32)
    for b in range(256):
        sign = -1.0 if b & 0x80 else 1.0
        e = (b >> man_bits) & ((1 << exp_bits) - 1)
        m = b & ((1 << man_bits) - 1)
        if fnuz and b == 0x80:
            out[b] = np.nan
            continue
        if not fnuz:
            if exp_bits == 4 and e == 15 and m == 7:
                out[b] = np.nan
                continue
            if exp_bits == 5 and e == 31:
                out[b] = np.nan if m else sign * np.inf
                continue
        if e == 0:
            out[b] = sign * (m / (1 << man_bits)) * 2.0 ** (1 - bias)
        else:
            out[b] = sign * (1 + m / (1 << man_bits)) * 2.0 ** (e - bias)
    return out


_FP8_TABLES: dict[str, np.ndarray] = {}


def fp8_decode(raw: np.ndarray, fmt: str) -> np.ndarray:
    if fmt not in _FP8_TABLES:
        _FP8_TABLES[fmt] = _fp8_table(fmt)
    return _FP8_TABLES[fmt][raw.astype(np.uint8)]


def mfma_exact(a: np.ndarray, b: np.ndarray, c: np.ndarray, m: int, k: int) -> np.ndarray:
    """Integer MFMA: the same layouts in float64 (exact for int8 products and sums), wrapped to int32."""
    d = _mfma_f64(a, b, c, m, k)
    return ((np.rint(d).astype(np.int64) + (1 << 31)) % (1 << 32)) - (1 << 31)


def mfma(a: np.ndarray, b: np.ndarray, c: np.ndarray, m: int, k: int) -> np.ndarray:
    """One single-block M×M×K MFMA per wave: a, b are (lanes, K/G) floats; c is (lanes, M*M/64) f32."""
    return _mfma_f64(a, b, c, m, k).astype(np.float32)


def _mfma_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray, m: int, k: int) -> np.ndarray:
    groups = WAVE // m
    kpl = k // groups
    waves = a.shape[0] // WAVE
    a = a.reshape(waves, WAVE, kpl).astype(np.float64)
    b = b.reshape(waves, WAVE, kpl).astype(np.float64)
    # A[w, i, kk] = a[w, i + m*(kk//kpl), kk%kpl]
    i = np.arange(m)[:, None]
    kk = np.arange(k)[None, :]
    lane_ak = i + m * (kk // kpl)
    item_k = np.broadcast_to(kk % kpl, lane_ak.shape)
    amat = a[:, lane_ak, item_k]  # (w, m, k)
    bmat = b[:, lane_ak, item_k]  # (w, n=j, k): B[k][j] stored by lane j + m*(k//kpl)
    prod = np.matmul(amat.astype(np.float64), np.swapaxes(bmat, 1, 2).astype(np.float64))  # (w, m, n)
    lane_d, item_d = _d_layout(m)
    cmat = c.reshape(waves, WAVE, -1)[:, lane_d, item_d]  # (w, m, n)
    d = prod + cmat.astype(np.float64)
    out = np.empty((waves, WAVE, m * m // WAVE), dtype=np.float64)
    out[:, lane_d, item_d] = d
    return out.reshape(waves * WAVE, -1)


def _d_layout(m: int) -> tuple[np.ndarray, np.ndarray]:
    groups = WAVE // m
    i = np.arange(m)[:, None]
    j = np.arange(m)[None, :]
    lane = j + m * ((i // 4) % groups)
    item = np.broadcast_to(i % 4 + 4 * (i // (4 * groups)), lane.shape)
    return lane, item


# ----------------------------------------------------------------------------------------------------- DPP
# dpp_ctrl encodings (LLVM's AMDGPU::DPP::DppCtrl; CDNA3 ISA guide, "DPP"): 0x000-0x0FF quad_perm, 0x101-0x10F
# row_shl, 0x111-0x11F row_shr, 0x121-0x12F row_ror, 0x130 wave_shl1, 0x134 wave_rol1, 0x138 wave_shr1, 0x13C
# wave_ror1, 0x140 row_mirror, 0x141 row_half_mirror, 0x142 row_bcast15, 0x143 row_bcast31, 0x150-0x15F
# row_newbcast (gfx90a+; GFX10+ calls the same encoding row_share: every lane of a row reads lane n of that row),
# 0x160-0x16F row_xmask (GFX10+ only: lane reads lane ``pos ^ n`` of its row).
def dpp_source_lanes(ctrl: int, arch: str = "gfx942") -> np.ndarray:
    """For each of 64 lanes, the lane a DPP move reads (-1 where the source is invalid), per dpp_ctrl's encoding."""
    lane = np.arange(WAVE)
    row, pos = lane // 16, lane % 16
    if ctrl <= 0xFF:  # quad_perm
        sel = [(ctrl >> (2 * q)) & 3 for q in range(4)]
        return (lane & ~3) + np.array(sel)[lane % 4]
    if 0x101 <= ctrl <= 0x10F:  # row_shl: lane reads lane + n within its row
        n = ctrl - 0x100
        src = pos + n
        return np.where(src < 16, row * 16 + src, -1)
    if 0x111 <= ctrl <= 0x11F:  # row_shr
        n = ctrl - 0x110
        src = pos - n
        return np.where(src >= 0, row * 16 + src, -1)
    if 0x121 <= ctrl <= 0x12F:  # row_ror
        n = ctrl - 0x120
        return row * 16 + (pos - n) % 16
    if ctrl == 0x130:  # wave_shl1
        return np.where(lane + 1 < WAVE, lane + 1, -1)
    if ctrl == 0x134:  # wave_rol1
        return (lane + 1) % WAVE
    if ctrl == 0x138:  # wave_shr1
        return np.where(lane >= 1, lane - 1, -1)
    if ctrl == 0x13C:  # wave_ror1
        return (lane - 1) % WAVE
    if ctrl == 0x140:  # row_mirror
        return row * 16 + (15 - pos)
    if ctrl == 0x141:  # row_half_mirror
        return (lane & ~7) + (7 - lane % 8)
    if ctrl == 0x142:  # row_bcast15: rows 1..3 read lane 15 of the previous row
        return np.where(row > 0, (row - 1) * 16 + 15, -1)
    if ctrl == 0x143:  # row_bcast31: rows 2,3 read lane 31
        return np.where(row > 1, 31, -1)
    if 0x150 <= ctrl <= 0x15F and arch not in ("gfx908",):  # row_newbcast / row_share: lane n of the row
        return row * 16 + (ctrl - 0x150)
    if 0x160 <= ctrl <= 0x16F and arch.startswith(("gfx10", "gfx11", "gfx12")):  # row_xmask
        return row * 16 + (pos ^ (ctrl - 0x160))
    raise ValueError(f"dpp_ctrl {ctrl:#x} on {arch}")


def dpp(
    old: np.ndarray,
    src: np.ndarray,
    ctrl: int,
    row_mask: int,
    bank_mask: int,
    bound_ctrl: bool,
    exec_mask: np.ndarray | None = None,
    arch: str = "gfx942",
) -> np.ndarray:
    """update.dpp: lanes whose row/bank is disabled keep ``old``; a lane whose source is invalid (out of the row or
    wave, or a lane outside ``exec_mask``) reads 0 with bound_ctrl, else keeps ``old``. Works on any element type:
    an i64 DPP moves both halves from the same source lane."""
    waves = src.shape[0] // WAVE
    s = src.reshape(waves, WAVE, *src.shape[1:])
    o = np.broadcast_to(old, src.shape).reshape(s.shape)
    srcl = dpp_source_lanes(ctrl, arch)
    safe = np.where(srcl >= 0, srcl, 0)
    valid = np.broadcast_to(srcl >= 0, (waves, WAVE))
    if exec_mask is not None:
        valid = valid & exec_mask.reshape(waves, WAVE)[:, safe]
    moved = s[:, safe]
    fill = np.zeros_like(moved) if bound_ctrl else o
    invalid = ~valid.reshape((waves, WAVE) + (1,) * (s.ndim - 2))
    moved = np.where(invalid, fill, moved)
    lane = np.arange(WAVE)
    enabled = ((row_mask >> (lane // 16)) & 1).astype(bool) & ((bank_mask >> (lane % 4)) & 1).astype(bool)
    enabled = enabled.reshape((1, WAVE) + (1,) * (s.ndim - 2))
    return np.where(enabled, moved, o).reshape(src.shape)


def swizzle_source_lanes(offset: int) -> np.ndarray:
    """ds_swizzle_b32: offset[15]=1 → quad permute; else bit-mask mode over groups of 32 lanes."""
    lane = np.arange(WAVE)
    if offset & 0x8000:
        sel = [(offset >> (2 * q)) & 3 for q in range(4)]
        return (lane & ~3) + np.array(sel)[lane % 4]
    and_mask, or_mask, xor_mask = offset & 0x1F, (offset >> 5) & 0x1F, (offset >> 10) & 0x1F
    return (lane & ~0x1F) + ((((lane & 0x1F) & and_mask) | or_mask) ^ xor_mask)


def gather_in_wave(src: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """Per wave, lane l reads src from lane ``lanes[l]`` (a 64-vector or a (lanes,) array of in-wave indices)."""
    waves = src.shape[0] // WAVE
    s = src.reshape(waves, WAVE, *src.shape[1:])
    if lanes.shape == (WAVE,):
        return s[:, lanes].reshape(src.shape)
    idx = lanes.reshape(waves, WAVE)
    return np.take_along_axis(s, idx.reshape(idx.shape + (1,) * (s.ndim - 2)), axis=1).reshape(src.shape)


def permlane_swap(vdst: np.ndarray, src0: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``v_permlane16_swap_b32`` (``rows=16``) / ``v_permlane32_swap_b32`` (``rows=32``), gfx950: the two registers
    after the swap, ``(vdst, src0)``: the ``{i32, i32}`` pair ``llvm.amdgcn.permlane{16,32}.swap(i32 old, i32 src0,
    i1 fi, i1 bound_ctrl)`` returns (LLVM's description of the intrinsic, as Rust's ``core::arch::amdgpu`` binding
    of it repeats: "the first element of the return corresponds to the swapped element of the first argument").

    Source: the CDNA4 ISA guide, VOP1 opcodes 89 and 90. V_PERMLANE16_SWAP_B32 swaps the odd rows (16 lanes) of VDST
    with the even rows of SRC0: for pass 0..1 and lane 0..15, ``SRC0[pass*32 + lane]`` and ``VDST[pass*32 + lane +
    16]`` trade places. V_PERMLANE32_SWAP_B32 swaps rows 2 and 3 of VDST with rows 0 and 1 of SRC0: for lane 0..31,
    ``SRC0[lane]`` and ``VDST[lane + 32]`` trade places. So lane l's partner is ``l ^ rows``: in the upper half of
    each pair VDST takes SRC0 from the partner and SRC0 keeps its own; in the lower half SRC0 takes VDST from the
    partner and VDST keeps its own. The guide's loops read every lane: whether a lane outside EXEC takes part, and
    what ``fi`` / ``bound_ctrl`` change then, is not modelled here (the caller refuses such a wave).
    """
    if rows not in (16, 32):
        raise ValueError(f"permlane swap of {rows} lanes (16 or 32)")
    waves = src0.shape[0] // WAVE
    v = np.broadcast_to(vdst, src0.shape).reshape(waves, WAVE, *src0.shape[1:])
    s = src0.reshape(v.shape)
    lane = np.arange(WAVE)
    partner = lane ^ rows
    upper = ((lane & rows) != 0).reshape((1, WAVE) + (1,) * (s.ndim - 2))
    new_vdst = np.where(upper, s[:, partner], v)
    new_src0 = np.where(upper, s, v[:, partner])
    return new_vdst.reshape(src0.shape), new_src0.reshape(src0.shape)
