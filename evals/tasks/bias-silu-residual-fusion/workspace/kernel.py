"""out = silu(x + bias) + residual for an (M, N) fp32 activation, bias broadcast along the rows.

Three elementwise Triton kernels, one per operation; each writes its intermediate to global memory and the next
one reads it back."""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def add_bias_kernel(x_ptr, bias_ptr, t_ptr, n_elements, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(bias_ptr + offs % N, mask=mask)
    tl.store(t_ptr + offs, x + b, mask=mask)


@triton.jit
def silu_kernel(t_ptr, s_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    t = tl.load(t_ptr + offs, mask=mask)
    tl.store(s_ptr + offs, t * tl.sigmoid(t), mask=mask)


@triton.jit
def add_residual_kernel(s_ptr, r_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    s = tl.load(s_ptr + offs, mask=mask)
    r = tl.load(r_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, s + r, mask=mask)


def forward(x: torch.Tensor, bias: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    n = M * N
    grid = (triton.cdiv(n, BLOCK),)
    t = torch.empty_like(x)
    s = torch.empty_like(x)
    out = torch.empty_like(x)
    add_bias_kernel[grid](x, bias, t, n, N, BLOCK=BLOCK, num_warps=4)
    silu_kernel[grid](t, s, n, BLOCK=BLOCK, num_warps=4)
    add_residual_kernel[grid](s, residual, out, n, BLOCK=BLOCK, num_warps=4)
    return out


def kernelpilot_entry():
    M, N = 4096, 8192
    x, t = torch.empty((M, N)), torch.empty((M, N))
    bias = torch.empty(N)
    grid = (triton.cdiv(M * N, BLOCK),)
    return {"kernel": add_bias_kernel, "args": (x, bias, t, M * N, N), "kwargs": {"BLOCK": BLOCK, "num_warps": 4}, "grid": grid}
