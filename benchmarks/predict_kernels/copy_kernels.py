"""Copy an 8192 x 8192 fp32 matrix (512 MB moved). Coalesced: consecutive threads touch consecutive addresses of a
row. Uncoalesced: one program per column, consecutive threads walk down the column (a 32 KB stride), so every 4-byte
access is its own 32-byte sector."""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

ROWS = COLS = 8192


@triton.jit
def copy_columns_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    for start in range(0, rows, BLOCK):
        offs = (start + r).to(tl.int64) * cols + col
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def copy_rows_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    base = row.to(tl.int64) * cols
    for start in range(0, cols, BLOCK):
        offs = base + start + c
        tl.store(out_ptr + offs, tl.load(x_ptr + offs))


def launch_spec(device, coalesced):
    x = randn((ROWS, COLS), torch.float32, device)
    out = empty((ROWS, COLS), torch.float32, device)
    if coalesced:
        return {
            "kernel": copy_rows_kernel,
            "args": (x, out, COLS),
            "kwargs": {"BLOCK": 2048, "num_warps": 4},
            "grid": (ROWS,),
        }
    return {
        "kernel": copy_columns_kernel,
        "args": (x, out, ROWS, COLS),
        "kwargs": {"BLOCK": 1024, "num_warps": 4},
        "grid": (COLS,),
    }


def entry(coalesced):
    return launch_spec("cpu", coalesced)


def run(device, coalesced):
    spec = launch_spec(device, coalesced)
    x, out = spec["args"][:2]

    def launch():
        spec["kernel"][spec["grid"]](*spec["args"], **spec["kwargs"])

    shape = f"{ROWS}x{COLS} fp32 copy, {'row' if coalesced else 'column'} per program"
    return runner(launch, out, lambda: x, 0.0, shape, spec["grid"])
