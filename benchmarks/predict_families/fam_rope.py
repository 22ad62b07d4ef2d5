"""Rotary position embedding (RoPE, the rotate-half form) applied to q [T, H, D] and k [T, HK, D] out of place, cos
and sin [T, D/2] in fp32: one fused kernel over both (ROWS tokens a program, every head) or one launch per tensor
(a program per token and BH heads). A fresh-corpus-only family (issue 31)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, npow2, randn, spec

FAMILY = "rope"
PROBLEMS = {}
FRESH_PROBLEMS = {
    "bf16_t8192_h32kv8_d128": {"T": 8192, "H": 32, "HK": 8, "D": 128, "dtype": torch.bfloat16},
    "f16_t3000_h12kv12_d64": {"T": 3000, "H": 12, "HK": 12, "D": 64, "dtype": torch.float16},
    "f32_t16384_h16kv2_d96": {"T": 16384, "H": 16, "HK": 2, "D": 96, "dtype": torch.float32},
    "f16_t256_h40kv8_d128": {"T": 256, "H": 40, "HK": 8, "D": 128, "dtype": torch.float16},
}


def fresh_designs(p):
    return {
        "fused_r1w4": {"kind": "fused", "ROWS": 1, "warps": 4},
        "fused_r4w8": {"kind": "fused", "ROWS": 4, "warps": 8},
        "split_h4w2": {"kind": "split", "BH": 4, "warps": 2},
        "split_hallw4": {"kind": "split", "BH": 0, "warps": 4},  # BH 0: every head of the tensor in one program
    }


def shrink(p):
    return dict(p, T=5, dtype=torch.float16 if p["dtype"] == torch.bfloat16 else p["dtype"])


@triton.jit
def _rotate(x_ptr, o_ptr, c, s, t, lim, nh, HALF: tl.constexpr, BH: tl.constexpr, BHALF: tl.constexpr, h0):
    h = h0 + tl.arange(0, BH)
    j = tl.arange(0, BHALF)
    m = (h[:, None] < nh) & (j[None, :] < lim)
    base = (t * nh + h[:, None]).to(tl.int64) * (2 * HALF) + j[None, :]
    x1 = tl.load(x_ptr + base, mask=m, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + HALF, mask=m, other=0.0).to(tl.float32)
    tl.store(o_ptr + base, (x1 * c[None, :] - x2 * s[None, :]).to(o_ptr.dtype.element_ty), mask=m)
    tl.store(o_ptr + base + HALF, (x2 * c[None, :] + x1 * s[None, :]).to(o_ptr.dtype.element_ty), mask=m)


@triton.jit
def rope_fused_kernel(q_ptr, k_ptr, cos_ptr, sin_ptr, qo_ptr, ko_ptr, T, H, HK, HALF: tl.constexpr,
                      ROWS: tl.constexpr, BHQ: tl.constexpr, BHK: tl.constexpr, BHALF: tl.constexpr):  # fmt: skip
    j = tl.arange(0, BHALF)
    for r in range(ROWS):
        t = tl.program_id(0) * ROWS + r
        lim = tl.where(t < T, HALF, 0)  # a token past the end: every lane masked
        c = tl.load(cos_ptr + t * HALF + j, mask=j < lim, other=0.0)
        s = tl.load(sin_ptr + t * HALF + j, mask=j < lim, other=0.0)
        _rotate(q_ptr, qo_ptr, c, s, t, lim, H, HALF, BHQ, BHALF, 0)
        _rotate(k_ptr, ko_ptr, c, s, t, lim, HK, HALF, BHK, BHALF, 0)


@triton.jit
def rope_heads_kernel(x_ptr, cos_ptr, sin_ptr, o_ptr, nh, HALF: tl.constexpr, BH: tl.constexpr,
                      BHALF: tl.constexpr):  # fmt: skip
    t = tl.program_id(0)
    j = tl.arange(0, BHALF)
    c = tl.load(cos_ptr + t * HALF + j, mask=j < HALF, other=0.0)
    s = tl.load(sin_ptr + t * HALF + j, mask=j < HALF, other=0.0)
    _rotate(x_ptr, o_ptr, c, s, t, HALF, nh, HALF, BH, BHALF, tl.program_id(1) * BH)


def _reference(x, cos, sin):
    half = x.shape[-1] // 2
    xf = x.float()
    x1, x2 = xf[..., :half], xf[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


def build(p, d, device):
    T, H, HK, D, dt = p["T"], p["H"], p["HK"], p["D"], p["dtype"]
    half, bhalf = D // 2, npow2(D // 2)
    q = randn((T, H, D), dt, device, seed=101)
    k = randn((T, HK, D), dt, device, seed=102)
    ang = randn((T, half), torch.float32, device, seed=103, scale=3.0)
    cos, sin = ang.cos(), ang.sin()
    qo, ko = empty((T, H, D), dt, device), empty((T, HK, D), dt, device)
    if d["kind"] == "fused":
        rows = d["ROWS"]
        launches = [spec(rope_fused_kernel, (cdiv(T, rows),), q, k, cos, sin, qo, ko, T, H, HK, HALF=half, ROWS=rows,
                         BHQ=npow2(H), BHK=npow2(HK), BHALF=bhalf, num_warps=d["warps"])]  # fmt: skip
    else:
        launches = []
        for x, o, nh in ((q, qo, H), (k, ko, HK)):
            bh = d["BH"] or npow2(nh)
            launches.append(spec(rope_heads_kernel, (T, cdiv(nh, bh)), x, cos, sin, o, nh, HALF=half, BH=bh,
                                 BHALF=bhalf, num_warps=d["warps"]))  # fmt: skip

    def ref():
        return [_reference(q, cos, sin), _reference(k, cos, sin)]

    tol = 1e-5 if dt == torch.float32 else 2e-2
    return Built(launches, [qo, ko], ref, tol, f"T={T} H={H} Hkv={HK} D={D} {dt}, {len(launches)} launch(es)")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_t4096_h28kv4_d128": {"T": 4096, "H": 28, "HK": 4, "D": 128, "dtype": torch.bfloat16},
    "f32_t2048_h40kv40_d80": {"T": 2048, "H": 40, "HK": 40, "D": 80, "dtype": torch.float32},
    "f16_t65536_h8kv1_d64": {"T": 65536, "H": 8, "HK": 1, "D": 64, "dtype": torch.float16},
}
