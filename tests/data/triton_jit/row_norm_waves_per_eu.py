"""Row LayerNorm (no bias) with ``num_warps=8, waves_per_eu=4``: LLVM pads its VGPR allocation to honour
``amdgpu-waves-per-eu="4,4"``, so the descriptor reserves far more VGPRs than the kernel uses."""

import torch
import triton
import triton.language as tl

ROWS, N = 8, 4096


@triton.jit
def row_norm_kernel(x_ptr, w_ptr, out_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, 0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, 0) / N
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * N + cols, xc * tl.rsqrt(var + eps) * w, mask=mask)


def kernelpilot_entry():
    x = torch.randn(ROWS, N)
    w = torch.randn(N)
    out = torch.empty_like(x)
    return {
        "kernel": row_norm_kernel,
        "args": (x, w, out, N, 1e-5),
        "kwargs": {"BLOCK": N, "num_warps": 8, "waves_per_eu": 4},
        "grid": (ROWS,),
    }
