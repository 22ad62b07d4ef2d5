"""A search loop over a table read from memory (``for e in range(1, E)``: one scalar load per step, bound E known
at launch), then a streaming loop over K. The compiler unrolls the search 4x and leaves a 1x loop for the rest, so
the ISA has three loops for two source loops: E = 8 gives 7 search steps (one 4x iteration, remainder 7 mod 4 = 3
by the model), K / BLOCK_K = 2048 / 64 = 32 streaming iterations."""

import torch
import triton
import triton.language as tl

ROWS, N, K, E = 256, 4096, 2048, 8
BLOCK_N, BLOCK_K = 64, 64


@triton.jit
def search_then_stream_kernel(x_ptr, w_ptr, table_ptr, out_ptr, N, K, E, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    t = tl.program_id(0)
    n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    kk = tl.arange(0, BLOCK_K)
    group = 0
    for e in range(1, E):  # the last group whose first row is at or before t
        if tl.load(table_ptr + e) <= t:
            group = e
    w_rows = w_ptr + (group * N + n[:, None]).to(tl.int64) * K
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + kk
        xv = tl.load(x_ptr + t.to(tl.int64) * K + k).to(tl.float32)
        wv = tl.load(w_rows + k[None, :]).to(tl.float32)
        acc += tl.sum(wv * xv[None, :], 1)
    tl.store(out_ptr + t.to(tl.int64) * N + n, acc)


def kernelpilot_entry():
    x = torch.empty((1, K), dtype=torch.float16)
    w = torch.empty((1, K), dtype=torch.float16)  # only dtype and alignment matter to the compiler
    table = torch.empty((E + 1,), dtype=torch.int32)
    out = torch.empty((1, N))
    kwargs = {"BLOCK_N": BLOCK_N, "BLOCK_K": BLOCK_K, "num_warps": 4}
    grid = (ROWS, N // BLOCK_N)
    return {"kernel": search_then_stream_kernel, "args": (x, w, table, out, N, K, E), "kwargs": kwargs, "grid": grid}
