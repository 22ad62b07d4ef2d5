"""Row LayerNorm (no bias), one 4096-float row per program in one wave, kept in the dict (signature) form ON PURPOSE:
tests/test_vgpr_pressure_triton.py tests vgpr-pressure on a compile WITHOUT Triton's launch specialisation (no pointer
known 16-byte aligned, N not known divisible by 16: one f32 per lane per load, 67 spills at waves_per_eu=4). The JIT
launches 16-byte loads instead, and the report says so. The vgpr-spill-row-norm eval task was this kernel until it
moved to the example-argument form (its kernel is now a persistent row loop that really spills)."""

import torch
import triton
import triton.language as tl

BLOCK = 4096
OPTIONS = {"num_warps": 1, "waves_per_eu": 4}


@triton.jit
def row_norm_kernel(x_ptr, w_ptr, out_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, 0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, 0) / N
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * N + cols, xc * tl.rsqrt(var + eps) * w, mask=mask)


def forward(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    row_norm_kernel[(x.shape[0],)](x, w, out, x.shape[1], 1e-5, BLOCK=BLOCK, **OPTIONS)
    return out


def kernelpilot_entry():
    return {
        "kernel": row_norm_kernel,
        "signature": {
            "x_ptr": "*fp32",
            "w_ptr": "*fp32",
            "out_ptr": "*fp32",
            "N": "i32",
            "eps": "fp32",
            "BLOCK": "constexpr",
        },
        "constexprs": {"BLOCK": BLOCK},
        "options": OPTIONS,
    }
