"""RMSNorm followed by per-row symmetric int8 quantization, for MI300X/MI355X.

x [M, N] fp16, w [N] fp16: y = x / sqrt(mean(x^2) + eps) * w (fp32 math); per row scale = max|y| / 127 and
q = round(y / scale) clamped to [-127, 127]. forward_with_scale returns q [M, N] int8 and scale [M] fp32; forward returns q."""

import torch
import triton
import triton.language as tl

EPS = 1e-6
BLOCK = 1024


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row * N + start + cols, mask=start + cols < N, other=0.0).to(tl.float32)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    for start in range(0, N, BLOCK):
        mask = start + cols < N
        x = tl.load(x_ptr + row * N + start + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + start + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * N + start + cols, x * rstd * w, mask=mask)


@triton.jit
def quant_kernel(y_ptr, q_ptr, scale_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    amax = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        y = tl.load(y_ptr + row * N + start + cols, mask=start + cols < N, other=0.0)
        amax = tl.maximum(amax, tl.abs(y))
    scale = tl.maximum(tl.max(amax, axis=0), 1e-12) / 127.0
    tl.store(scale_ptr + row, scale)
    for start in range(0, N, BLOCK):
        mask = start + cols < N
        y = tl.load(y_ptr + row * N + start + cols, mask=mask, other=0.0)
        q = tl.floor(y / scale + 0.5)
        q = tl.minimum(tl.maximum(q, -127.0), 127.0)
        tl.store(q_ptr + row * N + start + cols, q.to(tl.int8), mask=mask)


def forward_with_scale(x, w):
    M, N = x.shape
    y = torch.empty(M, N, dtype=torch.float32, device=x.device)
    q = torch.empty(M, N, dtype=torch.int8, device=x.device)
    scale = torch.empty(M, dtype=torch.float32, device=x.device)
    rmsnorm_kernel[(M,)](x, w, y, N, EPS, BLOCK=BLOCK, num_warps=4)
    quant_kernel[(M,)](y, q, scale, N, BLOCK=BLOCK, num_warps=4)
    return q, scale


def forward(x, w):
    """The quantized rows (the per-row scales are forward_with_scale's second result)."""
    return forward_with_scale(x, w)[0]


def kernelpilot_entry():
    """A decode batch: 128 tokens x 16384 hidden."""
    M, N = 128, 16384
    return {"call": forward, "args": (torch.empty(M, N, dtype=torch.float16), torch.empty(N, dtype=torch.float16)),
            "kwargs": {}}
