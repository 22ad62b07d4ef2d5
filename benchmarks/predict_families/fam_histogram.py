"""Histogram of int32 values with atomics (data-dependent addresses): every element adds 1 to its bin in global
memory (default or relaxed order), or each program counts its block with tl.histogram and adds the counts."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, compile_only, empty, randint, spec

FAMILY = "histogram"
PROBLEMS = {
    "n4m_bins256": {"n": 1 << 22, "bins": 256, "skew": False},
    "n4m_bins4096": {"n": 1 << 22, "bins": 4096, "skew": False},
    "n4m_bins256_skewed": {"n": 1 << 22, "bins": 256, "skew": True},
}
SMALL = {
    "n4m_bins256_skewed": {"n": 32768, "bins": 256, "skew": True},
    "n4m_bins4096": {"n": 16384, "bins": 4096, "skew": False},
}


def designs(p):
    out = {}
    for block in (1024, 4096):
        for warps in (4, 8):
            out[f"global{block}w{warps}"] = {"kind": "global", "BLOCK": block, "warps": warps, "relaxed": False}
        out[f"global_relaxed{block}"] = {"kind": "global", "BLOCK": block, "warps": 4, "relaxed": True}
    for block in (1024, 4096, 16384):
        out[f"local{block}"] = {"kind": "local", "BLOCK": block, "warps": 4, "relaxed": False}
    return out


@triton.jit
def hist_global_kernel(x_ptr, h_ptr, n, RELAXED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    ones = tl.full((BLOCK,), 1, tl.int32)
    if RELAXED:
        tl.atomic_add(h_ptr + x, ones, mask=mask, sem="relaxed")
    else:
        tl.atomic_add(h_ptr + x, ones, mask=mask)


@triton.jit
def hist_local_kernel(x_ptr, h_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    counts = tl.histogram(x, BINS)
    tl.atomic_add(h_ptr + tl.arange(0, BINS), counts, sem="relaxed")


def build(p, d, device):
    n, bins = p["n"], p["bins"]
    x = randint(0, bins, (n,), device, seed=70)
    if p["skew"] and not compile_only(device):
        gen = torch.Generator(device=device).manual_seed(71)
        hot = torch.rand((n,), generator=gen, device=device) < 0.9
        x = torch.where(hot, torch.zeros_like(x), x)
    h = empty((bins,), torch.int32, device)
    grid = (cdiv(n, d["BLOCK"]),)
    if d["kind"] == "global":
        s = spec(hist_global_kernel, grid, x, h, n, RELAXED=d["relaxed"], BLOCK=d["BLOCK"], num_warps=d["warps"])
    else:
        s = spec(hist_local_kernel, grid, x, h, n, BINS=bins, BLOCK=d["BLOCK"], num_warps=d["warps"])

    def ref():
        return [torch.bincount(x.long(), minlength=bins).to(torch.int32)]

    return Built([h.zero_, s], [h], ref, 0.0, f"n={n} bins={bins}{' skewed (90% in bin 0)' if p['skew'] else ''}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "n8m_bins1024": {"n": 1 << 23, "bins": 1024, "skew": False},
    "n2m_bins64": {"n": 1 << 21, "bins": 64, "skew": False},
    "n3m_bins512_skewed": {"n": 3_000_000, "bins": 512, "skew": True},
}


def hold_designs(p):
    out = {}
    for block, warps in ((2048, 4), (512, 2)):
        out[f"global{block}w{warps}"] = {"kind": "global", "BLOCK": block, "warps": warps, "relaxed": False}
    for block, warps in ((2048, 4), (8192, 8)):
        out[f"global_relaxed{block}w{warps}"] = {"kind": "global", "BLOCK": block, "warps": warps, "relaxed": True}
    for block in (2048, 8192):
        out[f"local{block}"] = {"kind": "local", "BLOCK": block, "warps": 4, "relaxed": False}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {  # n a multiple of every BLOCK: the local kernel loads whole blocks without a mask
    "n16m_bins128": {"n": 1 << 24, "bins": 128, "skew": False},
    "n1m_bins2048_skewed": {"n": 1 << 20, "bins": 2048, "skew": True},
}


def fresh_designs(p):
    return {
        "global1024w2": {"kind": "global", "BLOCK": 1024, "warps": 2, "relaxed": False},
        "global_relaxed4096w8": {"kind": "global", "BLOCK": 4096, "warps": 8, "relaxed": True},
        "local512w4": {"kind": "local", "BLOCK": 512, "warps": 4, "relaxed": False},
        "local4096w8": {"kind": "local", "BLOCK": 4096, "warps": 8, "relaxed": False},
    }


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "n6m_bins512_skewed": {"n": 6 << 20, "bins": 512, "skew": True},
    "n512k_bins32": {"n": 1 << 19, "bins": 32, "skew": False},
}
