"""Check test data: a Triton kernel with two stores, ``out[:n] = 2 x`` then ``out[n:] = x + 1``. BUG (rewritten by
the tests) plants a value-only bug in the second: no access changes, only the values that store writes."""

import torch
import triton
import triton.language as tl

BUG = tl.constexpr(0)


@triton.jit
def two_stores(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    mask = i < n
    x = tl.load(x_ptr + i, mask=mask)
    tl.store(out_ptr + i, x * 2, mask=mask)  # the doubled copy
    y = x + 1 + BUG
    tl.store(out_ptr + n + i, y, mask=mask)  # the incremented copy


def kernelpilot_inputs(seed, n=100):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-1000, 1000, (n,), generator=g, dtype=torch.int32)
    out = torch.zeros(2 * n, dtype=torch.int32)
    return {"kernel": two_stores, "args": (x, out, n), "kwargs": {"BLOCK": 128, "num_warps": 2}, "grid": (1,)}


def kernelpilot_entry():
    return kernelpilot_inputs(0)
