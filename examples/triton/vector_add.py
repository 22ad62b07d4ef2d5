"""Masked vector add in Triton; compiles for gfx90a/gfx942/gfx950 and sm_80/sm_90 without a GPU.

File-mode entry for kernelpilot: ``kernelpilot_entry()`` returns example launch arguments, exactly what
``vector_add_kernel[grid](*args, **kwargs)`` would launch. CPU tensors are fine: Triton's JIT specialises on their
dtype and 16-byte alignment and on the integers' values (n = 4096 is divisible by 16), so kernelpilot compiles the
kernel the JIT launches, with 16-byte vector loads.
"""

import torch
import triton
import triton.language as tl

N, BLOCK = 4096, 1024


@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def kernelpilot_entry():
    x = torch.randn(N)
    y = torch.randn(N)
    out = torch.empty_like(x)
    return {
        "kernel": vector_add_kernel,
        "args": (x, y, out, N),
        "kwargs": {"BLOCK": BLOCK, "num_warps": 4},
        "grid": (triton.cdiv(N, BLOCK),),
    }
