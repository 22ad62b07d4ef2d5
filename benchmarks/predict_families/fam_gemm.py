"""fp16/bf16 GEMM C = A @ B (row-major A [M, K], B [K, N], fp32 accumulate, C in the input dtype): tile sizes,
warps, cp.async stages 1-4 and the grouped (GROUP_M) program order."""

import torch
import triton
import triton.language as tl
from gen_common import Built, empty, randn, spec

FAMILY = "gemm"
PROBLEMS = {
    "f16_4096cube": {"M": 4096, "N": 4096, "K": 4096, "dtype": torch.float16},
    "bf16_2048cube": {"M": 2048, "N": 2048, "K": 2048, "dtype": torch.bfloat16},
    "bf16_8192x1024x2048": {"M": 8192, "N": 1024, "K": 2048, "dtype": torch.bfloat16},
    "f16_1024x1024x8192": {"M": 1024, "N": 1024, "K": 8192, "dtype": torch.float16},
}
CONFIGS = (  # BM, BN, BK, warps, stages, GROUP_M
    (128, 128, 64, 8, 3, 8),
    (128, 128, 64, 8, 1, 8),
    (128, 128, 64, 8, 2, 8),
    (128, 128, 64, 8, 4, 8),
    (128, 128, 64, 4, 4, 8),
    (128, 128, 64, 8, 3, 1),
    (128, 256, 64, 8, 3, 8),
    (256, 128, 64, 8, 3, 8),
    (64, 128, 64, 4, 3, 8),
    (128, 64, 64, 4, 3, 8),
    (64, 64, 64, 4, 2, 8),
    (128, 128, 32, 4, 4, 8),
    (64, 64, 32, 4, 1, 8),
)
SMALL = {"f16_4096cube": {"M": 256, "N": 256, "K": 128, "dtype": torch.float16}}  # bf16 dots: wrong in the interpreter


def designs(p):
    return {
        f"m{bm}n{bn}k{bk}w{w}s{s}g{g}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s, "GROUP_M": g}
        for bm, bn, bk, w, s, g in CONFIGS
    }


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                GROUP_M: tl.constexpr):  # fmt: skip
    pid = tl.program_id(0)
    grid_m = M // BM
    grid_n = N // BN
    per_group = GROUP_M * grid_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None].to(tl.int64) * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


def build(p, d, device):
    M, N, K, dt = p["M"], p["N"], p["K"], p["dtype"]
    a = randn((M, K), dt, device, seed=20)
    b = randn((K, N), dt, device, seed=21)
    c = empty((M, N), dt, device)
    grid = ((M // d["BM"]) * (N // d["BN"]),)
    s = spec(gemm_kernel, grid, a, b, c, M, N, K, BM=d["BM"], BN=d["BN"], BK=d["BK"], GROUP_M=d["GROUP_M"],
             num_warps=d["warps"], num_stages=d["stages"])  # fmt: skip
    return Built([s], [c], lambda: [a.float() @ b.float()], 1e-2, f"{M}x{N}x{K} {dt}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "bf16_3072x3072x1536": {"M": 3072, "N": 3072, "K": 1536, "dtype": torch.bfloat16},
    "f16_6144x768x4096": {"M": 6144, "N": 768, "K": 4096, "dtype": torch.float16},
    "bf16_512x8192x3072": {"M": 512, "N": 8192, "K": 3072, "dtype": torch.bfloat16},
}
HOLD_CONFIGS = (  # BM, BN, BK, warps, stages, GROUP_M: none of them in CONFIGS
    (128, 128, 64, 4, 3, 8),
    (128, 64, 64, 8, 4, 4),
    (64, 128, 32, 4, 3, 4),
    (64, 64, 64, 4, 4, 1),
    (128, 128, 64, 8, 2, 4),
    (256, 128, 64, 8, 2, 8),
    (64, 256, 64, 8, 3, 8),
)


def hold_designs(p):
    return {
        f"m{bm}n{bn}k{bk}w{w}s{s}g{g}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s, "GROUP_M": g}
        for bm, bn, bk, w, s, g in HOLD_CONFIGS
        if p["M"] % bm == 0 and p["N"] % bn == 0 and p["K"] % bk == 0
    }


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f16_5120x2560x1280": {"M": 5120, "N": 2560, "K": 1280, "dtype": torch.float16},
    "bf16_256x4096x12288": {"M": 256, "N": 4096, "K": 12288, "dtype": torch.bfloat16},
    "f16_12288x12288x512": {"M": 12288, "N": 12288, "K": 512, "dtype": torch.float16},
}
FRESH_CONFIGS = (  # BM, BN, BK, warps, stages, GROUP_M: none of them in CONFIGS or HOLD_CONFIGS
    (128, 256, 32, 8, 3, 8),
    (64, 128, 64, 4, 4, 1),
    (128, 64, 32, 4, 5, 8),
    (256, 64, 64, 8, 3, 4),
    (64, 64, 128, 4, 3, 8),
)


def fresh_designs(p):
    return {
        f"m{bm}n{bn}k{bk}w{w}s{s}g{g}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s, "GROUP_M": g}
        for bm, bn, bk, w, s, g in FRESH_CONFIGS
        if p["M"] % bm == 0 and p["N"] % bn == 0 and p["K"] % bk == 0
    }


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_7168x2560x5120": {"M": 7168, "N": 2560, "K": 5120, "dtype": torch.bfloat16},
    "f16_3328x1792x768": {"M": 3328, "N": 1792, "K": 768, "dtype": torch.float16},
    "bf16_256x6144x2048": {"M": 256, "N": 6144, "K": 2048, "dtype": torch.bfloat16},
}
