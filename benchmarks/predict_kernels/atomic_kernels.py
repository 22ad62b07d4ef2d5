"""Held-out pairs of global atomics (``ho_atomic_*``), written after the same-address atomic term of the speed model
(``same_address_atomic_ns``, calibrated on one open-ended task) and predicted once, to test that term out of sample:

* ``colsum``: column sums of an (8192, 2048) fp32 matrix. ``before``: one program per row adds its row to the 2048
  sums (acq_rel atomics: 8192 updates per address); ``relaxed``: the same with relaxed atomics (no fence before
  each); ``after``: each program sums 64 rows in registers first (128 updates per address).
* ``count``: the sum of 64 Mi fp32 into one float. ``before``: 65536 programs each add their block's sum (65536
  updates of one address); ``after``: 8 x 132 programs walk the input with a stride and add once each (1056).

Each ``ho_atomic_<name>__<role>.py`` file calls ``entry(name, role)`` / ``run(device, name, role)``.
"""

import torch
import triton
import triton.language as tl
from predict_common import H100_SMS, empty, randn, runner


@triton.jit
def colsum_rows_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr, ROWS: tl.constexpr, SEM: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    first = tl.program_id(0) * ROWS
    for r in range(ROWS):
        acc += tl.load(x_ptr + (first + r).to(tl.int64) * N + cols, mask=mask, other=0.0)
    tl.atomic_add(out_ptr + cols, acc, mask=mask, sem=SEM)


@triton.jit
def count_blocks_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), 0))


@triton.jit
def count_strided_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    for start in range(tl.program_id(0) * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(acc, 0))


def _launch(kernel, grid, args, **kwargs):
    return {"kernel": kernel, "args": args, "kwargs": kwargs, "grid": grid}


def _colsum(device, role):
    M, N = 8192, 2048
    x = randn((M, N), torch.float32, device, seed=31)
    out = empty((N,), torch.float32, device)
    rows = 64 if role == "after" else 1
    sem = "relaxed" if role == "relaxed" else "acq_rel"
    spec = _launch(colsum_rows_kernel, (M // rows,), (x, out, N), BLOCK=N, ROWS=rows, SEM=sem, num_warps=8)
    return (
        [spec],
        out,
        lambda: x.double().sum(0),
        1e-4,
        f"column sums of {M}x{N} fp32, {rows} row(s) per program, {sem}",
    )


def _count(device, role):
    n = 64 * 1024 * 1024
    x = randn((n,), torch.float32, device, seed=32)
    out = empty((1,), torch.float32, device)
    if role == "before":
        spec = _launch(count_blocks_kernel, (triton.cdiv(n, 1024),), (x, out, n), BLOCK=1024, num_warps=4)
    else:
        spec = _launch(count_strided_kernel, (8 * H100_SMS,), (x, out, n), BLOCK=2048, num_warps=8)
    return [spec], out, lambda: x.double().sum().reshape(1), 1e-3, f"sum of n={n} fp32 into one address ({role})"


PAIRS = {"colsum": _colsum, "count": _count}


def entry(name, role):
    return PAIRS[name]("cpu", role)[0][0]


def run(device, name, role):
    specs, output, reference, rtol, shape = PAIRS[name](device, role)

    def launch():
        for s in specs:
            s["kernel"][s["grid"]](*s["args"], **s["kwargs"])

    return runner(launch, output, reference, rtol, f"{shape}, {len(specs)} launch(es)")
