"""Causal self-attention for prefill: for every batch b, head h and query i,
out[b, h, i] = softmax over keys j <= i of (q[b, h, i] . k[b, h, j] / sqrt(D)), applied to v[b, h, j].
q, k, v are (B, H, N, D) fp16 contiguous; out is (B, H, N, D) fp32.

One program per (batch, head, query row) walks the keys up to its own position BLOCK_N at a time with an online
softmax."""

import torch
import triton
import triton.language as tl

BLOCK_N = 32
OPTIONS = {"num_warps": 4}


@triton.jit
def causal_attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, N, scale, D: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * N * D
    d = tl.arange(0, D)
    q = tl.load(q_ptr + base + row * D + d).to(tl.float32)
    m_i = tl.full((), float("-inf"), tl.float32)
    l_i = tl.full((), 0.0, tl.float32)
    acc = tl.zeros((D,), dtype=tl.float32)
    for start in range(0, row + 1, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        seen = n <= row
        offs = base + n[:, None] * D + d[None, :]
        k = tl.load(k_ptr + offs, mask=seen[:, None], other=0.0).to(tl.float32)
        s = tl.where(seen, tl.sum(k * q[None, :], 1) * scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m_i - m_new)
        v = tl.load(v_ptr + offs, mask=seen[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, 0)
        l_i = l_i * alpha + tl.sum(p, 0)
        m_i = m_new
    tl.store(out_ptr + base + row * D + d, acc / l_i)


def forward(q, k, v):
    B, H, N, D = q.shape
    out = torch.empty((B, H, N, D), device=q.device, dtype=torch.float32)
    causal_attention_kernel[(N, B * H)](q, k, v, out, N, D**-0.5, D=D, BLOCK_N=BLOCK_N, **OPTIONS)
    return out


def kernelpilot_entry():
    B, H, N, D = 2, 16, 4096, 128
    q = k = v = torch.empty((1, D), dtype=torch.float16)  # only dtype and alignment matter to the compiler
    out = torch.empty((1, D))
    kwargs = {"D": D, "BLOCK_N": BLOCK_N, **OPTIONS}
    return {"kernel": causal_attention_kernel, "args": (q, k, v, out, N, D**-0.5), "kwargs": kwargs, "grid": (N, B * H)}
