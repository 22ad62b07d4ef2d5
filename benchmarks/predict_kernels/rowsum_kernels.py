"""Row sums of an fp32 matrix (16384 x 4096, 256 MB): one program per row, 1024 columns per iteration. Memory bound;
the number of warps per program sets how many loads each program keeps in flight."""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

M, N = 16384, 4096
BLOCK = 1024


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    base = x_ptr + row.to(tl.int64) * N
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        acc += tl.load(base + start + offs)
    tl.store(y_ptr + row, tl.sum(acc, 0))


def launch_spec(device, num_warps):
    x = randn((M, N), torch.float32, device)
    y = empty((M,), torch.float32, device)
    return {
        "kernel": row_sum_kernel,
        "args": (x, y, N),
        "kwargs": {"BLOCK": BLOCK, "num_warps": num_warps},
        "grid": (M,),
    }


def entry(num_warps):
    return launch_spec("cpu", num_warps)


def run(device, num_warps):
    spec = launch_spec(device, num_warps)
    x, y, _ = spec["args"]

    def launch():
        row_sum_kernel[spec["grid"]](*spec["args"], **spec["kwargs"])

    shape = f"{M}x{N} fp32, {M} programs of {num_warps} warps"
    return runner(launch, y, lambda: x.sum(1), 1e-4, shape, spec["grid"])
