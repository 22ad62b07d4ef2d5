"""Flash-attention forward for MI300X/MI355X: out = softmax(q k^T / sqrt(D)) v per (batch, head), q/k/v
(B, H, N, D) fp16 with D = 128, out fp32. A program owns BM query rows and walks the keys BN at a time with an
online softmax (running max and sum, the accumulator rescaled when the max grows)."""

import torch
import triton
import triton.language as tl

BM, BN = 128, 128
OPTIONS = {"num_warps": 8, "num_stages": 1}
LOG2E = 1.4426950408889634


@triton.jit
def flash_attention_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, N, qk_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    bh = tl.program_id(1).to(tl.int64)
    d = tl.arange(0, D)
    base = bh * N * D
    q = tl.load(q_ptr + base + rm[:, None] * D + d[None, :], mask=rm[:, None] < N, other=0.0)
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start in range(0, N, BN):
        rn = start + tl.arange(0, BN)
        k = tl.load(k_ptr + base + rn[:, None] * D + d[None, :], mask=rn[:, None] < N, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale  # log2 domain: qk_scale = log2(e) / sqrt(D)
        s = tl.where(rn[None, :] < N, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + rn[:, None] * D + d[None, :], mask=rn[:, None] < N, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(o_ptr + base + rm[:, None] * D + d[None, :], acc / l_i[:, None], mask=rm[:, None] < N)


def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, N, D = q.shape
    out = torch.empty((B, H, N, D), device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(N, BM), B * H)
    flash_attention_kernel[grid](q, k, v, out, N, LOG2E * D**-0.5, D=D, BM=BM, BN=BN, **OPTIONS)
    return out


def kernelpilot_entry():
    B, H, N, D = 2, 8, 2048, 128
    q, k, v = (torch.empty((B, H, N, D), dtype=torch.float16) for _ in range(3))
    out = torch.empty((B, H, N, D))
    grid = (triton.cdiv(N, BM), B * H)
    kwargs = {"D": D, "BM": BM, "BN": BN, **OPTIONS}
    return {"kernel": flash_attention_kernel, "args": (q, k, v, out, N, LOG2E * D**-0.5), "kwargs": kwargs, "grid": grid}
