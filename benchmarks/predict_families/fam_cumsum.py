"""Row-wise inclusive prefix sum: the whole row scanned at once (tl.cumsum), or chunk by chunk with a running
carry (a sequential dependence between iterations)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, npow2, randn, spec

FAMILY = "cumsum"
PROBLEMS = {
    "f32_16384x1024": {"M": 16384, "N": 1024, "dtype": torch.float32},
    "f32_2048x16384": {"M": 2048, "N": 16384, "dtype": torch.float32},
    "bf16_65536x256": {"M": 65536, "N": 256, "dtype": torch.bfloat16},
}
SMALL = {
    "f32_2048x16384": {"M": 2, "N": 16384, "dtype": torch.float32},
    "bf16_65536x256": {"M": 3, "N": 256, "dtype": torch.bfloat16},
}


def designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (2, 4, 8, 16):
        if 1 <= full // (warps * 32) <= 64:
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk in (128, 256, 1024, 4096):
        if chunk < full:
            for warps in (2, 4, 8):
                if chunk // (warps * 32) >= 1:
                    out[f"chunk{chunk}w{warps}"] = {"kind": "chunk", "BLOCK": chunk, "warps": warps}
    return out


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros((), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
        c = tl.cumsum(x, axis=0) + carry
        tl.store(y_ptr + row * N + cols, c.to(y_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=17)
    y = empty((M, N), dt, device)
    s = spec(cumsum_kernel, (M,), x, y, N, BLOCK=d["BLOCK"], num_warps=d["warps"])
    tol = 1e-4 if dt == torch.float32 else 2e-2
    return Built([s], [y], lambda: [x.float().cumsum(dim=1)], tol, f"{M}x{N} {dt}, {cdiv(N, d['BLOCK'])} chunk(s)")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_6000x3000": {"M": 6000, "N": 3000, "dtype": torch.float32},
    "f16_32768x512": {"M": 32768, "N": 512, "dtype": torch.float16},
    "bf16_1024x32768": {"M": 1024, "N": 32768, "dtype": torch.bfloat16},
}


def hold_designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (4, 8, 16):
        if 2 <= full // (warps * 32) <= 64:
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk, warps in ((128, 2), (128, 4), (512, 2), (512, 8), (2048, 4), (2048, 8)):
        if chunk < full:
            out[f"chunk{chunk}w{warps}"] = {"kind": "chunk", "BLOCK": chunk, "warps": warps}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f16_50000x100": {"M": 50000, "N": 100, "dtype": torch.float16},
    "f32_300x65536": {"M": 300, "N": 65536, "dtype": torch.float32},
    "bf16_4096x3000": {"M": 4096, "N": 3000, "dtype": torch.bfloat16},
}


def fresh_designs(p):
    out = {}
    full = npow2(p["N"])
    for warps in (1, 2, 32):
        if 1 <= full // (warps * 32) <= 64:
            out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk, warps in ((64, 2), (256, 1), (8192, 16)):
        if chunk < full:
            out[f"chunk{chunk}w{warps}"] = {"kind": "chunk", "BLOCK": chunk, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "f32_4096x5120": {"M": 4096, "N": 5120, "dtype": torch.float32},
    "f16_40000x200": {"M": 40000, "N": 200, "dtype": torch.float16},
}
