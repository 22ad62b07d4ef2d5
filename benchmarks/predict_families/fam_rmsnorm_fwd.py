"""RMSNorm forward, y = x * rsqrt(mean(x^2) + eps) * w: ROWS rows per program (a 2-D block), whole rows."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, npow2, randn, spec

FAMILY = "rmsnorm_fwd"
PROBLEMS = {
    "bf16_16384x4096": {"M": 16384, "N": 4096, "dtype": torch.bfloat16},
    "f32_8192x2048": {"M": 8192, "N": 2048, "dtype": torch.float32},
    "f16_65536x512": {"M": 65536, "N": 512, "dtype": torch.float16},
}
EPS = 1e-6
SMALL = {
    "f32_8192x2048": {"M": 10, "N": 2048, "dtype": torch.float32},
    "f16_65536x512": {"M": 9, "N": 512, "dtype": torch.float16},
}


def designs(p):
    out = {}
    full = npow2(p["N"])
    for rows in (1, 2, 4, 8):
        for warps in (2, 4, 8, 16):
            per_thread = rows * full // (warps * 32)
            if 4 <= per_thread <= 64:
                out[f"r{rows}w{warps}"] = {"ROWS": rows, "BLOCK": full, "warps": warps}
    return out


@triton.jit
def rmsnorm_fwd_kernel(x_ptr, w_ptr, y_ptr, M, N, eps, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None].to(tl.int64) * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / N + eps)
    w = tl.load(w_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * rstd[:, None] * w[None, :]).to(y_ptr.dtype.element_ty), mask=mask)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=10)
    w = randn((N,), dt, device, seed=11)
    y = empty((M, N), dt, device)
    s = spec(rmsnorm_fwd_kernel, (cdiv(M, d["ROWS"]),), x, w, y, M, N, EPS, ROWS=d["ROWS"], BLOCK=d["BLOCK"],
             num_warps=d["warps"])  # fmt: skip

    def ref():
        xf = x.float()
        return [xf * torch.rsqrt((xf * xf).mean(dim=1, keepdim=True) + EPS) * w.float()]

    return Built([s], [y], ref, 1e-4 if dt == torch.float32 else 2e-2, f"{M}x{N} {dt}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_10000x3000": {"M": 10000, "N": 3000, "dtype": torch.float32},
    "bf16_4096x12288": {"M": 4096, "N": 12288, "dtype": torch.bfloat16},
    "f16_131072x256": {"M": 131072, "N": 256, "dtype": torch.float16},
}


def hold_designs(p):
    out = {}
    full = npow2(p["N"])
    for rows, warps in ((1, 8), (1, 32), (2, 1), (2, 4), (2, 8), (2, 32), (16, 4), (16, 8), (16, 32)):
        if 4 <= rows * full // (warps * 32) <= 64:
            out[f"r{rows}w{warps}"] = {"ROWS": rows, "BLOCK": full, "warps": warps}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_2000x6000": {"M": 2000, "N": 6000, "dtype": torch.float32},
    "bf16_5000x5120": {"M": 5000, "N": 5120, "dtype": torch.bfloat16},
    "f16_300000x128": {"M": 300000, "N": 128, "dtype": torch.float16},
}


def fresh_designs(p):
    out = {}
    full = npow2(p["N"])
    for rows, warps in ((1, 1), (2, 16), (4, 1), (4, 32), (8, 32), (32, 8), (32, 16)):
        if 4 <= rows * full // (warps * 32) <= 64:
            out[f"r{rows}w{warps}"] = {"ROWS": rows, "BLOCK": full, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_8192x7168": {"M": 8192, "N": 7168, "dtype": torch.bfloat16},
    "f16_200000x64": {"M": 200000, "N": 64, "dtype": torch.float16},
}
