"""Masked vector add in Triton; compiles for gfx90a/gfx942/gfx950 and sm_80/sm_90 without a GPU.

File-mode entry for kernelpilot: ``kernelpilot_entry()`` returns the kernel, its signature and constexprs.
"""

import triton
import triton.language as tl


@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def kernelpilot_entry():
    return {
        "kernel": vector_add_kernel,
        "signature": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constexprs": {"BLOCK": 1024},
        "options": {"num_warps": 4},
    }
