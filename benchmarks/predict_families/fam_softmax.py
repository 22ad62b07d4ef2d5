"""Row softmax: one program per row holding the whole row, or an online (running max/sum) two-pass loop over
chunks of the row."""

import torch
import triton
import triton.language as tl
from gen_common import Built, empty, npow2, randn, spec

FAMILY = "softmax"
PROBLEMS = {
    "f32_8192x1024": {"M": 8192, "N": 1024, "dtype": torch.float32},
    "f16_4096x4096": {"M": 4096, "N": 4096, "dtype": torch.float16},
    "f32_32768x256": {"M": 32768, "N": 256, "dtype": torch.float32},
    "bf16_1024x16384": {"M": 1024, "N": 16384, "dtype": torch.bfloat16},
}
SMALL = {
    "f16_4096x4096": {"M": 3, "N": 4096, "dtype": torch.float16},
    "f32_8192x1024": {"M": 2, "N": 1024, "dtype": torch.float32},
}


def designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (1, 2, 4, 8, 16):
        if full // (warps * 32) >= 1 and not (full >= 16384 and warps < 4):
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk in (256, 1024, 2048):
        if chunk < full:
            for warps in (4, 8):
                out[f"online{chunk}w{warps}"] = {"kind": "online", "BLOCK": chunk, "warps": warps}
    return out


@triton.jit
def softmax_row_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * N + cols, (e / tl.sum(e, axis=0)).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_online_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        alpha = tl.where(m == m_new, 1.0, tl.exp(m - m_new))
        s = s * alpha + tl.where(x > -float("inf"), tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        tl.store(y_ptr + row * N + cols, (tl.exp(x - row_max) / total).to(y_ptr.dtype.element_ty), mask=cols < N)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=6)
    y = empty((M, N), dt, device)
    kernel = softmax_row_kernel if d["kind"] == "row" else softmax_online_kernel
    s = spec(kernel, (M,), x, y, N, BLOCK=d["BLOCK"], num_warps=d["warps"])
    tol = 1e-5 if dt == torch.float32 else 2e-2
    return Built([s], [y], lambda: [torch.softmax(x.float(), dim=1)], tol, f"{M}x{N} {dt}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_6000x3000": {"M": 6000, "N": 3000, "dtype": torch.float32},
    "f16_512x32768": {"M": 512, "N": 32768, "dtype": torch.float16},
    "f32_65536x128": {"M": 65536, "N": 128, "dtype": torch.float32},
}


def hold_designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (1, 2, 4, 8, 16):
        if full // (warps * 32) >= 1 and not (full >= 16384 and warps < 4):
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk in (512, 4096):
        if chunk < full:
            for warps in (4, 8):
                out[f"online{chunk}w{warps}"] = {"kind": "online", "BLOCK": chunk, "warps": warps}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_2000x20000": {"M": 2000, "N": 20000, "dtype": torch.float32},
    "bf16_100000x64": {"M": 100000, "N": 64, "dtype": torch.bfloat16},
    "f16_300x131072": {"M": 300, "N": 131072, "dtype": torch.float16},
}


def fresh_designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (1, 2, 32):
        if 1 <= full // (warps * 32) <= 64:
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk, warps in ((128, 1), (8192, 16), (32768, 32)):
        if chunk < full:
            out[f"online{chunk}w{warps}"] = {"kind": "online", "BLOCK": chunk, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_6144x2560": {"M": 6144, "N": 2560, "dtype": torch.bfloat16},
    "f32_3072x10000": {"M": 3072, "N": 10000, "dtype": torch.float32},
    "f16_131072x96": {"M": 131072, "N": 96, "dtype": torch.float16},
}
