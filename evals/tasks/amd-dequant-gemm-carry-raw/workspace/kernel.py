"""Weight-only int8 GEMM for MI300X/MI355X: y = x @ dequant(w_q, scales), x (M, K) fp16, w_q (K, N) int8, scales
(K // 128, N) fp16 (one scale per 128-row group of K and per column), y (M, N) fp32. W[k, n] = w_q[k, n] *
scales[k // 128, n], rounded to fp16, then MFMA with fp32 accumulation.

The K loop loads the x tile, the int8 tile and the scale row of step k and multiplies them in the same iteration:
every iteration waits for memory."""

import torch
import triton
import triton.language as tl

GROUP = 128
BM, BN, BK = 64, 64, 64
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def dequant_gemm_kernel(
    x_ptr, wq_ptr, s_ptr, y_ptr, M, N, K, GROUP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x_ptrs = x_ptr + rm[:, None] * K + rk[None, :]
    w_ptrs = wq_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(x_ptrs)
        q = tl.load(w_ptrs)
        s = tl.load(s_ptr + (k // GROUP) * N + rn)
        b = (q.to(tl.float32) * s.to(tl.float32)[None, :]).to(tl.float16)
        acc = tl.dot(a, b, acc)
        x_ptrs += BK
        w_ptrs += BK * N
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc)


def forward(x: torch.Tensor, w_q: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    M, K = x.shape
    N = w_q.shape[1]
    y = torch.empty((M, N), device=x.device, dtype=torch.float32)
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    dequant_gemm_kernel[grid](x, w_q, scales, y, M, N, K, GROUP=GROUP, BM=BM, BN=BN, BK=BK, **OPTIONS)
    return y


def kernelpilot_entry():
    M, N, K = 4096, 4096, 4096
    x, y = torch.empty((M, K), dtype=torch.float16), torch.empty((M, N))
    w_q, scales = torch.empty((K, N), dtype=torch.int8), torch.empty((K // GROUP, N), dtype=torch.float16)
    kwargs = {"GROUP": GROUP, "BM": BM, "BN": BN, "BK": BK, **OPTIONS}
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    return {"kernel": dequant_gemm_kernel, "args": (x, w_q, scales, y, M, N, K), "kwargs": kwargs, "grid": grid}
