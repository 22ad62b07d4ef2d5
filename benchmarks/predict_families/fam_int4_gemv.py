"""Weight-only int4 GEMV / skinny GEMM y[M, N] = x[M, K] @ dequant(W)^T: W packed two 4-bit values a byte ([N, K/2]
uint8, element 2i in the low nibble), zero point 8, an fp16 scale per GROUP of K per output row; fp16 activations,
fp32 accumulate and output. A program per (BN rows, activation row, K split), the nibbles unpacked in registers;
split-K adds into y with fp32 atomics. A fresh-corpus-only family (issue 31)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randint, randn, spec

FAMILY = "int4_gemv"
PROBLEMS = {}
GROUP = 128
FRESH_PROBLEMS = {
    "m1_4096x4096": {"M": 1, "N": 4096, "K": 4096},
    "m1_14336x4096": {"M": 1, "N": 14336, "K": 4096},
    "m4_5120x13824": {"M": 4, "N": 5120, "K": 13824},
    "m1_1000x5120": {"M": 1, "N": 1000, "K": 5120},
}


def fresh_designs(p):
    out = {}
    for bn, bk, warps, split in ((32, 256, 4, 1), (64, 128, 4, 1), (16, 512, 8, 1), (64, 256, 4, 4)):
        if p["K"] % (split * bk) == 0:
            name = f"n{bn}k{bk}w{warps}" if split == 1 else f"atomic{split}_n{bn}k{bk}w{warps}"
            out[name] = {"BN": bn, "BK": bk, "warps": warps, "SPLIT": split}
    return out


def shrink(p):
    return dict(p, N=70, K=1024)


@triton.jit
def int4_gemv_kernel(x_ptr, w_ptr, s_ptr, y_ptr, N, K, k_per_split, GROUP: tl.constexpr, ATOMIC: tl.constexpr,
                     BN: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    rn = tl.program_id(0) * BN + tl.arange(0, BN)
    row = tl.program_id(1).to(tl.int64)
    k0 = tl.program_id(2) * k_per_split
    nmask = rn[:, None] < N
    j = tl.arange(0, BK // 2)
    acc = tl.zeros((BN,), tl.float32)
    for start in range(k0, k0 + k_per_split, BK):
        packed = tl.load(w_ptr + rn[:, None].to(tl.int64) * (K // 2) + start // 2 + j[None, :], mask=nmask, other=0)
        packed = packed.to(tl.int32)
        lo = (packed & 15).to(tl.float32) - 8.0
        hi = (packed >> 4).to(tl.float32) - 8.0
        grp = (start + 2 * j) // GROUP
        sc = tl.load(s_ptr + rn[:, None].to(tl.int64) * (K // GROUP) + grp[None, :], mask=nmask, other=0.0)
        xe = tl.load(x_ptr + row * K + start + 2 * j).to(tl.float32)
        xo = tl.load(x_ptr + row * K + start + 2 * j + 1).to(tl.float32)
        acc += tl.sum(sc.to(tl.float32) * (lo * xe[None, :] + hi * xo[None, :]), axis=1)
    if ATOMIC:
        tl.atomic_add(y_ptr + row * N + rn, acc, mask=rn < N)
    else:
        tl.store(y_ptr + row * N + rn, acc, mask=rn < N)


def build(p, d, device):
    M, N, K = p["M"], p["N"], p["K"]
    x = randn((M, K), torch.float16, device, seed=141)
    w = randint(0, 256, (N, K // 2), device, seed=142, dtype=torch.uint8)
    scale = (randn((N, K // GROUP), torch.float32, device, seed=143, scale=0.02).abs() + 1e-3).to(torch.float16)
    y = empty((M, N), torch.float32, device)
    split = d["SPLIT"]
    grid = (cdiv(N, d["BN"]), M, split)
    s = spec(int4_gemv_kernel, grid, x, w, scale, y, N, K, K // split, GROUP=GROUP, ATOMIC=split > 1, BN=d["BN"],
             BK=d["BK"], num_warps=d["warps"])  # fmt: skip
    launches = [y.zero_, s] if split > 1 else [s]

    def ref():
        q = w.to(torch.int32)
        deq = torch.stack([(q & 15) - 8, (q >> 4) - 8], dim=2).reshape(N, K).float()
        deq = deq * scale.float().repeat_interleave(GROUP, dim=1)
        return [x.float() @ deq.t()]

    return Built(launches, [y], ref, 1e-3, f"M={M} N={N} K={K} int4 W (group {GROUP}), split {split}")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "m1_18432x7168": {"M": 1, "N": 18432, "K": 7168},
    "m8_2560x10240": {"M": 8, "N": 2560, "K": 10240},
    "m1_896x1536": {"M": 1, "N": 896, "K": 1536},
}
