"""Row softmax over rows of up to 1024 fp16 values, one row per program, with masked loads and stores."""

import torch
import triton
import triton.language as tl

ROWS, COLS = 64, 1000


@triton.jit
def row_softmax_kernel(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, 0))
    tl.store(y_ptr + row * y_stride + cols, (e / tl.sum(e, 0)).to(tl.float16), mask=mask)


def kernelpilot_entry():
    x = torch.randn(ROWS, 1024, dtype=torch.float16)[:, :COLS]  # rows padded to 1024: every row starts aligned
    y = torch.empty(ROWS, 1024, dtype=torch.float16)
    return {
        "kernel": row_softmax_kernel,
        "args": (x, y, COLS, x.stride(0), y.stride(0)),
        "kwargs": {"BLOCK": 1024, "num_warps": 4},
        "grid": (ROWS,),
    }
