"""A paged row sum: each of 132 programs (4 warps) sums 512 blocks of 1024 fp32 values, each block's slot looked up
in a table inside the loop (the slot's load, then the block it names). ptxas unrolls the loop and issues the table
entries of later blocks early, so a warp's stalls come soon after its loads: few bytes are in flight at the first
stall, many across the later ones."""

import torch
import triton
import triton.language as tl

PROGRAMS, NB, BLOCK = 132, 512, 1024


@triton.jit
def paged_sum_kernel(pool_ptr, table_ptr, out_ptr, NB: tl.constexpr, BLOCK: tl.constexpr):
    p = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for b in range(NB):
        slot = tl.load(table_ptr + p * NB + b).to(tl.int64)
        acc += tl.load(pool_ptr + slot * BLOCK + offs)
    tl.store(out_ptr + p, tl.sum(acc, 0))


def kernelpilot_entry():
    pool = torch.empty((PROGRAMS * NB, BLOCK), dtype=torch.float32)
    table = torch.empty((PROGRAMS, NB), dtype=torch.int32)
    out = torch.empty((PROGRAMS,), dtype=torch.float32)
    return {"kernel": paged_sum_kernel, "args": (pool, table, out), "kwargs": {"NB": NB, "BLOCK": BLOCK,
            "num_warps": 4}, "grid": (PROGRAMS,)}  # fmt: skip
