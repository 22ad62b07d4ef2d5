"""A loop whose source step is 16 (``range(0, n, 16)``) and that LLVM does not unroll (sin, cos and exp per
iteration): its ISA counter advances by 16 per iteration, the source step itself. n = 4096: 256 iterations."""

import torch
import triton
import triton.language as tl

N, BLOCK = 1 << 16, 256


@triton.jit
def step16_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(x_ptr + offs)
    for k in range(0, n, 16):
        a = tl.sin(a) * 0.999 + k
        a = tl.cos(a) + tl.exp(a * 0.001)
    tl.store(y_ptr + offs, a)


def kernelpilot_entry():
    x = torch.empty(N, dtype=torch.float32)
    return {"kernel": step16_kernel, "args": (x, torch.empty_like(x), 4096), "kwargs": {"BLOCK": BLOCK, "num_warps": 4},
            "grid": (N // BLOCK,)}  # fmt: skip
