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
    M, N = 8192, 8192
    x, out, w = torch.empty((M, N)), torch.empty((M, N)), torch.empty(N)
    kwargs = {"BLOCK": triton.next_power_of_2(N), **OPTIONS}
    return {"kernel": rmsnorm_kernel, "args": (x, w, out, N, 1e-6), "kwargs": kwargs, "grid": (M,)}
