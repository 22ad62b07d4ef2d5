"""y = x @ dequant(w_q, scales) for weight-only int8 quantisation with per-group scales along K.

x is (M, K) fp16 (M small: decode batches), w_q is (K, N) int8, scales is (K // GROUP, N) fp16 with GROUP = 128:
the weight W[k, n] = fp16(w_q[k, n] * scales[k // GROUP, n]). y is (M, N) fp32.

Two kernels: the first dequantises the whole weight into an fp16 (K, N) buffer, the second is a tiled GEMM on it."""

import torch
import triton
import triton.language as tl

GROUP = 128
BM, BN, BK = 16, 64, 128
GEMM_OPTIONS = {"num_warps": 4, "num_stages": 4}


@triton.jit
def dequant_kernel(wq_ptr, s_ptr, w_ptr, K, N, GROUP: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr):
    rk = tl.program_id(0) * BK + tl.arange(0, BK)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rk[:, None] < K) & (rn[None, :] < N)
    q = tl.load(wq_ptr + rk[:, None] * N + rn[None, :], mask=mask, other=0)
    s = tl.load(s_ptr + (rk // GROUP)[:, None] * N + rn[None, :], mask=mask, other=0.0)
    tl.store(w_ptr + rk[:, None] * N + rn[None, :], (q.to(tl.float32) * s.to(tl.float32)).to(tl.float16), mask=mask)


@triton.jit
def gemm_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(w_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def forward(x: torch.Tensor, w_q: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    M, K = x.shape
    N = w_q.shape[1]
    w = torch.empty((K, N), device=x.device, dtype=torch.float16)
    dequant_kernel[(triton.cdiv(K, 64), triton.cdiv(N, 128))](w_q, scales, w, K, N, GROUP=GROUP, BK=64, BN=128, num_warps=4)
    y = torch.empty((M, N), device=x.device, dtype=torch.float32)
    gemm_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, w, y, M, N, K, BM=BM, BN=BN, BK=BK, **GEMM_OPTIONS)
    return y


def kernelpilot_entry():
    M, N, K = 16, 8192, 8192
    x, w, y = torch.empty((M, K), dtype=torch.float16), torch.empty((K, N), dtype=torch.float16), torch.empty((M, N))
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    kwargs = {"BM": BM, "BN": BN, "BK": BK, **GEMM_OPTIONS}
    return {"kernel": gemm_kernel, "args": (x, w, y, M, N, K), "kwargs": kwargs, "grid": grid}
