"""fp8 (e4m3) GEMM with per-tensor scales: C = (A @ B^T) * sa * sb, A [M, K], B [N, K] (both K-contiguous, as
the fp8 tensor cores take them), fp32 accumulate, bf16 C."""

import torch
import triton
import triton.language as tl
from gen_common import Built, empty, randn, spec

FAMILY = "gemm_fp8"
PROBLEMS = {
    "4096cube": {"M": 4096, "N": 4096, "K": 4096},
    "8192x2048x4096": {"M": 8192, "N": 2048, "K": 4096},
    "2048x2048x8192": {"M": 2048, "N": 2048, "K": 8192},
}
CONFIGS = (  # BM, BN, BK, warps, stages
    (128, 128, 128, 8, 3),
    (128, 128, 128, 8, 2),
    (128, 128, 128, 8, 4),
    (128, 256, 128, 8, 3),
    (128, 128, 64, 4, 4),
    (64, 128, 128, 4, 3),
    (128, 64, 128, 4, 3),
    (256, 128, 128, 8, 3),
    (64, 64, 128, 4, 2),
)
SMALL = {"4096cube": {"M": 256, "N": 256, "K": 256}}


def designs(p):
    return {f"m{bm}n{bn}k{bk}w{w}s{s}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s}
            for bm, bn, bk, w, s in CONFIGS}  # fmt: skip


@triton.jit
def gemm_fp8_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sa, sb, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = M // BM
    per_group = 8 * (N // BN)
    first_m = (pid // per_group) * 8
    group_rows = min(grid_m - first_m, 8)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    b_ptrs = b_ptr + rn[None, :].to(tl.int64) * K + rk[:, None]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK
    tl.store(c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], (acc * (sa * sb)).to(tl.bfloat16))


def build(p, d, device):
    M, N, K = p["M"], p["N"], p["K"]
    f8 = torch.float8_e4m3fn
    a = randn((M, K), f8, device, seed=22)
    b = randn((N, K), f8, device, seed=23)
    c = empty((M, N), torch.bfloat16, device)
    sa, sb = 0.5, 0.25
    grid = ((M // d["BM"]) * (N // d["BN"]),)
    s = spec(gemm_fp8_kernel, grid, a, b, c, M, N, K, sa, sb, BM=d["BM"], BN=d["BN"], BK=d["BK"],
             num_warps=d["warps"], num_stages=d["stages"])  # fmt: skip
    return Built([s], [c], lambda: [(a.float() @ b.float().t()) * (sa * sb)], 1e-2, f"{M}x{N}x{K} e4m3 -> bf16")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "6144x3072x2048": {"M": 6144, "N": 3072, "K": 2048},
    "1024x8192x8192": {"M": 1024, "N": 8192, "K": 8192},
    "3072x1536x6144": {"M": 3072, "N": 1536, "K": 6144},
}
HOLD_CONFIGS = ((128, 128, 128, 4, 3), (128, 256, 128, 8, 2), (64, 128, 128, 4, 4), (128, 64, 128, 8, 3),
                (128, 128, 64, 8, 3), (256, 128, 128, 8, 2))  # fmt: skip


def hold_designs(p):
    return {f"m{bm}n{bn}k{bk}w{w}s{s}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s}
            for bm, bn, bk, w, s in HOLD_CONFIGS if p["M"] % bm == 0 and p["N"] % bn == 0 and p["K"] % bk == 0}  # fmt: skip


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "2560x5120x1536": {"M": 2560, "N": 5120, "K": 1536},
    "512x4096x16384": {"M": 512, "N": 4096, "K": 16384},
    "8192x8192x1024": {"M": 8192, "N": 8192, "K": 1024},
}
FRESH_CONFIGS = ((128, 128, 128, 8, 4), (64, 256, 128, 8, 3), (128, 64, 64, 4, 4), (64, 64, 64, 4, 3))


def fresh_designs(p):
    return {f"m{bm}n{bn}k{bk}w{w}s{s}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s}
            for bm, bn, bk, w, s in FRESH_CONFIGS if p["M"] % bm == 0 and p["N"] % bn == 0 and p["K"] % bk == 0}  # fmt: skip


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "5120x7168x2048": {"M": 5120, "N": 7168, "K": 2048},
    "768x3584x6144": {"M": 768, "N": 3584, "K": 6144},
    "256x2560x1280": {"M": 256, "N": 2560, "K": 1280},
}
