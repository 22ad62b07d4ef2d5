"""A wrong answer to mfma-loop-prefetch, kept to show the task is coupled (tests/test_eval_tasks.py): a register double
buffer, two slices in flight and no copies (the hot loop is prefetched), but the loop's second pair of loads is
masked for the tail (``mask=rk + k + BK < K``). On gfx942 that loop takes 72 VGPRs (the reference, whose loop loads whole
pairs unmasked, takes 62): 7 waves per SIMD where the baseline runs 8, and a launch of 4096 programs feels the drop."""

import torch
import triton
import triton.language as tl

BM, BN, BK = 64, 64, 32
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    a0 = tl.load(a_ptrs)
    b0 = tl.load(b_ptrs)
    a1 = tl.zeros((BM, BK), dtype=tl.float16)
    b1 = tl.zeros((BK, BN), dtype=tl.float16)
    if K > BK:
        a1 = tl.load(a_ptrs + BK)
        b1 = tl.load(b_ptrs + BK * N)
    for k in range(2 * BK, K, 2 * BK):
        acc = tl.dot(a0, b0, acc)
        a0 = tl.load(a_ptrs + k)
        b0 = tl.load(b_ptrs + k * N)
        acc = tl.dot(a1, b1, acc)
        a1 = tl.load(a_ptrs + (k + BK), mask=rk[None, :] + (k + BK) < K, other=0.0)
        b1 = tl.load(b_ptrs + (k + BK) * N, mask=rk[:, None] + (k + BK) < K, other=0.0)
    acc = tl.dot(a0, b0, acc)
    acc = tl.dot(a1, b1, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def forward(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    matmul_kernel[(M // BM, N // BN)](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, **OPTIONS)
    return c


def kernelpilot_entry():
    # the launch forward() makes for a 4096 x 4096 x 4096 product: 4096 programs, more than the CUs can hold at once
    M, N, K = 4096, 4096, 4096
    a, b = torch.empty((M, K), dtype=torch.float16), torch.empty((K, N), dtype=torch.float16)
    c = torch.empty((M, N), dtype=torch.float32)
    return {
        "kernel": matmul_kernel,
        "args": (a, b, c, M, N, K),
        "kwargs": {"BM": BM, "BN": BN, "BK": BK, **OPTIONS},
        "grid": (M // BM, N // BN),
    }
