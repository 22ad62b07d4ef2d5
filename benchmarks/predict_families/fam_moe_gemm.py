"""Grouped (mixture-of-experts) GEMM: tokens sorted by expert, X [T, K], W [E, K, N], Y[rows of e] = X[rows of e] @
W[e], fp32 accumulate; a program per (M tile of one expert, N tile) from a tile map built on the host (an expert's
rows split into BM tiles, the last one masked). Expert sizes are fixed uneven numbers (``expert_counts``), no random
stream, so the CPU's compile sees the grid the GPU runs. A fresh-corpus-only family (issue 31)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randn, spec

FAMILY = "moe_gemm"
PROBLEMS = {}
FRESH_PROBLEMS = {
    "f16_e8_t8192_k2048_n1408": {"E": 8, "T": 8192, "K": 2048, "N": 1408, "dtype": torch.float16},
    "bf16_e64_t4096_k1024_n512": {"E": 64, "T": 4096, "K": 1024, "N": 512, "dtype": torch.bfloat16},
    "f16_e16_t2000_k4096_n1024": {"E": 16, "T": 2000, "K": 4096, "N": 1024, "dtype": torch.float16},
}
CONFIGS = ((64, 128, 64, 4, 3), (128, 128, 64, 8, 3), (64, 64, 64, 4, 4), (16, 128, 128, 4, 3))  # BM BN BK warps stages


def fresh_designs(p):
    return {f"m{bm}n{bn}k{bk}w{w}s{s}": {"BM": bm, "BN": bn, "BK": bk, "warps": w, "stages": s}
            for bm, bn, bk, w, s in CONFIGS if p["N"] % bn == 0 and p["K"] % bk == 0}  # fmt: skip


def shrink(p):
    return dict(p, E=min(p["E"], 6), T=100, K=256, N=256, dtype=torch.float16)  # E 6: one expert empty


def expert_counts(E: int, T: int) -> list[int]:
    """Uneven tokens per expert summing to T (weights 1..11 in a fixed order; one expert may get none)."""
    weights = [0 if e == E - 1 and E > 4 else 1 + (e * 7) % 11 for e in range(E)]
    counts = [T * w // sum(weights) for w in weights]
    counts[0] += T - sum(counts)
    return counts


def tile_map(counts: list[int], bm: int) -> tuple[list[int], list[int], list[int]]:
    """(expert, first row, end row) of every BM tile of every expert's rows."""
    experts, starts, ends, row = [], [], [], 0
    for e, n in enumerate(counts):
        for t in range(cdiv(n, bm)):
            experts.append(e)
            starts.append(row + t * bm)
            ends.append(row + n)
        row += n
    return experts, starts, ends


@triton.jit
def moe_gemm_kernel(x_ptr, w_ptr, y_ptr, te_ptr, ts_ptr, tend_ptr, N, K, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr):  # fmt: skip
    tile = tl.program_id(0)
    e = tl.load(te_ptr + tile).to(tl.int64)
    r0 = tl.load(ts_ptr + tile)
    r_end = tl.load(tend_ptr + tile)
    rm = r0 + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    mmask = rm[:, None] < r_end
    a_ptrs = x_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    b_ptrs = w_ptr + e * K * N + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs, mask=mmask, other=0.0), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(y_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], acc.to(y_ptr.dtype.element_ty), mask=mmask)


def build(p, d, device):
    E, T, K, N, dt = p["E"], p["T"], p["K"], p["N"], p["dtype"]
    counts = expert_counts(E, T)
    experts, starts, ends = tile_map(counts, d["BM"])
    on = None if str(device) == "cpu" else device
    te, ts, tend = (torch.tensor(v, dtype=torch.int32, device=on) for v in (experts, starts, ends))
    x = randn((T, K), dt, device, seed=151)
    w = randn((E, K, N), dt, device, seed=152, scale=K**-0.5)
    y = empty((T, N), dt, device)
    s = spec(moe_gemm_kernel, (len(experts), N // d["BN"]), x, w, y, te, ts, tend, N, K, BM=d["BM"], BN=d["BN"],
             BK=d["BK"], num_warps=d["warps"], num_stages=d["stages"])  # fmt: skip

    def ref():
        outs, row = [], 0
        for e, n in enumerate(counts):
            outs.append(x[row : row + n].float() @ w[e].float())
            row += n
        return [torch.cat(outs)]

    return Built([s], [y], ref, 1e-2, f"E={E} T={T} K={K} N={N} {dt}, {len(experts)} tiles (expert sizes fixed)")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "bf16_e32_t8192_k7168_n512": {"E": 32, "T": 8192, "K": 7168, "N": 512, "dtype": torch.bfloat16},
    "f16_e8_t1024_k4096_n11008": {"E": 8, "T": 1024, "K": 4096, "N": 11008, "dtype": torch.float16},
    "bf16_e128_t2048_k2048_n768": {"E": 128, "T": 2048, "K": 2048, "N": 768, "dtype": torch.bfloat16},
}
