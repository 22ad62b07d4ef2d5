"""bf16 GEMM ``C[M, N] = A[M, K] @ W[N, K]^T`` with fp32 accumulation and fp32 output (the 'tn' layout and output
dtype of the published rows it is compared with; see ``published.yaml``), written here for issue 31 item 4. One
program per output tile, grouped along M for L2 reuse; the tile is picked from M by the host function: skinny
(decode) shapes get 16-row tiles with a deep K step, large ones 256x256 tiles."""

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_tn_kernel(a_ptr, w_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   GROUP: tl.constexpr):  # fmt: skip
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows = min(tiles_m - first_m, GROUP)
    tm = first_m + (pid % per_group) % rows
    tn = (pid % per_group) // rows
    rm = tm * BM + tl.arange(0, BM)
    rn = tn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    w = w_ptr + rn[None, :].to(tl.int64) * K + rk[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a, mask=rm[:, None] < M, other=0.0), tl.load(w, mask=rn[None, :] < N, other=0.0))
        a += BK
        w += BK
    c = c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(c, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def gemm_tn(a, w):
    """Host function: ``a`` (M, K) bf16, ``w`` (N, K) bf16, K a multiple of the K step; returns (M, N) fp32."""
    m, k = a.shape
    n = w.shape[0]
    if m <= 64:
        bm, bn, bk, warps, stages = 16, 64, 256, 4, 2
    else:
        bm, bn, bk, warps, stages = 256, 256, 64, 8, 2
    if k % bk:
        raise ValueError(f"gemm_tn: K={k} is not a multiple of {bk}")
    c = torch.empty(m, n, dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    gemm_tn_kernel[grid](a, w, c, m, n, k, BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps, num_stages=stages)
    return c


def kernelpilot_entry():
    return {"call": gemm_tn, "args": (torch.empty(16, 512, dtype=torch.bfloat16), torch.empty(256, 512, dtype=torch.bfloat16)),
            "kwargs": {}}  # fmt: skip
