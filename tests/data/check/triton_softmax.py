"""Check test data: a Triton row softmax (cross-lane max and sum reductions) for the llvm and interpreter engines.

``kernelpilot_entry()`` is dump-ir's signature form; ``kernelpilot_inputs()`` the example-argument form check runs.
"""

import torch
import triton
import triton.language as tl

BLOCK = 256


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, 0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, 0), mask=mask)


def kernelpilot_entry():
    return {
        "kernel": softmax_kernel,
        "signature": {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "BLOCK": "constexpr"},
        "constexprs": {"BLOCK": BLOCK},
        "options": {"num_warps": 2},
    }


def kernelpilot_inputs(seed, rows=3, n_cols=200):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, n_cols, generator=g)
    out = torch.zeros_like(x)
    return {
        "kernel": softmax_kernel,
        "args": (x, out, n_cols),
        "kwargs": {"BLOCK": BLOCK, "num_warps": 2},
        "grid": (rows,),
    }
