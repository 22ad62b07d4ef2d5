"""check's several-launches baseline: one Triton program sums an int32 vector in BLOCK tiles (integer sums are
exact in any order, so a split + merge rewrite must agree bit for bit)."""

import torch
import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.int32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr, tl.sum(acc))


def kernelpilot_entry(n=2048):
    x, out = torch.empty(n, dtype=torch.int32), torch.empty(1, dtype=torch.int32)
    return {"kernel": sum_kernel, "args": (x, out, n), "kwargs": {"BLOCK": 256, "num_warps": 4}, "grid": (1,)}
