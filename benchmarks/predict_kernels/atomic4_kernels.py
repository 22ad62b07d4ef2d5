"""Fourth held-out set of global atomics (``ho_atomicq_*``), written after the speed model's atomic term learnt the
GPU's launch order on 2-D grids (the third set, atomic3_kernels.py, was used to find it) and predicted once:

* ``tiles``: column sums of (4096, 2048) fp32 on a 2-D grid whose slow axis picks one of 8 column blocks (acq_rel).
  ``before``: one row per program; ``after``: 32 rows per program.
* ``fast``: column sums of (2048, 4096) fp32 on a 2-D grid whose fast axis picks one of 32 column blocks (relaxed).
  ``before``: one row per program; ``after``: 32 rows per program.
* ``mean``: column sums of (12288, 3072) bf16 rows into fp32 on a 1-D grid (acq_rel). ``before``: one row per
  program; ``after``: 48 rows per program.

Each ``ho_atomicq_<name>__<role>.py`` file calls ``entry(name, role)`` / ``run(device, name, role)``.
"""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner


@triton.jit
def slow_blocks_kernel(x_ptr, out_ptr, N, BC: tl.constexpr, ROWS: tl.constexpr):
    cols = tl.program_id(1) * BC + tl.arange(0, BC)
    acc = tl.zeros((BC,), dtype=tl.float32)
    for r in range(ROWS):
        acc += tl.load(x_ptr + (tl.program_id(0) * ROWS + r).to(tl.int64) * N + cols)
    tl.atomic_add(out_ptr + cols, acc)


@triton.jit
def fast_blocks_kernel(x_ptr, out_ptr, N, BC: tl.constexpr, ROWS: tl.constexpr):
    cols = tl.program_id(0) * BC + tl.arange(0, BC)
    acc = tl.zeros((BC,), dtype=tl.float32)
    for r in range(ROWS):
        acc += tl.load(x_ptr + (tl.program_id(1) * ROWS + r).to(tl.int64) * N + cols)
    tl.atomic_add(out_ptr + cols, acc, sem="relaxed")


@triton.jit
def mean_rows_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in range(ROWS):
        row = (tl.program_id(0) * ROWS + r).to(tl.int64) * N
        acc += tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    tl.atomic_add(out_ptr + cols, acc, mask=mask)


def _launch(kernel, grid, args, **kwargs):
    return {"kernel": kernel, "args": args, "kwargs": kwargs, "grid": grid}


def _tiles(device, role):
    M, N = 4096, 2048
    x = randn((M, N), torch.float32, device, seed=61)
    out = empty((N,), torch.float32, device)
    rows = 32 if role == "after" else 1
    spec = _launch(slow_blocks_kernel, (M // rows, N // 256), (x, out, N), BC=256, ROWS=rows, num_warps=2)
    return [spec], out, lambda: x.double().sum(0), 1e-4, f"column sums of {M}x{N} fp32, blocks on the slow axis"


def _fast(device, role):
    M, N = 2048, 4096
    x = randn((M, N), torch.float32, device, seed=62)
    out = empty((N,), torch.float32, device)
    rows = 32 if role == "after" else 1
    spec = _launch(fast_blocks_kernel, (N // 128, M // rows), (x, out, N), BC=128, ROWS=rows, num_warps=1)
    return [spec], out, lambda: x.double().sum(0), 1e-4, f"column sums of {M}x{N} fp32, blocks on the fast axis"


def _mean(device, role):
    M, N = 12288, 3072
    x = randn((M, N), torch.bfloat16, device, seed=63)
    out = empty((N,), torch.float32, device)
    rows = 48 if role == "after" else 1
    spec = _launch(mean_rows_kernel, (M // rows,), (x, out, N), BLOCK=4096, ROWS=rows, num_warps=8)
    return [spec], out, lambda: x.double().sum(0), 1e-3, f"column sums of {M}x{N} bf16, {rows} row(s) per program"


PAIRS = {"tiles": _tiles, "fast": _fast, "mean": _mean}


def entry(name, role):
    return PAIRS[name]("cpu", role)[0][0]


def run(device, name, role):
    specs, output, reference, rtol, shape = PAIRS[name](device, role)

    def launch():
        for s in specs:
            s["kernel"][s["grid"]](*s["args"], **s["kwargs"])

    return runner(launch, output, reference, rtol, f"{shape}, {len(specs)} launch(es)")
