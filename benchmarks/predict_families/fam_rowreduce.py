"""Row reduction (sum of squares and max of each row): ROWS rows per program, a loop over BLOCK-wide chunks."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, npow2, randn, spec

FAMILY = "rowreduce"
PROBLEMS = {
    "f32_16384x4096": {"M": 16384, "N": 4096, "dtype": torch.float32},
    "bf16_4096x32768": {"M": 4096, "N": 32768, "dtype": torch.bfloat16},
    "f32_262144x128": {"M": 262144, "N": 128, "dtype": torch.float32},
}
SMALL = {
    "f32_16384x4096": {"M": 20, "N": 4096, "dtype": torch.float32},
    "f32_262144x128": {"M": 33, "N": 128, "dtype": torch.float32},
}


def designs(p):
    out = {}
    for rows in (1, 4, 16):
        for block in (128, 512, 2048, 8192):
            if block > npow2(p["N"]) or rows * block > 16384 or rows * block < 512:
                continue
            for warps in (4,):
                out[f"r{rows}b{block}w{warps}"] = {"ROWS": rows, "BLOCK": block, "warps": warps}
    return out


@triton.jit
def rowreduce_kernel(x_ptr, ss_ptr, mx_ptr, M, N, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    acc = tl.zeros((ROWS, BLOCK), tl.float32)
    mx = tl.full((ROWS, BLOCK), -float("inf"), tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None].to(tl.int64) * N + cols[None, :], mask=m, other=0.0).to(tl.float32)
        acc += x * x
        mx = tl.maximum(mx, tl.where(m, x, -float("inf")))
    tl.store(ss_ptr + rows, tl.sum(acc, axis=1), mask=rows < M)
    tl.store(mx_ptr + rows, tl.max(mx, axis=1), mask=rows < M)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=16)
    ss = empty((M,), torch.float32, device)
    mx = empty((M,), torch.float32, device)
    s = spec(rowreduce_kernel, (cdiv(M, d["ROWS"]),), x, ss, mx, M, N, ROWS=d["ROWS"], BLOCK=d["BLOCK"],
             num_warps=d["warps"])  # fmt: skip
    return Built([s], [ss, mx], lambda: [(x.float() ** 2).sum(dim=1), x.float().amax(dim=1)], 1e-4, f"{M}x{N} {dt}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_30000x3000": {"M": 30000, "N": 3000, "dtype": torch.float32},
    "bf16_1000x100000": {"M": 1000, "N": 100000, "dtype": torch.bfloat16},
    "f16_524288x96": {"M": 524288, "N": 96, "dtype": torch.float16},
}


def hold_designs(p):
    out = {}
    for rows, block, warps in ((2, 1024, 4), (2, 4096, 4), (8, 128, 4), (8, 1024, 4), (32, 128, 4), (8, 1024, 8),
                               (32, 128, 8)):  # fmt: skip
        if block <= npow2(p["N"]) and 512 <= rows * block <= 16384:
            out[f"r{rows}b{block}w{warps}"] = {"ROWS": rows, "BLOCK": block, "warps": warps}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_100x300000": {"M": 100, "N": 300000, "dtype": torch.float32},
    "bf16_80000x700": {"M": 80000, "N": 700, "dtype": torch.bfloat16},
    "f16_2000000x16": {"M": 2_000_000, "N": 16, "dtype": torch.float16},
}


def fresh_designs(p):
    out = {}
    for rows, block, warps in ((4, 256, 2), (16, 512, 8), (1, 8192, 8), (256, 16, 4), (64, 32, 2), (1024, 16, 8),
                               (32, 16, 1)):  # fmt: skip
        # a block under 1/64 of a long row is a loop no one would write: left out
        if block <= npow2(p["N"]) and 512 <= rows * block <= 16384 and block * 64 >= min(p["N"], 16384):
            out[f"r{rows}b{block}w{warps}"] = {"ROWS": rows, "BLOCK": block, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_8192x7168": {"M": 8192, "N": 7168, "dtype": torch.bfloat16},
    "f32_50000x200": {"M": 50000, "N": 200, "dtype": torch.float32},
}
