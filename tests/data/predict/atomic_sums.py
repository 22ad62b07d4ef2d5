"""Five launches with global atomics, for the speed model's same-address term: every program adds its row
to the same column sums; programs along axis 1 share the addresses of their axis-0 column block; a histogram whose
bins come from the loaded data; every program adds two half rows (relaxed) to two arrays; programs along axis 0 share
the addresses of their axis-1 column block."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_atomics_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    row = tl.load(x_ptr + tl.program_id(0).to(tl.int64) * N + cols, mask=cols < N, other=0.0)
    tl.atomic_add(out_ptr + cols, row, mask=cols < N)


@triton.jit
def block_atomics_kernel(x_ptr, out_ptr, M, N, BC: tl.constexpr, ROWS: tl.constexpr):
    cols = tl.program_id(0) * BC + tl.arange(0, BC)
    acc = tl.zeros((BC,), dtype=tl.float32)
    for r in range(tl.program_id(1) * ROWS, tl.program_id(1) * ROWS + ROWS):
        acc += tl.load(x_ptr + r.to(tl.int64) * N + cols, mask=(cols < N) & (r < M), other=0.0)
    tl.atomic_add(out_ptr + cols, acc, mask=cols < N)


@triton.jit
def histogram_kernel(data_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    bins = tl.load(data_ptr + offs, mask=offs < n, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=offs < n)


@triton.jit
def two_sites_kernel(x_ptr, out_ptr, N, HALF: tl.constexpr):
    cols = tl.arange(0, HALF)
    row = x_ptr + tl.program_id(0).to(tl.int64) * N
    tl.atomic_add(out_ptr + cols, tl.load(row + cols), sem="relaxed")
    tl.atomic_add(out_ptr + HALF + cols, tl.load(row + HALF + cols), sem="relaxed")


@triton.jit
def slow_axis_kernel(x_ptr, out_ptr, N, BC: tl.constexpr):
    cols = tl.program_id(1) * BC + tl.arange(0, BC)
    tl.atomic_add(out_ptr + cols, tl.load(x_ptr + tl.program_id(0).to(tl.int64) * N + cols))


def kernelpilot_entry():
    M, N = 4096, 1024
    x = torch.empty((M, N))
    sums = torch.empty((N,))
    data = torch.empty((1 << 20,), dtype=torch.int32)
    hist = torch.empty((256,), dtype=torch.int32)
    return [
        {"kernel": row_atomics_kernel, "args": (x, sums, N), "kwargs": {"BLOCK": N, "num_warps": 4}, "grid": (M,)},
        {
            "kernel": block_atomics_kernel,
            "args": (x, sums, M, N),
            "kwargs": {"BC": 64, "ROWS": 128, "num_warps": 2},
            "grid": (N // 64, M // 128),
        },
        {"kernel": histogram_kernel, "args": (data, hist, 1 << 20), "kwargs": {"BLOCK": 1024}, "grid": (1024,)},
        {"kernel": two_sites_kernel, "args": (x, sums, N), "kwargs": {"HALF": N // 2, "num_warps": 4}, "grid": (M,)},
        {
            "kernel": slow_axis_kernel,
            "args": (x, sums, N),
            "kwargs": {"BC": 256, "num_warps": 2},
            "grid": (M, N // 256),
        },
    ]
