"""Scatter-add out[idx[t], :] += src[t, :] with fp32 atomics (rows at random, repeating indices): ROWS source rows
per program, BLOCK_D columns at a time, default or relaxed memory order."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, npow2, randint, randn, spec

FAMILY = "scatter_add"
PROBLEMS = {
    "t65536_d256_r4096": {"T": 65536, "D": 256, "R": 4096},
    "t262144_d64_r1024": {"T": 262144, "D": 64, "R": 1024},
    "t32768_d1024_r32768": {"T": 32768, "D": 1024, "R": 32768},
}
SMALL = {"t65536_d256_r4096": {"T": 100, "D": 256, "R": 10}, "t32768_d1024_r32768": {"T": 50, "D": 1024, "R": 40}}


def designs(p):
    out = {}
    for rows in (1, 4, 16):
        for bd in (64, 256, 1024):
            if bd > p["D"] or rows * bd > 8192 or rows * bd < 128:
                continue
            out[f"r{rows}d{bd}"] = {"ROWS": rows, "BD": bd, "warps": 4, "relaxed": False}
            out[f"r{rows}d{bd}_relaxed"] = {"ROWS": rows, "BD": bd, "warps": 4, "relaxed": True}
    return out


@triton.jit
def scatter_add_kernel(idx_ptr, src_ptr, out_ptr, T, D, RELAXED: tl.constexpr, ROWS: tl.constexpr,
                       BD: tl.constexpr):  # fmt: skip
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    rmask = rows < T
    dst = tl.load(idx_ptr + rows, mask=rmask, other=0).to(tl.int64)
    for start in range(0, D, BD):
        cols = start + tl.arange(0, BD)
        m = rmask[:, None] & (cols[None, :] < D)
        v = tl.load(src_ptr + rows[:, None].to(tl.int64) * D + cols[None, :], mask=m, other=0.0)
        if RELAXED:
            tl.atomic_add(out_ptr + dst[:, None] * D + cols[None, :], v, mask=m, sem="relaxed")
        else:
            tl.atomic_add(out_ptr + dst[:, None] * D + cols[None, :], v, mask=m)


def build(p, d, device):
    T, D, R = p["T"], p["D"], p["R"]
    idx = randint(0, R, (T,), device, seed=80)
    src = randn((T, D), torch.float32, device, seed=81)
    out = empty((R, D), torch.float32, device)
    s = spec(scatter_add_kernel, (cdiv(T, d["ROWS"]),), idx, src, out, T, D, RELAXED=d["relaxed"], ROWS=d["ROWS"],
             BD=d["BD"], num_warps=d["warps"])  # fmt: skip

    def ref():
        r = torch.zeros((R, D), dtype=torch.float64, device=src.device)
        return [r.index_add_(0, idx.long(), src.double())]

    return Built([out.zero_, s], [out], ref, 1e-4, f"T={T} D={D} R={R} fp32")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "t100000_d128_r2048": {"T": 100000, "D": 128, "R": 2048},
    "t16384_d768_r50000": {"T": 16384, "D": 768, "R": 50000},
    "t200000_d32_r512": {"T": 200000, "D": 32, "R": 512},
}


def hold_designs(p):
    out = {}
    for rows in (2, 8):
        for bd in (32, 128, 512):
            if bd > npow2(p["D"]) or rows * bd > 8192 or rows * bd < 256:
                continue
            out[f"r{rows}d{bd}"] = {"ROWS": rows, "BD": bd, "warps": 4, "relaxed": False}
            out[f"r{rows}d{bd}_relaxed"] = {"ROWS": rows, "BD": bd, "warps": 4, "relaxed": True}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "t50000_d300_r100": {"T": 50000, "D": 300, "R": 100},
    "t500000_d16_r100000": {"T": 500000, "D": 16, "R": 100000},
    "t20000_d2048_r5000": {"T": 20000, "D": 2048, "R": 5000},
}


def fresh_designs(p):
    out = {}
    for rows, bd, relaxed in ((1, 256, False), (1, 256, True), (4, 64, False), (32, 16, False), (64, 16, True),
                              (16, 128, True)):  # fmt: skip
        if bd <= npow2(p["D"]) and 256 <= rows * bd <= 8192:
            out[f"r{rows}d{bd}{'_relaxed' if relaxed else ''}"] = {"ROWS": rows, "BD": bd, "warps": 4,
                                                                     "relaxed": relaxed}  # fmt: skip
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "t131072_d512_r8192": {"T": 131072, "D": 512, "R": 8192},
    "t400000_d48_r300000": {"T": 400000, "D": 48, "R": 300000},
}
