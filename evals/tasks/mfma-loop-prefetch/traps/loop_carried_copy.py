"""A wrong answer to mfma-loop-prefetch, kept to show what the task rejects (tests/test_eval_tasks.py): the loads of
slice k+1 are issued before the MFMAs of slice k and rotated into place (``a = a_next``). The loop-carried copy
becomes v_mov instructions at the end of the iteration, each waiting (s_waitcnt) for the load it copies: the loads
complete in the iteration that issued them. On gfx942 the slice's MFMAs still cover ~270 cycles of the wait, on gfx950
(faster MFMAs) only ~120: prefetch-data-load calls that hot loop exposed-latency."""

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
    a = tl.load(a_ptrs)
    b = tl.load(b_ptrs)
    for _ in range(BK, K, BK):
        a_ptrs += BK
        b_ptrs += BK * N
        a_next = tl.load(a_ptrs)
        b_next = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a = a_next
        b = b_next
    acc = tl.dot(a, b, acc)
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
