"""Column sums of an (M, N) row-major fp32 matrix: out[j] = sum_i x[i, j].

One program per column walks down its column BLOCK rows at a time."""

import torch
import triton
import triton.language as tl

BLOCK = 256


@triton.jit
def column_sum_kernel(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, M, BLOCK):
        rows = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + rows.to(tl.int64) * N + col, mask=rows < M, other=0.0)
    tl.store(out_ptr + col, tl.sum(acc, 0))


def forward(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(N, device=x.device, dtype=torch.float32)
    column_sum_kernel[(N,)](x, out, M, N, BLOCK=BLOCK, num_warps=4)
    return out


def kernelpilot_entry():
    M, N = 16384, 4096
    x, out = torch.empty((M, N)), torch.empty(N)
    return {"kernel": column_sum_kernel, "args": (x, out, M, N), "kwargs": {"BLOCK": BLOCK, "num_warps": 4}, "grid": (N,)}
