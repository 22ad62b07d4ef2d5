"""Row softmax in three Triton kernels: row max, then exp and row sum (writing exp(x - max) to a buffer), then a
division pass. Every pass goes through global memory: about 6 N bytes per fp32 element of traffic."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, max_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    tl.store(max_ptr + row, tl.max(x, 0))


@triton.jit
def exp_sum_kernel(x_ptr, max_ptr, e_ptr, sum_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.load(max_ptr + row))
    tl.store(e_ptr + row * N + cols, e, mask=mask)
    tl.store(sum_ptr + row, tl.sum(e, 0))


@triton.jit
def divide_kernel(e_ptr, sum_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    e = tl.load(e_ptr + row * N + cols, mask=mask)
    tl.store(out_ptr + row * N + cols, e / tl.load(sum_ptr + row), mask=mask)


def forward(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    block = triton.next_power_of_2(N)
    warps = 8 if block >= 2048 else 4
    row_max = torch.empty(M, device=x.device, dtype=torch.float32)
    row_sum = torch.empty(M, device=x.device, dtype=torch.float32)
    e = torch.empty_like(x)
    out = torch.empty_like(x)
    row_max_kernel[(M,)](x, row_max, N, BLOCK=block, num_warps=warps)
    exp_sum_kernel[(M,)](x, row_max, e, row_sum, N, BLOCK=block, num_warps=warps)
    divide_kernel[(M,)](e, row_sum, out, N, BLOCK=block, num_warps=warps)
    return out


def kernelpilot_entry():
    """The launch forward() makes for 64 rows of 4096 fp32 values. CPU tensors stand in: Triton's JIT specialises on
    dtypes, 16-byte alignment and integer values, and so does kernelpilot from these example arguments
    (kernelpilot README, "File mode")."""
    x = torch.empty(64, 4096)
    M, N = x.shape
    block, warps = triton.next_power_of_2(N), 8
    row_max = torch.empty(M)
    row_sum = torch.empty(M)
    e = torch.empty_like(x)
    out = torch.empty_like(x)
    options = {"BLOCK": block, "num_warps": warps}
    return [
        {"kernel": row_max_kernel, "args": (x, row_max, N), "kwargs": options, "grid": (M,)},
        {"kernel": exp_sum_kernel, "args": (x, row_max, e, row_sum, N), "kwargs": options, "grid": (M,)},
        {"kernel": divide_kernel, "args": (e, row_sum, out, N), "kwargs": options, "grid": (M,)},
    ]
