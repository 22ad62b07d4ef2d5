"""Embedding gather out[t, :] = table[idx[t], :] (bf16 rows at random indices): ROWS tokens per program,
BLOCK_D columns at a time."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, npow2, randint, randn, spec

FAMILY = "embedding"
PROBLEMS = {
    "t65536_d1024_v50k": {"T": 65536, "D": 1024, "V": 50000},
    "t16384_d4096_v32k": {"T": 16384, "D": 4096, "V": 32000},
    "t262144_d128_v1m": {"T": 262144, "D": 128, "V": 1 << 20},
}
SMALL = {"t16384_d4096_v32k": {"T": 40, "D": 4096, "V": 100}, "t262144_d128_v1m": {"T": 70, "D": 128, "V": 1000}}


def designs(p):
    out = {}
    for rows in (1, 4, 16):
        for bd in (128, 512, 1024, 4096):
            if bd > p["D"] or rows * bd > 16384 or rows * bd < 256:
                continue
            for warps in (4,):
                if rows * bd // (warps * 32) >= 2:
                    out[f"r{rows}d{bd}w{warps}"] = {"ROWS": rows, "BD": bd, "warps": warps}
    return out


@triton.jit
def embedding_kernel(idx_ptr, table_ptr, out_ptr, T, D, ROWS: tl.constexpr, BD: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    rmask = rows < T
    idx = tl.load(idx_ptr + rows, mask=rmask, other=0).to(tl.int64)
    for start in range(0, D, BD):
        cols = start + tl.arange(0, BD)
        m = rmask[:, None] & (cols[None, :] < D)
        v = tl.load(table_ptr + idx[:, None] * D + cols[None, :], mask=m)
        tl.store(out_ptr + rows[:, None].to(tl.int64) * D + cols[None, :], v, mask=m)


def build(p, d, device):
    T, D, V = p["T"], p["D"], p["V"]
    idx = randint(0, V, (T,), device, seed=60)
    table = randn((V, D), torch.bfloat16, device, seed=61)
    out = empty((T, D), torch.bfloat16, device)
    s = spec(embedding_kernel, (cdiv(T, d["ROWS"]),), idx, table, out, T, D, ROWS=d["ROWS"], BD=d["BD"],
             num_warps=d["warps"])  # fmt: skip
    return Built([s], [out], lambda: [table[idx.long()]], 0.0, f"T={T} D={D} V={V} bf16")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "t40000_d768_v30k": {"T": 40000, "D": 768, "V": 30522},
    "t8192_d2560_v128k": {"T": 8192, "D": 2560, "V": 128256},
    "t131072_d320_v250k": {"T": 131072, "D": 320, "V": 250000},
}


def hold_designs(p):
    out = {}
    for rows, bd, warps in ((2, 256, 4), (2, 1024, 4), (8, 256, 4), (8, 1024, 4), (2, 1024, 8), (1, 2048, 8)):
        if bd <= npow2(p["D"]) and 512 <= rows * bd <= 16384:
            out[f"r{rows}d{bd}w{warps}"] = {"ROWS": rows, "BD": bd, "warps": warps}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "t5000_d4096_v152k": {"T": 5000, "D": 4096, "V": 151936},
    "t300000_d64_v10k": {"T": 300000, "D": 64, "V": 10000},
    "t12345_d1536_v65k": {"T": 12345, "D": 1536, "V": 65536},
}


def fresh_designs(p):
    out = {}
    for rows, bd, warps in ((1, 256, 2), (4, 2048, 8), (32, 64, 4), (128, 64, 8), (16, 64, 2)):
        if bd <= npow2(p["D"]) and 256 <= rows * bd <= 16384:
            out[f"r{rows}d{bd}w{warps}"] = {"ROWS": rows, "BD": bd, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "t3000_d5120_v100k": {"T": 3000, "D": 5120, "V": 100000},
    "t100000_d256_v500k": {"T": 100000, "D": 256, "V": 500000},
}
