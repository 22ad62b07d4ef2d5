"""The backward pass of LayerNorm over the last dimension.

Forward was y = (x - mean) * rstd * w + b per row, with mean and rstd saved. Given x (M, N) fp16, w (N,) fp16, the
upstream gradient dy (M, N) fp16, mean (M,) and rstd (M,) fp32, it returns one (M + 2, N) fp16 tensor: dx in rows
0..M-1, dw = sum over rows of dy * xhat in row M and db = sum over rows of dy in row M + 1, where
xhat = (x - mean) * rstd and dx = rstd * (g - mean(g * xhat) * xhat - mean(g)) with g = dy * w.

One program per row computes its dx and adds its row's contributions to dw and db element by element."""

import torch
import triton
import triton.language as tl

OPTIONS = {"num_warps": 8}


@triton.jit
def layernorm_backward_kernel(x_ptr, w_ptr, dy_ptr, mean_ptr, rstd_ptr, out_ptr, dwb_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    offs = row.to(tl.int64) * N + cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    g = dy * w
    dx = rstd * (g - tl.sum(g * xhat, 0) / N * xhat - tl.sum(g, 0) / N)
    tl.store(out_ptr + offs, dx.to(tl.float16), mask=mask)
    tl.atomic_add(dwb_ptr + cols, dy * xhat, mask=mask)
    tl.atomic_add(dwb_ptr + N + cols, dy, mask=mask)


def forward(x, w, dy, mean, rstd):
    M, N = x.shape
    out = torch.empty((M + 2, N), device=x.device, dtype=torch.float16)
    dwb = torch.zeros((2, N), device=x.device, dtype=torch.float32)
    block = triton.next_power_of_2(N)
    layernorm_backward_kernel[(M,)](x, w, dy, mean, rstd, out, dwb, N, BLOCK=block, **OPTIONS)
    out[M:] = dwb
    return out


def kernelpilot_entry():
    M, N = 16384, 4096
    x = dy = torch.empty((1, N), dtype=torch.float16)  # only dtype and alignment matter to the compiler
    w = torch.empty((N,), dtype=torch.float16)
    mean = rstd = torch.empty((M,))
    out = torch.empty((1, N), dtype=torch.float16)
    dwb = torch.empty((2, N))
    args = (x, w, dy, mean, rstd, out, dwb, N)
    return {"kernel": layernorm_backward_kernel, "args": args, "kwargs": {"BLOCK": N, **OPTIONS}, "grid": (M,)}
