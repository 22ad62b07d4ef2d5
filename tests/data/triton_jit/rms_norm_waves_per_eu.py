"""RMS norm of rows of 4096 fp32 values with ``num_warps=8, waves_per_eu=4``: LLVM pads the VGPR allocation to
honour ``amdgpu-waves-per-eu="4,4"``, so the descriptor reserves far more VGPRs than the kernel uses."""

import torch
import triton
import triton.language as tl

ROWS, N = 8, 4096


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * n_cols + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    inv_rms = tl.rsqrt(tl.sum(x * x, 0) / n_cols + eps)
    tl.store(out_ptr + offs, x * inv_rms * tl.load(w_ptr + tl.arange(0, BLOCK)))


def kernelpilot_entry():
    x = torch.randn(ROWS, N)
    w = torch.randn(N)
    out = torch.empty_like(x)
    return {
        "kernel": rms_norm_kernel,
        "args": (x, w, out, N, 1e-6),
        "kwargs": {"BLOCK": N, "num_warps": 8, "waves_per_eu": 4},
        "grid": (ROWS,),
    }
