"""2-D transpose out[j, i] = x[i, j]: tiled (a BM x BN tile loaded and stored transposed) and naive (a run of one
input row written down one output column: strided stores)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randn, spec

FAMILY = "transpose"
PROBLEMS = {
    "f32_8192sq": {"M": 8192, "N": 8192, "dtype": torch.float32},
    "bf16_4096x16384": {"M": 4096, "N": 16384, "dtype": torch.bfloat16},
    "f32_2048x1024": {"M": 2048, "N": 1024, "dtype": torch.float32},
}
SMALL = {
    "f32_8192sq": {"M": 96, "N": 160, "dtype": torch.float32},
    "bf16_4096x16384": {"M": 40, "N": 72, "dtype": torch.bfloat16},
}


def designs(p):
    out = {}
    for bm, bn in ((32, 32), (64, 64), (32, 128), (128, 32)):
        for warps in (4, 8):
            out[f"tile{bm}x{bn}w{warps}"] = {"kind": "tiled", "BM": bm, "BN": bn, "warps": warps}
    for block in (256, 1024):
        out[f"naive{block}"] = {"kind": "naive", "BLOCK": block, "warps": 4}
    return out


@triton.jit
def transpose_tiled_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], mask=mask)
    tl.store(y_ptr + rn[:, None].to(tl.int64) * M + rm[None, :], tl.trans(tile), mask=tl.trans(mask))


@triton.jit
def transpose_naive_kernel(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    v = tl.load(x_ptr + row.to(tl.int64) * N + cols, mask=mask)
    tl.store(y_ptr + cols.to(tl.int64) * M + row, v, mask=mask)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=5)
    y = empty((N, M), dt, device)
    if d["kind"] == "tiled":
        grid = (cdiv(M, d["BM"]), cdiv(N, d["BN"]))
        s = spec(transpose_tiled_kernel, grid, x, y, M, N, BM=d["BM"], BN=d["BN"], num_warps=d["warps"])
    else:
        s = spec(transpose_naive_kernel, (M, cdiv(N, d["BLOCK"])), x, y, M, N, BLOCK=d["BLOCK"], num_warps=d["warps"])
    return Built([s], [y], lambda: [x.t()], 0.0, f"{M}x{N} {dt}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_3000x5000": {"M": 3000, "N": 5000, "dtype": torch.float32},
    "f16_16384x2048": {"M": 16384, "N": 2048, "dtype": torch.float16},
    "bf16_1536x24576": {"M": 1536, "N": 24576, "dtype": torch.bfloat16},
}


def hold_designs(p):
    out = {}
    for bm, bn, warps in ((64, 32, 4), (32, 64, 8), (128, 64, 8), (16, 256, 4), (64, 128, 4)):
        out[f"tile{bm}x{bn}w{warps}"] = {"kind": "tiled", "BM": bm, "BN": bn, "warps": warps}
    for block in (512, 2048):
        out[f"naive{block}"] = {"kind": "naive", "BLOCK": block, "warps": 4}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_1000x7000": {"M": 1000, "N": 7000, "dtype": torch.float32},
    "f16_257x65536": {"M": 257, "N": 65536, "dtype": torch.float16},
    "bf16_12000x12000": {"M": 12000, "N": 12000, "dtype": torch.bfloat16},
}


def fresh_designs(p):
    out = {}
    for bm, bn, warps in ((16, 16, 1), (128, 128, 8), (256, 32, 8), (8, 128, 2)):
        out[f"tile{bm}x{bn}w{warps}"] = {"kind": "tiled", "BM": bm, "BN": bn, "warps": warps}
    for block, warps in ((128, 1), (4096, 8)):
        out[f"naive{block}w{warps}"] = {"kind": "naive", "BLOCK": block, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_7168x2560": {"M": 7168, "N": 2560, "dtype": torch.bfloat16},
    "f16_96x50000": {"M": 96, "N": 50000, "dtype": torch.float16},
}
