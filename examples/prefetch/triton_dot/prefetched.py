"""Prefetched: ``baseline.py`` with ``num_stages=3``. With the vector loads the JIT's specialisation allows, Triton's
software pipeliner issues the loads of tile k+2 while tile k is computed: on sm_90 as cp.async (LDGSTS) into a
3-buffer shared-memory ring waited for with ``DEPBAR.LE``; on gfx942 as buffer loads into registers written to LDS
at the end of the iteration (read back the next); on gfx950 as direct-to-LDS buffer loads.
"""

import triton
import triton.language as tl

NUM_STAGES = 3
BM, BN, BK = 32, 32, 32
# Timed shape: 16 x 16 = 256 programs of 4 warps, 256 K iterations each: few warps in flight per SM, so the
# per-iteration load latency is what the baseline waits on.
M, N, K = 512, 512, 8192


@triton.jit
def dot_loop_kernel(a_ptr, b_ptr, c_ptr, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]  # A is M x K, row-major
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]  # B is K x N, row-major
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def kernelpilot_entry():
    """The launch ``kernelpilot_run`` makes, with CPU tensors: Triton's JIT specialises on their dtypes and 16-byte
    alignment and on N and K (divisible by 16), never on the values, so empty tensors do."""
    import torch

    a = torch.empty(M, K, dtype=torch.float16)
    b = torch.empty(K, N, dtype=torch.float16)
    c = torch.empty(M, N, dtype=torch.float32)
    return {
        "kernel": dot_loop_kernel,
        "args": (a, b, c, N, K),
        "kwargs": {"BM": BM, "BN": BN, "BK": BK, "num_warps": 4, "num_stages": NUM_STAGES},
        "grid": (M // BM, N // BN),
    }


def kernelpilot_run(device):
    """Inputs on ``device``, a launch of the kernel on them, and a check of its output against torch."""
    import torch

    gen = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(M, K, generator=gen).to(device=device, dtype=torch.float16)
    b = torch.randn(K, N, generator=gen).to(device=device, dtype=torch.float16)
    c = torch.empty(M, N, device=device, dtype=torch.float32)

    def launch():
        dot_loop_kernel[(M // BM, N // BN)](a, b, c, N, K, BM=BM, BN=BN, BK=BK, num_warps=4, num_stages=NUM_STAGES)

    def check():
        c.zero_()
        launch()
        ref = a.float() @ b.float()
        err = (c - ref).abs().max().item()
        tol = 1e-3 * ref.abs().max().item()
        return err <= tol, f"max |C - A@B| = {err:.3g} (tolerance {tol:.3g}, fp32 reference)"

    return {"launch": launch, "check": check, "shape": f"M={M} N={N} K={K} BM={BM} BN={BN} BK={BK}, 256 programs"}
