"""A bf16 kernel whose LLVM IR holds the constants newer LLVM prints for bfloat: the masked load's other=nan and the
fp32 -> bf16 conversion of (x * 2) give ``select <2 x i1> %c, <2 x bfloat> splat (bfloat +nan(0x3F)), …`` (0x7FFF,
Triton's bf16 NaN) and the max over the masked lanes starts from ``float -inf``. 384 of 512 lanes are loaded."""

import torch
import triton
import triton.language as tl

N, BLOCK = 384, 512


@triton.jit
def bf16_scale_max(x_ptr, out_ptr, max_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=float("nan")).to(tl.float32)
    tl.store(out_ptr + offs, (x * 2.0).to(tl.bfloat16))
    tl.store(max_ptr, tl.max(tl.where(mask, x, float("-inf")), 0).to(tl.bfloat16))


def kernelpilot_entry():
    x = torch.randn(N).to(torch.bfloat16)
    out = torch.empty(BLOCK, dtype=torch.bfloat16)
    peak = torch.empty(1, dtype=torch.bfloat16)
    return {
        "kernel": bf16_scale_max,
        "args": (x, out, peak, N),
        "kwargs": {"BLOCK": BLOCK, "num_warps": 1},
        "grid": (1,),
    }
