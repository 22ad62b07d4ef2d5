"""Triton's tl.inline_asm_elementwise, three ways (VARIANT): ``plain`` computes tanh with tl math, ``ptx`` with the
PTX ``tanh.approx.f32`` agents write for NVIDIA (the AMD assembler rejects it when check builds for gfx942), ``amd``
with an AMDGPU instruction the llvm engine does not model (``v_sin_f32``)."""

import torch
import triton
import triton.language as tl

VARIANT = "plain"
N = 256


@triton.jit
def tanh_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr, HOW: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if HOW == "ptx":
        y = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    elif HOW == "amd":
        y = tl.inline_asm_elementwise("v_sin_f32 $0, $1", "=v,v", [x], dtype=tl.float32, is_pure=True, pack=1)
    else:
        e = tl.exp(2.0 * x)
        y = (e - 1.0) / (e + 1.0)
    tl.store(out_ptr + offs, y)


def kernelpilot_entry():
    x = torch.randn(N)
    return {"kernel": tanh_kernel, "args": (x, torch.empty_like(x)), "kwargs": {"BLOCK": N, "HOW": VARIANT},
            "grid": (1,)}  # fmt: skip
