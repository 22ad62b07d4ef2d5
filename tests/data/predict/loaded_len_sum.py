"""A decode-like row sum whose loop bound is loaded: program p sums lens[p] values of its row, BLOCK at a time
(``ctx_len = tl.load(lens + pid)``, then ``for i in range(0, ctx_len, BLOCK)``). The example's lengths are real:
program p has (p + 1) x 1024 values, so its loop runs p + 1 times (1 to 128 over the 128 programs, mean 64.5)."""

import torch
import triton
import triton.language as tl

PROGRAMS, MAX_LEN, BLOCK = 128, 128 * 1024, 1024


@triton.jit
def loaded_len_sum_kernel(x_ptr, lens_ptr, out_ptr, MAX_LEN: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    ctx_len = tl.load(lens_ptr + pid)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, ctx_len, BLOCK):
        acc += tl.load(x_ptr + pid * MAX_LEN + i + offs)
    tl.store(out_ptr + pid, tl.sum(acc, 0))


def kernelpilot_entry():
    x = torch.ones((PROGRAMS, MAX_LEN), dtype=torch.float32)
    lens = (torch.arange(PROGRAMS, dtype=torch.int32) + 1) * BLOCK
    out = torch.empty((PROGRAMS,), dtype=torch.float32)
    return {"kernel": loaded_len_sum_kernel, "args": (x, lens, out), "kwargs": {"MAX_LEN": MAX_LEN, "BLOCK": BLOCK,
            "num_warps": 4}, "grid": (PROGRAMS,)}  # fmt: skip
