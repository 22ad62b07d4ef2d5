"""A row sum whose loop bound is the longest of a block of loaded lengths (``tl.max(tl.load(lens + offs))``): a
reduction over a loaded tensor, which the loop-bound evaluation does not run, so the bound is not known before the
launch and the hot loop's trips are assumed."""

import torch
import triton
import triton.language as tl

PROGRAMS, MAX_LEN, BLOCK = 128, 128 * 1024, 1024


@triton.jit
def max_len_sum_kernel(x_ptr, lens_ptr, out_ptr, MAX_LEN: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    longest = tl.max(tl.load(lens_ptr + tl.arange(0, 128)), 0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, longest, BLOCK):
        acc += tl.load(x_ptr + pid * MAX_LEN + i + offs)
    tl.store(out_ptr + pid, tl.sum(acc, 0))


def kernelpilot_entry():
    x = torch.ones((PROGRAMS, MAX_LEN), dtype=torch.float32)
    lens = (torch.arange(PROGRAMS, dtype=torch.int32) + 1) * BLOCK
    out = torch.empty((PROGRAMS,), dtype=torch.float32)
    return {"kernel": max_len_sum_kernel, "args": (x, lens, out), "kwargs": {"MAX_LEN": MAX_LEN, "BLOCK": BLOCK,
            "num_warps": 4}, "grid": (PROGRAMS,)}  # fmt: skip
