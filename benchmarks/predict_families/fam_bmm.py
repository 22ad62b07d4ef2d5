"""Batched matmul C[b] = A[b] @ B[b] (fp16/bf16, fp32 accumulate): one program per (tile, batch)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, empty, randn, spec

FAMILY = "bmm"
PROBLEMS = {
    "b32_512cube_f16": {"B": 32, "M": 512, "N": 512, "K": 512, "dtype": torch.float16},
    "b8_1024x1024x2048": {"B": 8, "M": 1024, "N": 1024, "K": 2048, "dtype": torch.bfloat16},
    "b128_256x256x128": {"B": 128, "M": 256, "N": 256, "K": 128, "dtype": torch.bfloat16},
}
CONFIGS = (  # BM, BN, BK, warps, stages
    (128, 128, 64, 8, 3),
    (128, 128, 64, 4, 2),
    (64, 64, 64, 4, 3),
    (64, 128, 32, 4, 4),
    (128, 64, 32, 4, 4),
    (64, 64, 32, 2, 2),
    (128, 256, 64, 8, 3),
    (32, 64, 64, 4, 1),
)
SMALL = {"b32_512cube_f16": {"B": 2, "M": 256, "N": 256, "K": 128, "dtype": torch.float16}}


def designs(p):
    return {f"m{bm}n{bn}k{bk}w{w}s{s}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s}
            for bm, bn, bk, w, s in CONFIGS if bm <= p["M"] and bn <= p["N"] and bk <= p["K"]}  # fmt: skip


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2).to(tl.int64)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + batch * M * K + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + batch * K * N + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + batch * M * N + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


def build(p, d, device):
    B, M, N, K, dt = p["B"], p["M"], p["N"], p["K"], p["dtype"]
    a = randn((B, M, K), dt, device, seed=24)
    b = randn((B, K, N), dt, device, seed=25)
    c = empty((B, M, N), dt, device)
    grid = (M // d["BM"], N // d["BN"], B)
    s = spec(bmm_kernel, grid, a, b, c, M, N, K, BM=d["BM"], BN=d["BN"], BK=d["BK"], num_warps=d["warps"],
             num_stages=d["stages"])  # fmt: skip
    return Built([s], [c], lambda: [torch.bmm(a.float(), b.float())], 1e-2, f"{B}x {M}x{N}x{K} {dt}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "b64_384x768x256_f16": {"B": 64, "M": 384, "N": 768, "K": 256, "dtype": torch.float16},
    "b4_2048x512x1024": {"B": 4, "M": 2048, "N": 512, "K": 1024, "dtype": torch.bfloat16},
}
HOLD_CONFIGS = ((128, 128, 64, 8, 4), (64, 128, 64, 4, 4), (128, 64, 64, 4, 2), (64, 64, 32, 4, 3), (32, 32, 64, 2, 3),
                (128, 256, 64, 8, 2), (64, 256, 32, 8, 3))  # fmt: skip


def hold_designs(p):
    return {f"m{bm}n{bn}k{bk}w{w}s{s}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s}
            for bm, bn, bk, w, s in HOLD_CONFIGS if p["M"] % bm == 0 and p["N"] % bn == 0 and p["K"] % bk == 0}  # fmt: skip


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f16_b48_768x768x64": {"B": 48, "M": 768, "N": 768, "K": 64, "dtype": torch.float16},
    "bf16_b2_1536x2560x512": {"B": 2, "M": 1536, "N": 2560, "K": 512, "dtype": torch.bfloat16},
    "f16_b256_128x128x256": {"B": 256, "M": 128, "N": 128, "K": 256, "dtype": torch.float16},
}
FRESH_CONFIGS = ((128, 64, 32, 4, 3), (64, 128, 64, 8, 3), (32, 128, 64, 4, 4), (128, 128, 32, 8, 3))


def fresh_designs(p):
    return {f"m{bm}n{bn}k{bk}w{w}s{s}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s}
            for bm, bn, bk, w, s in FRESH_CONFIGS if p["M"] % bm == 0 and p["N"] % bn == 0 and p["K"] % bk == 0}  # fmt: skip


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "f16_b96_384x512x128": {"B": 96, "M": 384, "N": 512, "K": 128, "dtype": torch.float16},
    "bf16_b12_1536x1536x768": {"B": 12, "M": 1536, "N": 1536, "K": 768, "dtype": torch.bfloat16},
    "f16_b512_128x256x64": {"B": 512, "M": 128, "N": 256, "K": 64, "dtype": torch.float16},
}
