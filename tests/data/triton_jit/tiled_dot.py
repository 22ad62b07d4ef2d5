"""C = (A @ B^T) * scale with a 3-stage software pipeline (num_stages=3): a tiled dot whose loads Triton pipelines.

Example-argument form: ``kernelpilot_entry()`` returns what ``scaled_dot_kernel[grid](*args, **kwargs)`` launches.
"""

import torch
import triton
import triton.language as tl

M, N, K = 256, 256, 2048
BM, BN, BK = 64, 64, 32


@triton.jit
def scaled_dot_kernel(a_ptr, b_ptr, c_ptr, scale, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]  # A: M x K, row-major
    b_ptrs = b_ptr + rn[None, :] * K + rk[:, None]  # B: N x K, row-major (read transposed)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc * scale)


def kernelpilot_entry():
    a = torch.randn(M, K, dtype=torch.float16)
    b = torch.randn(N, K, dtype=torch.float16)
    c = torch.empty(M, N)
    return {
        "kernel": scaled_dot_kernel,
        "args": (a, b, c, 0.5, M, N, K),
        "kwargs": {"BM": BM, "BN": BN, "BK": BK, "num_warps": 4, "num_stages": 3},
        "grid": (M // BM, N // BN),
    }
