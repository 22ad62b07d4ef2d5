"""Histograms of skewed data with global atomics (the fourth corpus, ``skew``; issue 31): every element adds to the
bin its index names, in global memory. Written after the speed model learned the example's skew
(LaunchArgument.hottest) and the H200's lanes rates (benchmarks/atomic_sweep.py --only lanes) and frozen before
any of it ran on a GPU: the distributions, bin counts and kernels are new to it.

Unlike the other families, the indices are real on the CPU too (``compile_only`` builds empty tensors): they are
drawn on the CPU from a seeded generator and copied to the device, so the predictor sees the data the GPU runs.
Distributions: ``uniform``; ``zipf`` (bin k with weight 1 / (k + 1)); ``hot50`` (half of them bin 0); ``hot2``
(45 % bin 0, 45 % bin 100, so two lines); ``sorted`` (uniform, in ascending order: a warp's lanes share a bin,
which the model's random-order assumption does not cover).
"""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, spec

FAMILY = "hist_skew"
PROBLEMS: dict = {}  # the skew corpus only
SKEW_PROBLEMS = {
    f"n{n_name}_b{bins}_{dist}": {"n": n, "bins": bins, "dist": dist}
    for n_name, n in (("4m", 1 << 22), ("1m", 1 << 20))
    for bins in (64, 1000, 16384)
    for dist in ("uniform", "zipf", "hot50", "hot2", "sorted")
}
SMALL = {"n4m_b64_hot50": {"n": 8192, "bins": 64, "dist": "hot50"}}


def skew_designs(p):
    return {
        "i32b1024w4": {"kind": "count", "BLOCK": 1024, "warps": 4, "relaxed": False},
        "i32b4096w8": {"kind": "count", "BLOCK": 4096, "warps": 8, "relaxed": False},
        "i32b2048w4_relaxed": {"kind": "count", "BLOCK": 2048, "warps": 4, "relaxed": True},
        "f32w_b1024w4": {"kind": "weighted", "BLOCK": 1024, "warps": 4, "relaxed": False},
    }


@triton.jit
def count_kernel(idx_ptr, bins_ptr, n, RELAXED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    b = tl.load(idx_ptr + offs, mask=keep, other=0)
    if RELAXED:
        tl.atomic_add(bins_ptr + b, tl.full((BLOCK,), 1, tl.int32), mask=keep, sem="relaxed")
    else:
        tl.atomic_add(bins_ptr + b, tl.full((BLOCK,), 1, tl.int32), mask=keep)


@triton.jit
def weighted_kernel(idx_ptr, w_ptr, bins_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    b = tl.load(idx_ptr + offs, mask=keep, other=0)
    tl.atomic_add(bins_ptr + b, tl.load(w_ptr + offs, mask=keep, other=0.0), mask=keep)


def indices(n: int, bins: int, dist: str, seed: int = 90) -> torch.Tensor:
    """``n`` int32 bin indices in [0, bins) drawn on the CPU (the same on every machine)."""
    g = torch.Generator().manual_seed(seed)
    uniform = torch.randint(0, bins, (n,), generator=g)
    if dist == "zipf":
        weights = 1.0 / torch.arange(1, bins + 1, dtype=torch.float64)
        out = torch.multinomial(weights, n, replacement=True, generator=g)
    elif dist == "hot50":
        out = torch.where(torch.rand(n, generator=g) < 0.5, torch.zeros_like(uniform), uniform)
    elif dist == "hot2":
        r = torch.rand(n, generator=g)
        out = torch.where(
            r < 0.45, torch.zeros_like(uniform), torch.where(r < 0.9, torch.full_like(uniform, 100 % bins), uniform)
        )
    elif dist == "sorted":
        out = uniform.sort().values
    else:
        out = uniform
    return out.to(torch.int32)


def build(p, d, device):
    n, bins = p["n"], p["bins"]
    idx = indices(n, bins, p["dist"]).to(device)
    grid = (cdiv(n, d["BLOCK"]),)
    if d["kind"] == "weighted":
        w = (torch.rand(n, generator=torch.Generator().manual_seed(91)) + 0.5).to(device)
        out = empty((bins,), torch.float32, device)
        s = spec(weighted_kernel, grid, idx, w, out, n, BLOCK=d["BLOCK"], num_warps=d["warps"])

        def ref():
            return [torch.bincount(idx.long(), weights=w.double(), minlength=bins).float()]

        tol = 1e-3
    else:
        out = empty((bins,), torch.int32, device)
        s = spec(count_kernel, grid, idx, out, n, RELAXED=d["relaxed"], BLOCK=d["BLOCK"], num_warps=d["warps"])

        def ref():
            return [torch.bincount(idx.long(), minlength=bins).to(torch.int32)]

        tol = 0.0
    return Built([out.zero_, s], [out], ref, tol, f"n={n} bins={bins} {p['dist']}")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "n2m_b256_zipf": {"n": 2_000_000, "bins": 256, "dist": "zipf"},
    "n512k_b100000_sorted": {"n": 1 << 19, "bins": 100_000, "dist": "sorted"},
}
