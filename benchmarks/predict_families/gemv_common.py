"""Skinny GEMM / GEMV y[M, N] = (x[M, K] @ W[N, K]^T) (* scale[N] when W is int8, dequantised in the loop), shared
by fam_gemv (bf16 weights) and fam_w8_gemv (int8 weight-only): no split, split-K with fp32 atomics, or split-K in
two phases (partials [SPLIT, M, N], then a reduction kernel)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randint, randn, spec


def gemv_designs(p):
    out = {}
    for bn, bk, warps in ((32, 256, 4), (64, 256, 4), (128, 64, 4), (16, 512, 4)):
        out[f"n{bn}k{bk}w{warps}"] = {"BN": bn, "BK": bk, "warps": warps, "SPLIT": 1, "kind": "plain"}
    for split in (2, 4, 8):
        out[f"atomic{split}_n64k256"] = {"BN": 64, "BK": 256, "warps": 4, "SPLIT": split, "kind": "atomic"}
        out[f"twophase{split}_n64k256"] = {"BN": 64, "BK": 256, "warps": 4, "SPLIT": split, "kind": "twophase"}
    return out


@triton.jit
def gemv_kernel(x_ptr, w_ptr, s_ptr, y_ptr, M, N, K, k_per_split, QUANT: tl.constexpr, MODE: tl.constexpr,
                MP: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    """MODE 0: y = result; 1: atomic add into y; 2: partials y[split, M, N]."""
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    rn = pid_n * BN + tl.arange(0, BN)
    rm = tl.arange(0, MP)
    k0 = split * k_per_split
    if MP == 1:
        acc1 = tl.zeros((BN,), tl.float32)
    else:
        acc = tl.zeros((MP, BN), tl.float32)
    for start in range(k0, k0 + k_per_split, BK):
        rk = start + tl.arange(0, BK)
        w = tl.load(w_ptr + rn[:, None].to(tl.int64) * K + rk[None, :], mask=rn[:, None] < N, other=0)
        if MP == 1:
            x = tl.load(x_ptr + rk).to(tl.float32)
            acc1 += tl.sum(w.to(tl.float32) * x[None, :], axis=1)
        else:
            x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.0)
            acc = tl.dot(x, tl.trans(w.to(tl.bfloat16)), acc)
    if MP == 1:
        res = acc1[None, :]
    else:
        res = acc
    if QUANT:
        res = res * tl.load(s_ptr + rn, mask=rn < N, other=0.0)[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    if MODE == 1:
        tl.atomic_add(y_ptr + offs, res, mask=mask)
    elif MODE == 2:
        tl.store(y_ptr + split * M * N + offs, res, mask=mask)
    else:
        tl.store(y_ptr + offs, res, mask=mask)


@triton.jit
def split_reduce_kernel(p_ptr, y_ptr, MN, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(SPLIT):
        acc += tl.load(p_ptr + s * MN + offs, mask=offs < MN, other=0.0)
    tl.store(y_ptr + offs, acc, mask=offs < MN)


def gemv_build(p, d, device, quant: bool):
    M, N, K = p["M"], p["N"], p["K"]
    x = randn((M, K), torch.bfloat16, device, seed=30)
    if quant:
        w = randint(-127, 128, (N, K), device, seed=31, dtype=torch.int8)
        scale = randn((N,), torch.float32, device, seed=32, scale=0.01).abs() + 1e-3
    else:
        w = randn((N, K), torch.bfloat16, device, seed=31)
        scale = x  # unused (QUANT=False)
    y = empty((M, N), torch.float32, device)
    split, kind = d["SPLIT"], d["kind"]
    kps = K // split
    mp = 1 if M == 1 else max(16, triton.next_power_of_2(M))
    grid = (cdiv(N, d["BN"]), split)
    common = {"QUANT": quant, "MP": mp, "BN": d["BN"], "BK": d["BK"], "num_warps": d["warps"]}
    if kind == "plain":
        launches = [spec(gemv_kernel, grid, x, w, scale, y, M, N, K, kps, MODE=0, **common)]
    elif kind == "atomic":
        launches = [y.zero_, spec(gemv_kernel, grid, x, w, scale, y, M, N, K, kps, MODE=1, **common)]
    else:
        part = empty((split, M, N), torch.float32, device)
        launches = [
            spec(gemv_kernel, grid, x, w, scale, part, M, N, K, kps, MODE=2, **common),
            spec(split_reduce_kernel, (cdiv(M * N, 1024),), part, y, M * N, SPLIT=split, BLOCK=1024, num_warps=4),
        ]

    def ref():
        r = x.float() @ w.float().t()
        return [r * scale[None, :] if quant else r]

    what = "int8 W, per-row scale" if quant else "bf16 W"
    return Built(launches, [y], ref, 1e-3, f"M={M} N={N} K={K} {what}, split {split} ({kind})")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------


def gemv_hold_designs(p):
    """The second corpus's designs: other tiles and splits, each only where K splits into whole BK steps."""
    out = {}
    for bn, bk, warps in ((32, 128, 4), (64, 512, 8), (256, 64, 8)):
        out[f"n{bn}k{bk}w{warps}"] = {"BN": bn, "BK": bk, "warps": warps, "SPLIT": 1, "kind": "plain"}
    for kind, split, bn, bk in (("atomic", 2, 32, 512), ("twophase", 2, 128, 128), ("atomic", 4, 128, 128)):
        if p["K"] % (split * bk) == 0:
            out[f"{kind}{split}_n{bn}k{bk}"] = {"BN": bn, "BK": bk, "warps": 4, "SPLIT": split, "kind": kind}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model


def gemv_fresh_designs(p):
    """The third corpus's designs: tiles and splits neither other corpus used, each where K splits into whole BK
    steps."""
    out = {}
    for bn, bk, warps in ((8, 1024, 4), (128, 128, 8), (32, 512, 8)):
        if p["K"] % bk == 0:
            out[f"n{bn}k{bk}w{warps}"] = {"BN": bn, "BK": bk, "warps": warps, "SPLIT": 1, "kind": "plain"}
    for kind, split, bn, bk in (("atomic", 8, 32, 256), ("twophase", 4, 64, 128)):
        if p["K"] % (split * bk) == 0:
            out[f"{kind}{split}_n{bn}k{bk}"] = {"BN": bn, "BK": bk, "warps": 4, "SPLIT": split, "kind": kind}
    return out
