"""A Triton kernel whose tile is the whole vector: BLOCK is a constexpr the entry derives from n, and the loads are
unmasked (exactly BLOCK elements exist). A --shape n=… other than the default needs its own compile: the default
kernel, run on a shorter vector, would load past its end."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2.0)


def kernelpilot_entry(n=1024):
    x, out = torch.empty(n), torch.empty(n)
    return {"kernel": scale_kernel, "args": (x, out), "kwargs": {"BLOCK": n, "num_warps": 4}, "grid": (1,)}
