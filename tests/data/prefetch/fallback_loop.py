"""A row sum with a fast loop for short rows and a fallback loop for long ones: the first loop covers up to LIMIT
blocks (one load each), the second the blocks past LIMIT (three loads each: the data, a weight and a bias). The
example launch has n_blocks = 40 < LIMIT = 64, so the fallback loop runs 0 times; it holds more loads than the fast
loop, so a pick by instruction counts alone would call it the hot loop."""

import torch
import triton
import triton.language as tl

ROWS, BLOCK, LIMIT, N_BLOCKS = 64, 256, 64, 40


@triton.jit
def row_sum(x_ptr, w_ptr, b_ptr, out_ptr, n_blocks, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    base = x_ptr + row * n_blocks * BLOCK
    acc = tl.zeros([BLOCK], tl.float32)
    short = tl.minimum(n_blocks, LIMIT)
    for i in range(0, short):
        acc += tl.load(base + i * BLOCK + offs)
    for i in range(short, n_blocks):  # long rows only
        x = tl.load(base + i * BLOCK + offs)
        acc += x * tl.load(w_ptr + i * BLOCK + offs) + tl.load(b_ptr + i * BLOCK + offs)
    tl.store(out_ptr + row * BLOCK + offs, acc)


def kernelpilot_entry():
    x = torch.empty(ROWS * N_BLOCKS * BLOCK, dtype=torch.float32)
    w = torch.empty(N_BLOCKS * BLOCK, dtype=torch.float32)
    out = torch.empty(ROWS * BLOCK, dtype=torch.float32)
    return {"kernel": row_sum, "args": (x, w, w, out, N_BLOCKS), "kwargs": {"LIMIT": LIMIT, "BLOCK": BLOCK},
            "grid": (ROWS,)}  # fmt: skip
