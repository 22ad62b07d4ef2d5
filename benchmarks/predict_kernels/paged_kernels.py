"""Row sums through a block table (a paged cache): each of the 132 programs (one per H100 SM) reads 512 blocks of
1024 fp32 values, each block's slot looked up in a table first. Few warps per SM keep little in flight, so each
iteration's latencies decide the time: looking the slot up in the same iteration puts two DRAM latencies in series
(the table entry, then the block it names); loading the next slot one iteration ahead leaves one."""

import torch
import triton
import triton.language as tl
from predict_common import H100_SMS, empty, randn, runner

PROGRAMS, NB, BLOCK = H100_SMS, 512, 1024


@triton.jit
def paged_sum_kernel(pool_ptr, table_ptr, out_ptr, NB: tl.constexpr, BLOCK: tl.constexpr):
    p = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for b in range(NB):
        slot = tl.load(table_ptr + p * NB + b).to(tl.int64)
        acc += tl.load(pool_ptr + slot * BLOCK + offs)
    tl.store(out_ptr + p, tl.sum(acc, 0))


@triton.jit
def paged_sum_ahead_kernel(pool_ptr, table_ptr, out_ptr, NB: tl.constexpr, BLOCK: tl.constexpr):
    p = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    slot = tl.load(table_ptr + p * NB).to(tl.int64)
    for b in range(NB):
        nxt = tl.load(table_ptr + p * NB + tl.minimum(b + 1, NB - 1)).to(tl.int64)
        acc += tl.load(pool_ptr + slot * BLOCK + offs)
        slot = nxt
    tl.store(out_ptr + p, tl.sum(acc, 0))


def launch_spec(device, ahead):
    pool = randn((PROGRAMS * NB, BLOCK), torch.float32, device, seed=31)
    if str(device) == "cpu":
        table = torch.empty((PROGRAMS, NB), dtype=torch.int32)
    else:
        gen = torch.Generator(device=device).manual_seed(31)
        table = torch.randperm(PROGRAMS * NB, generator=gen, device=device).to(torch.int32).reshape(PROGRAMS, NB)
    out = empty((PROGRAMS,), torch.float32, device)
    kernel = paged_sum_ahead_kernel if ahead else paged_sum_kernel
    kwargs = {"NB": NB, "BLOCK": BLOCK, "num_warps": 4}
    return {"kernel": kernel, "args": (pool, table, out), "kwargs": kwargs, "grid": (PROGRAMS,)}


def entry(ahead):
    return launch_spec("cpu", ahead)


def run(device, ahead):
    spec = launch_spec(device, ahead)
    pool, table, out = spec["args"]

    def launch():
        spec["kernel"][spec["grid"]](*spec["args"], **spec["kwargs"])

    def reference():
        return pool.double()[table.long()].sum((1, 2))

    shape = f"{PROGRAMS} programs x {NB} blocks of {BLOCK} fp32 through a table, {'slot one ahead' if ahead else 'slot in-iteration'}"
    return runner(launch, out, reference, 1e-4, shape, spec["grid"])
