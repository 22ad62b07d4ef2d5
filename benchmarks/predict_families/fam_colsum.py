"""Column sum of a row-major [M, N]: each program owns BLOCK_N columns and walks down the rows (BLOCK_M at a
time), or the rows are split SPLIT ways and the partial column sums added with atomics."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randn, spec

FAMILY = "colsum"
PROBLEMS = {
    "f32_16384x4096": {"M": 16384, "N": 4096, "dtype": torch.float32},
    "bf16_8192x8192": {"M": 8192, "N": 8192, "dtype": torch.bfloat16},
    "f32_65536x512": {"M": 65536, "N": 512, "dtype": torch.float32},
}
SMALL = {"f32_16384x4096": {"M": 200, "N": 300, "dtype": torch.float32}}


def designs(p):
    out = {}
    for bm, bn, warps in ((8, 128, 4), (32, 64, 4), (16, 256, 4), (64, 32, 4), (32, 128, 8), (4, 512, 4)):
        out[f"m{bm}n{bn}w{warps}"] = {"BM": bm, "BN": bn, "warps": warps, "SPLIT": 1}
    for split in (4, 16, 64):
        out[f"split{split}_m32n128"] = {"BM": 32, "BN": 128, "warps": 4, "SPLIT": split}
    return out


@triton.jit
def colsum_kernel(x_ptr, y_ptr, M, N, rows_per_split, ATOMIC: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    r0 = tl.program_id(1) * rows_per_split
    r_end = tl.minimum(r0 + rows_per_split, M)
    acc = tl.zeros((BM, BN), tl.float32)
    for start in range(r0, r_end, BM):
        rows = start + tl.arange(0, BM)
        m = (rows[:, None] < r_end) & (cols[None, :] < N)
        acc += tl.load(x_ptr + rows[:, None].to(tl.int64) * N + cols[None, :], mask=m, other=0.0).to(tl.float32)
    total = tl.sum(acc, axis=0)
    if ATOMIC:
        tl.atomic_add(y_ptr + cols, total, mask=cols < N)
    else:
        tl.store(y_ptr + cols, total, mask=cols < N)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=15)
    y = empty((N,), torch.float32, device)
    split = d["SPLIT"]
    rows = cdiv(M, split)
    s = spec(colsum_kernel, (cdiv(N, d["BN"]), split), x, y, M, N, rows, ATOMIC=split > 1, BM=d["BM"], BN=d["BN"],
             num_warps=d["warps"])  # fmt: skip
    launches = [y.zero_, s] if split > 1 else [s]
    return Built(launches, [y], lambda: [x.float().sum(dim=0)], 1e-4, f"{M}x{N} {dt}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_6144x3000": {"M": 6144, "N": 3000, "dtype": torch.float32},
    "f16_4096x12288": {"M": 4096, "N": 12288, "dtype": torch.float16},
    "bf16_16384x768": {"M": 16384, "N": 768, "dtype": torch.bfloat16},
}


def hold_designs(p):
    out = {}
    for bm, bn, warps in ((16, 128, 4), (64, 64, 8), (8, 256, 8), (128, 32, 4)):
        out[f"m{bm}n{bn}w{warps}"] = {"BM": bm, "BN": bn, "warps": warps, "SPLIT": 1}
    for split, bm, bn in ((8, 32, 128), (32, 32, 128), (8, 16, 256)):
        out[f"split{split}_m{bm}n{bn}"] = {"BM": bm, "BN": bn, "warps": 4, "SPLIT": split}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_1000x100000": {"M": 1000, "N": 100000, "dtype": torch.float32},
    "f16_100000x200": {"M": 100000, "N": 200, "dtype": torch.float16},
    "bf16_3000x7000": {"M": 3000, "N": 7000, "dtype": torch.bfloat16},
}


def fresh_designs(p):
    out = {}
    for bm, bn, warps in ((4, 256, 2), (16, 64, 2), (64, 128, 8)):
        out[f"m{bm}n{bn}w{warps}"] = {"BM": bm, "BN": bn, "warps": warps, "SPLIT": 1}
    for split, bm, bn in ((2, 64, 64), (128, 8, 128)):
        out[f"split{split}_m{bm}n{bn}"] = {"BM": bm, "BN": bn, "warps": 4, "SPLIT": split}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_32768x2560": {"M": 32768, "N": 2560, "dtype": torch.bfloat16},
    "f32_512x1000": {"M": 512, "N": 1000, "dtype": torch.float32},
}
