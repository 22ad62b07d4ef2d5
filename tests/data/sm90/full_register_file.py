"""A softmax of one 8192-float row on one warp: every lane holds 8192 / 32 = 256 values of x, more than the 255
registers ptxas may give a thread, so Triton's sm_90 cubin uses all 255 and spills the rest to the stack frame."""

import torch
import triton
import triton.language as tl

BLOCK = 8192


@triton.jit
def wide_softmax(x_ptr, out_ptr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols)
    z = tl.exp(x - tl.max(x, 0))
    tl.store(out_ptr + cols, z / tl.sum(z, 0))


def kernelpilot_entry():
    x = torch.empty(BLOCK)
    return {
        "kernel": wide_softmax,
        "args": (x, torch.empty_like(x)),
        "kwargs": {"BLOCK": BLOCK, "num_warps": 1},
        "grid": (1,),
    }
