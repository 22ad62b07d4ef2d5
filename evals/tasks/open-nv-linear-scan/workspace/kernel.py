"""A gated linear recurrence along the sequence, as in recurrent (state-space) layers:
h[b, t, d] = a[b, t, d] * h[b, t - 1, d] + x[b, t, d], with h[b, -1, d] = 0.

a and x are (B, L, D) fp32 contiguous (0 < a < 1); h is (B, L, D) fp32.

One program per (sequence, BLOCK_D channels) steps through the sequence one position at a time."""

import torch
import triton
import triton.language as tl

BLOCK_D = 64
OPTIONS = {"num_warps": 2}


@triton.jit
def linear_scan_kernel(a_ptr, x_ptr, h_ptr, L, D, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = d < D
    base = b.to(tl.int64) * L * D
    h = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for t in range(0, L):
        offs = base + t * D + d
        h = tl.load(a_ptr + offs, mask=mask, other=0.0) * h + tl.load(x_ptr + offs, mask=mask, other=0.0)
        tl.store(h_ptr + offs, h, mask=mask)


def forward(a, x):
    B, L, D = x.shape
    h = torch.empty_like(x)
    linear_scan_kernel[(B, triton.cdiv(D, BLOCK_D))](a, x, h, L, D, BLOCK_D=BLOCK_D, **OPTIONS)
    return h


def kernelpilot_entry():
    B, L, D = 1, 32768, 1024
    a = x = h = torch.empty((1, D))  # only dtype and alignment matter to the compiler
    grid = (B, triton.cdiv(D, BLOCK_D))
    return {"kernel": linear_scan_kernel, "args": (a, x, h, L, D), "kwargs": {"BLOCK_D": BLOCK_D, **OPTIONS}, "grid": grid}
