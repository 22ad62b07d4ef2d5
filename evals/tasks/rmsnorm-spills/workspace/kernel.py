"""RMSNorm over rows of up to 8192 fp32 values: out = x / sqrt(mean(x^2) + eps) * weight, one row per program."""

import torch
import triton
import triton.language as tl

OPTIONS = {"num_warps": 1}


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    inv = tl.rsqrt(tl.sum(x * x, 0) / N + eps)
    tl.store(out_ptr + row * N + cols, x * inv * w, mask=mask)


def forward(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty_like(x)
    rmsnorm_kernel[(M,)](x, weight, out, N, 1e-6, BLOCK=triton.next_power_of_2(N), **OPTIONS)
    return out


def kernelpilot_entry():
    sig = {"x_ptr": "*fp32", "w_ptr": "*fp32", "out_ptr": "*fp32", "N": "i32", "eps": "fp32", "BLOCK": "constexpr"}
    return {"kernel": rmsnorm_kernel, "signature": sig, "constexprs": {"BLOCK": 8192}, "options": OPTIONS}
