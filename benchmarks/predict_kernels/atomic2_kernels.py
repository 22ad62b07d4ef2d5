"""Second held-out set of global atomics (``ho_atomics_*``), written after the speed model's atomic term was refit
on benchmarks/atomic_sweep.py (the table ``same_address_atomic_ns``; the first set, atomic_kernels.py, failed the
first design) and predicted once:

* ``dwdb``: LayerNorm-style weight gradients of (16384, 1024) fp16 rows. ``before``: one program per row adds
  x * dy and dy to 2 x 1024 fp32 sums (acq_rel); ``relaxed``: the same, relaxed; ``after``: 32 rows per program.
* ``counter``: the sum of 32 Mi fp32. ``before``: 131072 two-warp programs each add their 256-element sum to one
  float; ``after``: partial sums per program, then one program sums them (no atomics).
* ``grid2d``: column sums of a (4096, 4096) fp32 matrix on a 2-D grid of 256-column blocks. ``before``: one row per
  program, relaxed atomics (4096 updates per address); ``after``: 64 rows per program.

Each ``ho_atomics_<name>__<role>.py`` file calls ``entry(name, role)`` / ``run(device, name, role)``.
"""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner


@triton.jit
def dwdb_kernel(x_ptr, dy_ptr, dwb_ptr, N, BLOCK: tl.constexpr, ROWS: tl.constexpr, SEM: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    dw = tl.zeros((BLOCK,), dtype=tl.float32)
    db = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in range(ROWS):
        offs = (tl.program_id(0) * ROWS + r).to(tl.int64) * N + cols
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        dw += x * dy
        db += dy
    tl.atomic_add(dwb_ptr + cols, dw, mask=mask, sem=SEM)
    tl.atomic_add(dwb_ptr + N + cols, db, mask=mask, sem=SEM)


@triton.jit
def counter_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs), 0))


@triton.jit
def partial_kernel(x_ptr, part_ptr, BLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c in range(CHUNKS):
        offs = (tl.program_id(0) * CHUNKS + c).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs)
    tl.store(part_ptr + tl.program_id(0), tl.sum(acc, 0))


@triton.jit
def finish_kernel(part_ptr, out_ptr, parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr, tl.sum(tl.load(part_ptr + offs, mask=offs < parts, other=0.0), 0))


@triton.jit
def grid2d_kernel(x_ptr, out_ptr, N, BC: tl.constexpr, ROWS: tl.constexpr):
    cols = tl.program_id(0) * BC + tl.arange(0, BC)
    acc = tl.zeros((BC,), dtype=tl.float32)
    for r in range(ROWS):
        acc += tl.load(x_ptr + (tl.program_id(1) * ROWS + r).to(tl.int64) * N + cols)
    tl.atomic_add(out_ptr + cols, acc, sem="relaxed")


def _launch(kernel, grid, args, **kwargs):
    return {"kernel": kernel, "args": args, "kwargs": kwargs, "grid": grid}


def _dwdb(device, role):
    M, N = 16384, 1024
    x = randn((M, N), torch.float16, device, seed=41)
    dy = randn((M, N), torch.float16, device, seed=42)
    dwb = empty((2, N), torch.float32, device)
    rows = 32 if role == "after" else 1
    sem = "relaxed" if role == "relaxed" else "acq_rel"
    spec = _launch(dwdb_kernel, (M // rows,), (x, dy, dwb, N), BLOCK=N, ROWS=rows, SEM=sem, num_warps=4)

    def ref():
        return torch.stack([(x.float() * dy.float()).sum(0), dy.float().sum(0)])

    return [spec], dwb, ref, 1e-3, f"dw, db of {M}x{N} fp16, {rows} row(s) per program, {sem}"


def _counter(device, role):
    n, block = 32 * 1024 * 1024, 256
    x = randn((n,), torch.float32, device, seed=43)
    out = empty((1,), torch.float32, device)
    if role == "before":
        specs = [_launch(counter_kernel, (n // block,), (x, out), BLOCK=block, num_warps=2)]
    else:
        parts, chunks = 1024, n // (1024 * 1024)
        part = empty((parts,), torch.float32, device)
        specs = [
            _launch(partial_kernel, (parts,), (x, part), BLOCK=1024, CHUNKS=chunks, num_warps=4),
            _launch(finish_kernel, (1,), (part, out, parts), BLOCK=1024, num_warps=4),
        ]
    return specs, out, lambda: x.double().sum().reshape(1), 1e-3, f"sum of n={n} fp32 ({role})"


def _grid2d(device, role):
    M = N = 4096
    x = randn((M, N), torch.float32, device, seed=44)
    out = empty((N,), torch.float32, device)
    rows = 64 if role == "after" else 1
    spec = _launch(grid2d_kernel, (N // 256, M // rows), (x, out, N), BC=256, ROWS=rows, num_warps=2)
    return [spec], out, lambda: x.double().sum(0), 1e-4, f"column sums of {M}x{N} fp32, 2-D grid, {rows} row(s)"


PAIRS = {"dwdb": _dwdb, "counter": _counter, "grid2d": _grid2d}


def entry(name, role):
    specs = PAIRS[name]("cpu", role)[0]
    return specs[0] if len(specs) == 1 else specs


def run(device, name, role):
    specs, output, reference, rtol, shape = PAIRS[name](device, role)

    def launch():
        for s in specs:
            s["kernel"][s["grid"]](*s["args"], **s["kwargs"])

    return runner(launch, output, reference, rtol, f"{shape}, {len(specs)} launch(es)")
