"""Three paged gathers in one call (kernelpilot's call form), each summing ``n_blocks`` rows of BLOCK floats that a
table names. ``chain_one``: per block, the table entry, then the row it names (a load whose address comes from a load
of the same iteration). ``chain_two``: the table names an entry of a second table, which names the row (two such
links). ``chain_prefetched``: the entry of block i + 1 is loaded in iteration i, so each row's address comes from a
load of the previous iteration (the table has a spare entry past the last block)."""

import torch
import triton
import triton.language as tl

ROWS, BLOCK, N_BLOCKS, PROGRAMS = 256, 256, 32, 64


@triton.jit
def chain_one(table_ptr, data_ptr, out_ptr, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(n_blocks):
        row = tl.load(table_ptr + pid * 64 + i)
        acc += tl.load(data_ptr + row * BLOCK + offs)
    tl.store(out_ptr + pid * BLOCK + offs, acc)


@triton.jit
def chain_two(table_ptr, remap_ptr, data_ptr, out_ptr, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(n_blocks):
        entry = tl.load(table_ptr + pid * 64 + i)
        row = tl.load(remap_ptr + entry)
        acc += tl.load(data_ptr + row * BLOCK + offs)
    tl.store(out_ptr + pid * BLOCK + offs, acc)


@triton.jit
def chain_prefetched(table_ptr, data_ptr, out_ptr, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    row = tl.load(table_ptr + pid * 64)
    for i in range(n_blocks):
        nxt = tl.load(table_ptr + pid * 64 + i + 1)
        acc += tl.load(data_ptr + row * BLOCK + offs)
        row = nxt
    tl.store(out_ptr + pid * BLOCK + offs, acc)


def gathers(table, remap, data, n_blocks=N_BLOCKS):
    out = torch.empty(PROGRAMS * BLOCK, dtype=torch.float32, device=data.device)
    chain_one[(PROGRAMS,)](table, data, out, n_blocks, BLOCK=BLOCK, num_warps=4)
    chain_two[(PROGRAMS,)](table, remap, data, out, n_blocks, BLOCK=BLOCK, num_warps=4)
    chain_prefetched[(PROGRAMS,)](table, data, out, n_blocks, BLOCK=BLOCK, num_warps=4)
    return out


def kernelpilot_entry():
    table = torch.zeros(PROGRAMS * 64, dtype=torch.int32)
    remap = torch.zeros(ROWS, dtype=torch.int32)
    return {"call": gathers, "args": (table, remap, torch.empty(ROWS * BLOCK, dtype=torch.float32)), "kwargs": {}}
