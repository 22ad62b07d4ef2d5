"""LayerNorm forward with weight and bias: the whole row in registers (one pass over memory), or a loop over
chunks (mean and variance pass, then the normalising pass: the row is read twice)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, empty, npow2, randn, spec

FAMILY = "layernorm"
PROBLEMS = {
    "f32_8192x1024": {"M": 8192, "N": 1024, "dtype": torch.float32},
    "bf16_4096x8192": {"M": 4096, "N": 8192, "dtype": torch.bfloat16},
    "f16_16384x4096": {"M": 16384, "N": 4096, "dtype": torch.float16},
}
EPS = 1e-5
SMALL = {
    "bf16_4096x8192": {"M": 2, "N": 8192, "dtype": torch.bfloat16},
    "f32_8192x1024": {"M": 3, "N": 1024, "dtype": torch.float32},
}


def designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (2, 4, 8, 16):
        if full // (warps * 32) <= 64:
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk in (512, 1024, 2048):
        if chunk < full:
            for warps in (4, 8):
                out[f"loop{chunk}w{warps}"] = {"kind": "loop", "BLOCK": chunk, "warps": warps}
    return out


@triton.jit
def layernorm_row_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * N + cols, (xc * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def layernorm_loop_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), tl.float32)
    acc2 = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc += x
        acc2 += x * x
    mean = tl.sum(acc, axis=0) / N
    var = tl.maximum(tl.sum(acc2, axis=0) / N - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * N + cols, ((x - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=7)
    w = randn((N,), dt, device, seed=8)
    b = randn((N,), dt, device, seed=9)
    y = empty((M, N), dt, device)
    kernel = layernorm_row_kernel if d["kind"] == "row" else layernorm_loop_kernel
    s = spec(kernel, (M,), x, w, b, y, N, EPS, BLOCK=d["BLOCK"], num_warps=d["warps"])

    def ref():
        return [torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), EPS)]

    return Built([s], [y], ref, 1e-4 if dt == torch.float32 else 2e-2, f"{M}x{N} {dt}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_6000x3000": {"M": 6000, "N": 3000, "dtype": torch.float32},
    "bf16_2048x12288": {"M": 2048, "N": 12288, "dtype": torch.bfloat16},
    "f16_32768x768": {"M": 32768, "N": 768, "dtype": torch.float16},
}


def hold_designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (4, 8, 16):
        if full // (warps * 32) <= 64:
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk in (256, 4096):
        if chunk < full:
            for warps in (4, 8):
                out[f"loop{chunk}w{warps}"] = {"kind": "loop", "BLOCK": chunk, "warps": warps}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_777x6000": {"M": 777, "N": 6000, "dtype": torch.float32},
    "bf16_100000x256": {"M": 100000, "N": 256, "dtype": torch.bfloat16},
    "f16_3000x20000": {"M": 3000, "N": 20000, "dtype": torch.float16},
}


def fresh_designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (2, 32):
        if 1 <= full // (warps * 32) <= 64:
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk, warps in ((128, 1), (512, 2), (8192, 16)):
        if chunk < full:
            out[f"loop{chunk}w{warps}"] = {"kind": "loop", "BLOCK": chunk, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_8192x5120": {"M": 8192, "N": 5120, "dtype": torch.bfloat16},
    "f32_1000x7168": {"M": 1000, "N": 7168, "dtype": torch.float32},
    "f16_65536x384": {"M": 65536, "N": 384, "dtype": torch.float16},
}
