"""Third held-out set of global atomics (``ho_atomicz_*``), written after the speed model's atomic term took the
sites of one program together (the second set, atomic2_kernels.py, was used to choose that) and predicted once:

* ``embed``: column sums of (8192, 2048) bf16 rows on a 2-D grid of 512-column blocks (fenced acq_rel).
  ``before``: one row per program (8192 updates per address); ``after``: 64 rows per program.
* ``stats``: sum and sum of squares of 32 Mi fp32 into two floats. ``before``: 65536 programs of 512 each add both
  (acq_rel); ``after``: 8 x 132 programs walk the input with a stride, then add once each.
* ``wide``: column sums of (8192, 4096) fp16 rows into fp32, relaxed. ``before``: one row per program; ``after``:
  16 rows per program.

Each ``ho_atomicz_<name>__<role>.py`` file calls ``entry(name, role)`` / ``run(device, name, role)``.
"""

import torch
import triton
import triton.language as tl
from predict_common import H100_SMS, empty, randn, runner


@triton.jit
def col_blocks_kernel(x_ptr, out_ptr, N, BC: tl.constexpr, ROWS: tl.constexpr, SEM: tl.constexpr):
    cols = tl.program_id(1) * BC + tl.arange(0, BC)
    acc = tl.zeros((BC,), dtype=tl.float32)
    for r in range(ROWS):
        acc += tl.load(x_ptr + (tl.program_id(0) * ROWS + r).to(tl.int64) * N + cols).to(tl.float32)
    tl.atomic_add(out_ptr + cols, acc, sem=SEM)


@triton.jit
def stats_blocks_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK))
    tl.atomic_add(out_ptr, tl.sum(x, 0))
    tl.atomic_add(out_ptr + 1, tl.sum(x * x, 0))


@triton.jit
def stats_strided_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    q = tl.zeros((BLOCK,), dtype=tl.float32)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    for start in range(tl.program_id(0) * BLOCK, n, step):
        x = tl.load(x_ptr + start + tl.arange(0, BLOCK), mask=start + tl.arange(0, BLOCK) < n, other=0.0)
        s += x
        q += x * x
    tl.atomic_add(out_ptr, tl.sum(s, 0))
    tl.atomic_add(out_ptr + 1, tl.sum(q, 0))


def _launch(kernel, grid, args, **kwargs):
    return {"kernel": kernel, "args": args, "kwargs": kwargs, "grid": grid}


def _embed(device, role):
    M, N = 8192, 2048
    x = randn((M, N), torch.bfloat16, device, seed=51)
    out = empty((N,), torch.float32, device)
    rows = 64 if role == "after" else 1
    spec = _launch(col_blocks_kernel, (M // rows, N // 512), (x, out, N), BC=512, ROWS=rows, SEM="acq_rel", num_warps=4)
    return [spec], out, lambda: x.double().sum(0), 1e-3, f"column sums of {M}x{N} bf16, {rows} row(s), 2-D grid"


def _stats(device, role):
    n = 32 * 1024 * 1024
    x = randn((n,), torch.float32, device, seed=52)
    out = empty((2,), torch.float32, device)
    if role == "before":
        spec = _launch(stats_blocks_kernel, (n // 512,), (x, out), BLOCK=512, num_warps=4)
    else:
        spec = _launch(stats_strided_kernel, (8 * H100_SMS,), (x, out, n), BLOCK=2048, num_warps=8)

    def ref():
        xd = x.double()
        return torch.stack([xd.sum(), (xd * xd).sum()])

    return [spec], out, ref, 1e-3, f"sum and sum of squares of n={n} fp32 ({role})"


def _wide(device, role):
    M, N = 8192, 4096
    x = randn((M, N), torch.float16, device, seed=53)
    out = empty((N,), torch.float32, device)
    rows = 16 if role == "after" else 1
    spec = _launch(col_blocks_kernel, (M // rows, 1), (x, out, N), BC=N, ROWS=rows, SEM="relaxed", num_warps=8)
    return [spec], out, lambda: x.double().sum(0), 1e-3, f"column sums of {M}x{N} fp16, {rows} row(s), relaxed"


PAIRS = {"embed": _embed, "stats": _stats, "wide": _wide}


def entry(name, role):
    return PAIRS[name]("cpu", role)[0][0]


def run(device, name, role):
    specs, output, reference, rtol, shape = PAIRS[name](device, role)

    def launch():
        for s in specs:
            s["kernel"][s["grid"]](*s["args"], **s["kwargs"])

    return runner(launch, output, reference, rtol, f"{shape}, {len(specs)} launch(es)")
