"""check test data: vector_add launched over a grid far larger than its data (every lane past n masked off).

``--shape programs=N`` sets the grid; the CPU engine holds every lane of a launch at once, so a large grid needs
memory in proportion (grid × 256 threads × the kernel's values) whatever the data's size.
"""

import torch
import triton
import triton.language as tl

BLOCK = 256


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def kernelpilot_entry(programs=4, n=1024):
    x, y = torch.randn(n), torch.randn(n)
    return {"kernel": add_kernel, "args": (x, y, torch.empty(n), n), "kwargs": {"BLOCK": BLOCK, "num_warps": 4},
            "grid": (programs,)}  # fmt: skip
