"""Attention decode over a contiguous KV cache: one query token per sequence, q [B, HQ, D], K and V [B, HKV, S, D]
fp16, HQ = G x HKV (grouped-query), o [B, HQ, D]. One program per (sequence, KV head) over the whole cache (its G
query heads padded to 16 rows for the dots), or flash-decoding: SPLIT programs each over a slice of the cache writing
a partial output and log-sum-exp, combined by a second kernel. A fresh-corpus-only family (issue 31)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randn, spec

FAMILY = "decode_attn"
PROBLEMS = {}
FRESH_PROBLEMS = {
    "b8_hq32kv8_s8192_d128": {"B": 8, "HQ": 32, "HKV": 8, "S": 8192, "D": 128},
    "b64_hq16kv16_s1000_d64": {"B": 64, "HQ": 16, "HKV": 16, "S": 1000, "D": 64},
    "b1_hq64kv8_s32768_d128": {"B": 1, "HQ": 64, "HKV": 8, "S": 32768, "D": 128},
    "b32_hq40kv8_s3000_d128": {"B": 32, "HQ": 40, "HKV": 8, "S": 3000, "D": 128},
}


def fresh_designs(p):
    return {
        "single_n64w4": {"SPLIT": 1, "BN": 64, "warps": 4},
        "single_n128w8": {"SPLIT": 1, "BN": 128, "warps": 8},
        "split4_n64w4": {"SPLIT": 4, "BN": 64, "warps": 4},
        "split16_n32w4": {"SPLIT": 16, "BN": 32, "warps": 4},
    }


def shrink(p):
    return dict(p, B=2, S=min(p["S"], 300))


@triton.jit
def decode_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, S, per_split, HKV, qk_scale, G: tl.constexpr,
                  GP: tl.constexpr, D: tl.constexpr, BN: tl.constexpr, SPLIT: tl.constexpr):  # fmt: skip
    """SPLIT 1: o itself; else this split's normalised partial output [B, HQ, SPLIT, D] and its lse [B, HQ, SPLIT]."""
    b = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1)
    part = tl.program_id(2)
    g = tl.arange(0, GP)
    dd = tl.arange(0, D)
    heads = h * G + g
    gmask = g < G
    q = tl.load(q_ptr + (b * HKV * G + heads[:, None]) * D + dd[None, :], mask=gmask[:, None], other=0.0)
    kv = (b * HKV + h) * S * D
    lo = part * per_split
    hi = tl.minimum(lo + per_split, S)
    m = tl.full((GP,), -float("inf"), tl.float32)
    den = tl.zeros((GP,), tl.float32)
    acc = tl.zeros((GP, D), tl.float32)
    for start in range(lo, hi, BN):
        n = start + tl.arange(0, BN)
        nmask = n < hi
        k = tl.load(k_ptr + kv + n[:, None] * D + dd[None, :], mask=nmask[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        s = tl.where(nmask[None, :], s, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp2(m - m_new)
        pr = tl.exp2(s - m_new[:, None])
        den = den * alpha + tl.sum(pr, axis=1)
        v = tl.load(v_ptr + kv + n[:, None] * D + dd[None, :], mask=nmask[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(pr.to(tl.float16), v)
        m = m_new
    out = tl.where(den[:, None] > 0, acc / den[:, None], 0.0)  # an empty split: weight 0 in the combine
    if SPLIT == 1:
        tl.store(o_ptr + (b * HKV * G + heads[:, None]) * D + dd[None, :], out.to(tl.float16), mask=gmask[:, None])
    else:
        row = (b * HKV * G + heads) * SPLIT + part
        tl.store(o_ptr + row[:, None] * D + dd[None, :], out, mask=gmask[:, None])
        tl.store(lse_ptr + row, m + tl.log2(den), mask=gmask)


@triton.jit
def combine_kernel(p_ptr, lse_ptr, o_ptr, SPLIT: tl.constexpr, D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    i = tl.arange(0, SPLIT)
    dd = tl.arange(0, D)
    lse = tl.load(lse_ptr + row * SPLIT + i)
    wgt = tl.exp2(lse - tl.max(lse, axis=0))
    part = tl.load(p_ptr + (row * SPLIT + i[:, None]) * D + dd[None, :])
    out = tl.sum(part * wgt[:, None], axis=0) / tl.sum(wgt, axis=0)
    tl.store(o_ptr + row * D + dd, out.to(tl.float16))


def build(p, d, device):
    B, HQ, HKV, S, D = p["B"], p["HQ"], p["HKV"], p["S"], p["D"]
    G, split, bn = HQ // HKV, d["SPLIT"], d["BN"]
    q = randn((B, HQ, D), torch.float16, device, seed=161)
    k = randn((B, HKV, S, D), torch.float16, device, seed=162)
    v = randn((B, HKV, S, D), torch.float16, device, seed=163)
    o = empty((B, HQ, D), torch.float16, device)
    scale = D**-0.5
    per = cdiv(cdiv(S, split), bn) * bn  # whole BN blocks per split: every split but the last starts aligned
    common = {"G": G, "GP": max(16, triton.next_power_of_2(G)), "D": D, "BN": bn, "SPLIT": split,
              "num_warps": d["warps"]}  # fmt: skip
    qk = scale * 1.4426950408889634
    if split == 1:
        launches = [spec(decode_kernel, (B, HKV, 1), q, k, v, o, o, S, S, HKV, qk, **common)]
    else:
        part = empty((B, HQ, split, D), torch.float32, device)
        lse = empty((B, HQ, split), torch.float32, device)
        launches = [
            spec(decode_kernel, (B, HKV, split), q, k, v, part, lse, S, per, HKV, qk, **common),
            spec(combine_kernel, (B * HQ,), part, lse, o, SPLIT=split, D=D, num_warps=4),
        ]

    def ref():
        kk = k.float().repeat_interleave(G, dim=1)
        vv = v.float().repeat_interleave(G, dim=1)
        sc = torch.einsum("bhd,bhsd->bhs", q.float(), kk) * scale
        return [torch.einsum("bhs,bhsd->bhd", torch.softmax(sc, dim=-1), vv)]

    return Built(launches, [o], ref, 1e-2, f"B={B} Hq={HQ} Hkv={HKV} S={S} D={D} fp16, split {split}")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "b16_hq28kv4_s4000_d128": {"B": 16, "HQ": 28, "HKV": 4, "S": 4000, "D": 128},
    "b2_hq64kv8_s65536_d128": {"B": 2, "HQ": 64, "HKV": 8, "S": 65536, "D": 128},
    "b128_hq32kv8_s700_d64": {"B": 128, "HQ": 32, "HKV": 8, "S": 700, "D": 64},
}
