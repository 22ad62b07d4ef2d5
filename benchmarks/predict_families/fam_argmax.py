"""Row argmax (first index of the largest value): the whole row at once (tl.argmax), or a loop over chunks keeping
the best value and index."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, npow2, randn, spec

FAMILY = "argmax"
PROBLEMS = {
    "f32_8192x4096": {"M": 8192, "N": 4096},
    "f32_1024x65536": {"M": 1024, "N": 65536},
    "f32_131072x256": {"M": 131072, "N": 256},
}
SMALL = {"f32_8192x4096": {"M": 3, "N": 4096}, "f32_1024x65536": {"M": 2, "N": 65536}}


def designs(p):
    out = {}
    full = npow2(p["N"])
    if full <= 8192:
        for warps in (2, 4, 8, 16):
            if 2 <= full // (warps * 32) <= 64:
                out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk in (256, 1024, 4096):
        if chunk < full:
            for warps in (4, 8):
                out[f"chunk{chunk}w{warps}"] = {"kind": "chunk", "BLOCK": chunk, "warps": warps}
    return out


@triton.jit
def argmax_row_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0).to(tl.int32))


@triton.jit
def argmax_chunk_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    best = tl.full((BLOCK,), -float("inf"), tl.float32)
    idx = tl.zeros((BLOCK,), tl.int32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
        better = x > best
        best = tl.where(better, x, best)
        idx = tl.where(better, cols, idx)
    top = tl.max(best, axis=0)
    cand = tl.where(best == top, idx, 2147483647)
    tl.store(out_ptr + row, tl.min(cand, axis=0))


def build(p, d, device):
    M, N = p["M"], p["N"]
    x = randn((M, N), torch.float32, device, seed=18)
    out = empty((M,), torch.int32, device)
    kernel = argmax_row_kernel if d["kind"] == "row" else argmax_chunk_kernel
    s = spec(kernel, (M,), x, out, N, BLOCK=d["BLOCK"], num_warps=d["warps"])
    return Built([s], [out], lambda: [x.argmax(dim=1).to(torch.int32)], 0.0,
                 f"{M}x{N} fp32, {cdiv(N, d['BLOCK'])} chunk(s)")  # fmt: skip


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f32_3000x5000": {"M": 3000, "N": 5000},
    "f32_20000x1536": {"M": 20000, "N": 1536},
    "f32_512x30000": {"M": 512, "N": 30000},
}


def hold_designs(p):
    out = {}
    full = npow2(p["N"])
    if full <= 8192:
        for warps in (4, 8):
            if 2 <= full // (warps * 32) <= 64:
                out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk in (512, 2048):
        if chunk < full:
            for warps in (2, 4):
                out[f"chunk{chunk}w{warps}"] = {"kind": "chunk", "BLOCK": chunk, "warps": warps}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_7000x700": {"M": 7000, "N": 700},
    "f32_96x200000": {"M": 96, "N": 200000},
}


def fresh_designs(p):
    out = {}
    full = npow2(p["N"])
    if full <= 8192:
        for warps in (1, 2):
            if 2 <= full // (warps * 32) <= 64:
                out[f"row_w{warps}"] = {"kind": "row", "BLOCK": full, "warps": warps}
    for chunk, warps in ((128, 2), (1024, 16), (8192, 8)):
        if chunk < full:
            out[f"chunk{chunk}w{warps}"] = {"kind": "chunk", "BLOCK": chunk, "warps": warps}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "f32_256x151936": {"M": 256, "N": 151936},
    "f32_32000x2560": {"M": 32000, "N": 2560},
}
