"""Fused residual add + LayerNorm: h = x + residual (stored: the next layer's residual), y = LayerNorm(h) * w + b;
the whole row in registers (one pass) or a loop over chunks (pass one stores h and sums it, pass two reads h back).
A fresh-corpus-only family (issue 31)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, empty, npow2, randn, spec

FAMILY = "add_layernorm"
PROBLEMS = {}
EPS = 1e-5
FRESH_PROBLEMS = {
    "bf16_6144x5120": {"M": 6144, "N": 5120, "dtype": torch.bfloat16},
    "f16_20000x1024": {"M": 20000, "N": 1024, "dtype": torch.float16},
    "f32_3333x2304": {"M": 3333, "N": 2304, "dtype": torch.float32},
    "bf16_256x8192": {"M": 256, "N": 8192, "dtype": torch.bfloat16},
}


def fresh_designs(p):
    full = npow2(p["N"])
    out = {}
    for warps in (4, 8, 16):
        if 4 <= full // (warps * 32) <= 64:
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk, warps in ((1024, 4), (2048, 8)):
        if chunk < full:
            out[f"loop{chunk}w{warps}"] = {"kind": "loop", "BLOCK": chunk, "warps": warps}
    return out


def shrink(p):
    return dict(p, M=3, dtype=torch.float16 if p["dtype"] == torch.bfloat16 else p["dtype"])


@triton.jit
def add_ln_row_kernel(x_ptr, r_ptr, w_ptr, b_ptr, h_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    h = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    h += tl.load(r_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(h_ptr + row * N + cols, h.to(h_ptr.dtype.element_ty), mask=mask)
    mean = tl.sum(h, axis=0) / N
    diff = tl.where(mask, h - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(diff * diff, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * N + cols, (diff * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def add_ln_loop_kernel(x_ptr, r_ptr, w_ptr, b_ptr, h_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    s1 = tl.zeros((BLOCK,), tl.float32)
    s2 = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        h = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        h += tl.load(r_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(h_ptr + row * N + cols, h.to(h_ptr.dtype.element_ty), mask=mask)
        s1 += h
        s2 += h * h
    mean = tl.sum(s1, axis=0) / N
    rstd = tl.rsqrt(tl.maximum(tl.sum(s2, axis=0) / N - mean * mean, 0.0) + eps)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        h = tl.load(h_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * N + cols, ((h - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=121)
    res = randn((M, N), dt, device, seed=122)
    w = randn((N,), dt, device, seed=123)
    b = randn((N,), dt, device, seed=124)
    h, y = empty((M, N), dt, device), empty((M, N), dt, device)
    kernel = add_ln_row_kernel if d["kind"] == "row" else add_ln_loop_kernel
    s = spec(kernel, (M,), x, res, w, b, h, y, N, EPS, BLOCK=d["BLOCK"], num_warps=d["warps"])

    def ref():
        hf = x.float() + res.float()
        yf = torch.nn.functional.layer_norm(hf, (N,), w.float(), b.float(), EPS)
        return [hf, yf]

    return Built([s], [h, y], ref, 1e-4 if dt == torch.float32 else 2e-2, f"{M}x{N} {dt}, residual stored")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_2048x7168": {"M": 2048, "N": 7168, "dtype": torch.bfloat16},
    "f16_12000x1536": {"M": 12000, "N": 1536, "dtype": torch.float16},
    "f32_100x5120": {"M": 100, "N": 5120, "dtype": torch.float32},
}
