"""A whole call of two Triton launches: a split kernel (each program sums its chunk of x in a loop of BLOCK tiles)
and a merge kernel (one program sums the partials). ``kernelpilot_entry()`` returns the call form: kernelpilot runs
``split_sum`` with both launches recorded instead of executed, and analyses each in order."""

import torch
import triton
import triton.language as tl

N, SPLITS, BLOCK = 1 << 20, 64, 1024


@triton.jit
def partial_sum_kernel(x_ptr, part_ptr, chunk, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, chunk, BLOCK):
        offs = pid * chunk + start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs)
    tl.store(part_ptr + pid, tl.sum(acc))


@triton.jit
def merge_kernel(part_ptr, out_ptr, n_parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    parts = tl.load(part_ptr + offs, mask=offs < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(parts))


def split_sum(x, splits=SPLITS):
    """The user's host function: two launches, the second reading what the first wrote."""
    parts = torch.empty(splits, dtype=torch.float32, device=x.device)
    out = torch.empty(1, dtype=torch.float32, device=x.device)
    partial_sum_kernel[(splits,)](x, parts, x.numel() // splits, BLOCK=BLOCK, num_warps=4)
    merge_kernel[(1,)](parts, out, splits, BLOCK=triton.next_power_of_2(splits), num_warps=1)
    return out


def kernelpilot_entry():
    return {"call": split_sum, "args": (torch.empty(N, dtype=torch.float32),), "kwargs": {}}
