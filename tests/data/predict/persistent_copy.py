"""The copy of stream_copy.py (2^24 floats) by 132 persistent programs, one per H100/H200 SM: each walks its share
in 1024-element steps (16384 blocks over 132 programs: 124 or 125 iterations, each loading one block, waiting for it and
storing it), so a warp keeps one 16-byte load per lane in flight and the copy is bound by the latency."""

import torch
import triton
import triton.language as tl

N, BLOCK, PROGRAMS = 1 << 24, 1024, 132


@triton.jit
def persistent_copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    blocks = tl.cdiv(n, BLOCK)
    for b in range(tl.program_id(0), blocks, tl.num_programs(0)):
        offs = b * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def kernelpilot_entry():
    x = torch.empty(N, dtype=torch.float32)
    return {"kernel": persistent_copy_kernel, "args": (x, torch.empty_like(x), N),
            "kwargs": {"BLOCK": BLOCK, "num_warps": 4}, "grid": (PROGRAMS,)}  # fmt: skip
