"""The rewrite of sum_single.py as two launches made by a host function (the whole-call form): a split kernel writes
one partial sum per program into scratch the host allocates, a merge kernel adds the partials."""

import torch
import triton
import triton.language as tl

SPLITS = 8


@triton.jit
def partial_kernel(x_ptr, part_ptr, chunk, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.int32)
    for start in range(0, chunk, BLOCK):
        offs = pid * chunk + start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs)
    tl.store(part_ptr + pid, tl.sum(acc))


@triton.jit
def merge_kernel(part_ptr, out_ptr, n_parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr, tl.sum(tl.load(part_ptr + offs, mask=offs < n_parts, other=0)))


def split_sum(x, out):
    parts = torch.empty(SPLITS, dtype=torch.int32, device=x.device)
    partial_kernel[(SPLITS,)](x, parts, x.numel() // SPLITS, BLOCK=256, num_warps=4)
    merge_kernel[(1,)](parts, out, SPLITS, BLOCK=SPLITS, num_warps=1)


def kernelpilot_entry(n=2048):
    x, out = torch.empty(n, dtype=torch.int32), torch.empty(1, dtype=torch.int32)
    return {"call": split_sum, "args": (x, out), "kwargs": {}}
