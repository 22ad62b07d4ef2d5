"""fp16 GEMM with fp32 accumulation, C = A @ B, with small 32 x 32 x 32 tiles and no software pipelining:
low arithmetic intensity per tile and poor tensor-core utilisation. Masks handle any M, N, K."""

import torch
import triton
import triton.language as tl

BM, BN, BK = 32, 32, 32
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
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
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    matmul_kernel[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, **OPTIONS)
    return c


def kernelpilot_entry():
    """The launch forward() makes for 4096 x 4096 x 4096 fp16 operands. CPU tensors stand in: Triton's JIT specialises on
    dtypes, 16-byte alignment and integer values, and so does kernelpilot from these example arguments
    (kernelpilot README, "File mode")."""
    a = torch.empty(4096, 4096, dtype=torch.float16)
    b = torch.empty(4096, 4096, dtype=torch.float16)
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.float32)
    return {
        "kernel": matmul_kernel,
        "args": (a, b, c, M, N, K),
        "kwargs": {"BM": BM, "BN": BN, "BK": BK, **OPTIONS},
        "grid": (triton.cdiv(M, BM), triton.cdiv(N, BN)),
    }
