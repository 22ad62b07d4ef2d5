"""A sum of a vector by many programs in one launch, the last-arriving program reducing (VARIANT, the only change a
test makes). ``single``: one program sums every block in turn (the reference). Otherwise each program stores its
block's partial sum, then takes a ticket from a counter with an acq_rel atomic add; ``last``: the program whose ticket
is the last one sums the partials; ``first`` (broken): the first-arriving program does, before the others stored
theirs; ``spin``: every program waits (an atomic_cas spin) until all have arrived, which no order of whole programs
run one after another satisfies."""

import torch
import triton
import triton.language as tl

VARIANT = "last"
BLOCK = 64


@triton.jit
def sum_kernel(x_ptr, partial_ptr, counter_ptr, out_ptr, blocks, BLOCK: tl.constexpr, HOW: tl.constexpr):
    pid = tl.program_id(0)
    n = tl.num_programs(0)
    if HOW == "single":
        acc = 0.0
        for b in range(0, blocks):
            acc += tl.sum(tl.load(x_ptr + b * BLOCK + tl.arange(0, BLOCK)), axis=0)
        tl.store(out_ptr, acc)
    else:
        x = tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK))
        tl.store(partial_ptr + pid, tl.sum(x, axis=0))
        ticket = tl.atomic_add(counter_ptr, 1, sem="acq_rel")
        if HOW == "spin":
            while tl.atomic_cas(counter_ptr, n, n, sem="acquire") != n:
                pass
            if pid == 0:
                tl.store(out_ptr, tl.sum(tl.load(partial_ptr + tl.arange(0, 16)), axis=0))
        else:
            if ticket == (n - 1 if HOW == "last" else 0):
                total = tl.sum(tl.load(partial_ptr + tl.arange(0, 16), mask=tl.arange(0, 16) < n, other=0.0), axis=0)
                tl.store(out_ptr, total)


def vector_sum(x):
    blocks = x.numel() // BLOCK
    partial = torch.zeros(16, dtype=torch.float32)
    counter = torch.zeros(1, dtype=torch.int32)
    out = torch.zeros(1, dtype=torch.float32)
    grid = (1,) if VARIANT == "single" else (blocks,)
    sum_kernel[grid](x, partial, counter, out, blocks, BLOCK=BLOCK, HOW=VARIANT)
    return out
