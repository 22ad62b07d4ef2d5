"""Uncoalesced: one program per column copies it in a loop of BLOCK rows, neighbouring lanes a whole row apart."""

import torch
import triton
import triton.language as tl

ROWS, COLS, BLOCK = 4096, 512, 1024


@triton.jit
def column_copy_kernel(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    for start in range(0, rows, BLOCK):
        offs = (start + tl.arange(0, BLOCK)) * cols + col
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def kernelpilot_entry():
    x = torch.empty(ROWS, COLS, dtype=torch.float32)
    return {"kernel": column_copy_kernel, "args": (x, torch.empty_like(x), ROWS, COLS),
            "kwargs": {"BLOCK": BLOCK, "num_warps": 4}, "grid": (COLS,)}  # fmt: skip
