"""A whole 8192-float row per warp: scale each row of x (8192 x 8192 fp32) by its largest magnitude and a weight.

With ``warps=1`` (the default) a lane holds 256 of the row's values from the max to the scaling: more than 255
registers, so ptxas spills them to local memory (STL/LDL) and 8 warps fit an SM; with ``warps=8`` each lane holds 32
and nothing spills.
"""

import torch
import triton
import triton.language as tl

M, N = 8192, 8192


@triton.jit
def row_absmax_scale(x_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols)
    w = tl.load(w_ptr + cols)
    peak = tl.max(tl.abs(x), 0)
    tl.store(out_ptr + row * n + cols, x / peak * w)


def kernelpilot_entry(warps=1):
    x = torch.empty((M, N), dtype=torch.float32)
    return {"kernel": row_absmax_scale, "args": (x, torch.empty(N), torch.empty_like(x), N),
            "kwargs": {"BLOCK": N, "num_warps": warps}, "grid": (M,)}  # fmt: skip
