"""Non-causal attention out = softmax(q k^T / sqrt(D)) v per (batch, head), q/k/v (B, H, N, D) fp16, D = 64,
out (B, H, N, D) fp32.

Three kernels that materialise the N x N attention matrix: the fp32 scores S = q k^T * scale, the row softmax of
S written as fp16 probabilities P, and out = P v."""

import torch
import triton
import triton.language as tl

BM, BN = 64, 64


@triton.jit
def scores_kernel(q_ptr, k_ptr, s_ptr, N, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    bh = tl.program_id(2).to(tl.int64)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + bh * N * D + rm[:, None] * D + d[None, :], mask=rm[:, None] < N, other=0.0)
    k = tl.load(k_ptr + bh * N * D + rn[:, None] * D + d[None, :], mask=rn[:, None] < N, other=0.0)
    s = tl.dot(q, tl.trans(k)) * scale
    tl.store(s_ptr + bh * N * N + rm[:, None] * N + rn[None, :], s, mask=(rm[:, None] < N) & (rn[None, :] < N))


@triton.jit
def softmax_kernel(s_ptr, p_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    s = tl.load(s_ptr + row * N + cols, mask=cols < N, other=float("-inf"))
    e = tl.exp(s - tl.max(s, 0))
    tl.store(p_ptr + row * N + cols, (e / tl.sum(e, 0)).to(tl.float16), mask=cols < N)


@triton.jit
def pv_kernel(p_ptr, v_ptr, o_ptr, N, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    bh = tl.program_id(1).to(tl.int64)
    d = tl.arange(0, D)
    acc = tl.zeros((BM, D), dtype=tl.float32)
    for start in range(0, N, BN):
        rn = start + tl.arange(0, BN)
        p = tl.load(p_ptr + bh * N * N + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < N) & (rn[None, :] < N), other=0.0)
        v = tl.load(v_ptr + bh * N * D + rn[:, None] * D + d[None, :], mask=rn[:, None] < N, other=0.0)
        acc = tl.dot(p, v, acc)
    tl.store(o_ptr + bh * N * D + rm[:, None] * D + d[None, :], acc, mask=rm[:, None] < N)


def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    B, H, N, D = q.shape
    s = torch.empty((B * H, N, N), device=q.device, dtype=torch.float32)
    p = torch.empty((B * H, N, N), device=q.device, dtype=torch.float16)
    out = torch.empty((B, H, N, D), device=q.device, dtype=torch.float32)
    scores_kernel[(triton.cdiv(N, BM), triton.cdiv(N, BN), B * H)](q, k, s, N, D**-0.5, D=D, BM=BM, BN=BN, num_warps=4)
    block = triton.next_power_of_2(N)
    softmax_kernel[(B * H * N,)](s, p, N, BLOCK=block, num_warps=8 if block >= 2048 else 4)
    pv_kernel[(triton.cdiv(N, BM), B * H)](p, v, out, N, D=D, BM=BM, BN=BN, num_warps=4, num_stages=3)
    return out


def kernelpilot_entry():
    B, H, N, D = 2, 8, 2048, 64
    p = torch.empty((B * H, N, N), dtype=torch.float16)
    v = torch.empty((B, H, N, D), dtype=torch.float16)
    out = torch.empty((B, H, N, D))
    kwargs = {"D": D, "BM": BM, "BN": BN, "num_warps": 4, "num_stages": 3}
    return {"kernel": pv_kernel, "args": (p, v, out, N), "kwargs": kwargs, "grid": (triton.cdiv(N, BM), B * H)}
