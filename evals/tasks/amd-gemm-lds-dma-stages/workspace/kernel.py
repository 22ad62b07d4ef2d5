"""fp16 GEMM with fp32 accumulation for MI300X/MI355X, C = A @ B: A (M, K), B (K, N) fp16 row-major, C fp32;
256 x 128 x 64 tiles, 8 waves per workgroup, grouped program order. Masks handle any M, N, K."""

import torch
import triton
import triton.language as tl

BM, BN, BK, GROUP_M = 256, 128, 64, 8
OPTIONS = {"num_warps": 8, "num_stages": 1}


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP_M * grid_n
    first_m = (pid // width) * GROUP_M
    size_m = tl.minimum(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % size_m
    pid_n = (pid % width) // size_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def forward(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    gemm_kernel[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, GROUP_M=GROUP_M, **OPTIONS)
    return c


def kernelpilot_entry():
    M = N = K = 8192
    a, b = torch.empty((M, K), dtype=torch.float16), torch.empty((K, N), dtype=torch.float16)
    c = torch.empty((M, N))
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    kwargs = {"BM": BM, "BN": BN, "BK": BK, "GROUP_M": GROUP_M, **OPTIONS}
    return {"kernel": gemm_kernel, "args": (a, b, c, M, N, K), "kwargs": kwargs, "grid": grid}
