"""Batched bf16 GEMM ``C[b] = A[b] @ W[b]^T`` (A (B, M, K), W (B, N, K), C (B, M, N) bf16, fp32 accumulation), written
here for issue 31 item 4 to compare with published MI300X timings of the same problem (see ``published.yaml``). One
program per (output tile, batch); the tile is picked from M by the host function, as in gemm_bf16.py."""

import torch
import triton
import triton.language as tl


@triton.jit
def batched_gemm_tn_kernel(a_ptr, w_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    tiles_n = tl.cdiv(N, BN)
    rm = (pid // tiles_n) * BM + tl.arange(0, BM)
    rn = (pid % tiles_n) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + b * M * K + rm[:, None].to(tl.int64) * K + rk[None, :]
    w = w_ptr + b * N * K + rn[None, :].to(tl.int64) * K + rk[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a, mask=rm[:, None] < M, other=0.0), tl.load(w, mask=rn[None, :] < N, other=0.0))
        a += BK
        w += BK
    c = c_ptr + b * M * N + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(c, acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def batched_gemm_tn(a, w):
    """Host function: ``a`` (B, M, K) bf16, ``w`` (B, N, K) bf16; returns (B, M, N) bf16."""
    batch, m, k = a.shape
    n = w.shape[1]
    if m <= 64:
        bm, bn, bk, warps = 16, 64, 256, 4
    else:
        bm, bn, bk, warps = 256, 256, 64, 8
    if k % bk:
        raise ValueError(f"batched_gemm_tn: K={k} is not a multiple of {bk}")
    c = torch.empty(batch, m, n, dtype=torch.bfloat16, device=a.device)
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), batch)
    batched_gemm_tn_kernel[grid](a, w, c, m, n, k, BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=2)
    return c


def kernelpilot_entry():
    a = torch.empty(2, 16, 512, dtype=torch.bfloat16)
    return {"call": batched_gemm_tn, "args": (a, torch.empty(2, 256, 512, dtype=torch.bfloat16)), "kwargs": {}}
