"""Single-query (decode) attention: for every batch b and head h, out[b, h] = softmax(q k^T / sqrt(D)) v over the
S cached keys and values of that head. q is (B, H, D), k and v are (B, H, S, D), all fp16; out is fp32.

One program per (batch, head) walks the whole sequence in BLOCK_N-key steps with an online softmax."""

import torch
import triton
import triton.language as tl

BLOCK_N = 64
OPTIONS = {"num_warps": 4}


@triton.jit
def decode_attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, S, scale, D: tl.constexpr, BLOCK_N: tl.constexpr):
    bh = tl.program_id(0)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + bh * D + d).to(tl.float32)
    kv_base = bh.to(tl.int64) * S * D
    m_i = tl.full((), float("-inf"), tl.float32)
    l_i = tl.full((), 0.0, tl.float32)
    acc = tl.zeros((D,), dtype=tl.float32)
    for start in range(0, S, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        mask = n < S
        offs = kv_base + n[:, None] * D + d[None, :]
        k = tl.load(k_ptr + offs, mask=mask[:, None], other=0.0).to(tl.float32)
        s = tl.where(mask, tl.sum(k * q[None, :], 1) * scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m_i - m_new)
        v = tl.load(v_ptr + offs, mask=mask[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, 0)
        l_i = l_i * alpha + tl.sum(p, 0)
        m_i = m_new
    tl.store(out_ptr + bh * D + d, acc / l_i)


def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, S, D = k.shape
    out = torch.empty((B, H, D), device=q.device, dtype=torch.float32)
    decode_attention_kernel[(B * H,)](q, k, v, out, S, D**-0.5, D=D, BLOCK_N=BLOCK_N, **OPTIONS)
    return out


def kernelpilot_entry():
    B, H, S, D = 4, 8, 16384, 128
    q = torch.empty((B, H, D), dtype=torch.float16)
    k = v = torch.empty((1, D), dtype=torch.float16)  # only dtype and alignment matter to the compiler
    out = torch.empty((B, H, D))
    kwargs = {"D": D, "BLOCK_N": BLOCK_N, **OPTIONS}
    return {"kernel": decode_attention_kernel, "args": (q, k, v, out, S, D**-0.5), "kwargs": kwargs, "grid": (B * H,)}
