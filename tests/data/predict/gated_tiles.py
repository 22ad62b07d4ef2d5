"""Row sums of x (T, K) fp32 grouped like a mixture of experts' tokens: group e owns rows offsets[e] to
offsets[e + 1] - 1, read from memory. The host does not read the offsets, so the grid covers a group holding every
row: E x T / BLOCK = 8 x 64 = 512 programs, and a program past its group's rows does nothing (``if start < end``).
Each program that works stores BLOCK = 64 fp32 sums (256 B) of out's T x 4 = 16384 B: 64 programs at most."""

import torch
import triton
import triton.language as tl

T, K, E, BLOCK, BLOCK_K = 4096, 1024, 8, 64, 64


@triton.jit
def gated_tiles_kernel(x_ptr, offsets_ptr, out_ptr, K, tiles, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    e = tl.program_id(0) // tiles
    start = tl.load(offsets_ptr + e) + (tl.program_id(0) % tiles) * BLOCK
    end = tl.load(offsets_ptr + e + 1)
    if start < end:
        rows = start + tl.arange(0, BLOCK)
        kk = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            xv = tl.load(x_ptr + rows[:, None].to(tl.int64) * K + k0 + kk[None, :], mask=rows[:, None] < end, other=0.0)
            acc += tl.sum(xv, 1)
        tl.store(out_ptr + rows, acc, mask=rows < end)


def kernelpilot_entry():
    x = torch.empty((T, K), dtype=torch.float32)
    offsets = torch.empty((E + 1,), dtype=torch.int32)
    out = torch.empty((T,), dtype=torch.float32)
    tiles = T // BLOCK
    kwargs = {"BLOCK": BLOCK, "BLOCK_K": BLOCK_K, "num_warps": 4}
    return {"kernel": gated_tiles_kernel, "args": (x, offsets, out, K, tiles), "kwargs": kwargs, "grid": (E * tiles,)}
