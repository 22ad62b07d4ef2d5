"""Paged-KV decode attention (GQA): one program per (sequence, KV head) serves its G query heads; the KV positions
are read through a block table (pages of 16 tokens) up to the sequence's length, loaded from ``ctx_lens`` on the
GPU (the loop bound is data)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, compile_only, empty, randint, randn, spec

FAMILY = "paged_decode"
PAGE = 16
PROBLEMS = {
    "b32_ctx4096_g4": {"B": 32, "HKV": 8, "G": 4, "D": 128, "ctx": 4096, "ragged": False},
    "b64_ragged8192_g8": {"B": 64, "HKV": 4, "G": 8, "D": 128, "ctx": 8192, "ragged": True},
    "b128_ctx1024_g4": {"B": 128, "HKV": 8, "G": 4, "D": 64, "ctx": 1024, "ragged": False},
}
SMALL = {"b64_ragged8192_g8": {"B": 3, "HKV": 2, "G": 8, "D": 64, "ctx": 512, "ragged": True}}


def designs(p):
    out = {}
    for bn in (16, 32, 64, 128):
        for warps in (2, 4, 8):
            for stages in (1, 2, 3):
                if (bn, warps) in ((16, 8), (128, 2)) or (stages != 2 and warps != 4):
                    continue
                out[f"n{bn}w{warps}s{stages}"] = {"BN": bn, "warps": warps, "stages": stages}
    return out


@triton.jit
def paged_decode_kernel(q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, o_ptr, MAXP, HKV, scale_log2, G: tl.constexpr,
                        GP: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr, BN: tl.constexpr):  # fmt: skip
    b = tl.program_id(0)
    h = tl.program_id(1)
    ctx = tl.load(lens_ptr + b)
    rg = tl.arange(0, GP)
    rd = tl.arange(0, D)
    qh = h * G + rg
    q_offs = (b * HKV * G + qh[:, None]) * D + rd[None, :]
    q = tl.load(q_ptr + q_offs, mask=rg[:, None] < G, other=0.0)
    m_i = tl.full((GP,), -float("inf"), tl.float32)
    l_i = tl.zeros((GP,), tl.float32)
    acc = tl.zeros((GP, D), tl.float32)
    for start in range(0, ctx, BN):
        t = start + tl.arange(0, BN)
        valid = t < ctx
        page = tl.load(table_ptr + b * MAXP + t // PAGE, mask=valid, other=0).to(tl.int64)
        row = (page * PAGE + t % PAGE) * HKV + h
        k = tl.load(k_ptr + row[None, :] * D + rd[:, None], mask=valid[None, :], other=0.0)
        s = tl.dot(q, k) * scale_log2
        s = tl.where(valid[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + row[:, None] * D + rd[None, :], mask=valid[:, None], other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(o_ptr + q_offs, (acc / l_i[:, None]).to(tl.float16), mask=rg[:, None] < G)


def build(p, d, device):
    B, HKV, G, D, ctx = p["B"], p["HKV"], p["G"], p["D"], p["ctx"]
    maxp = ctx // PAGE
    if p["ragged"] == "spread":  # the second corpus's ragged lengths: fixed values, no random stream
        lens = spread_lens(B, ctx, device)
    elif p["ragged"]:
        lens = randint(ctx // 16, ctx + 1, (B,), device, seed=50)
    else:
        lens = torch.full((B,), ctx, dtype=torch.int32, device=device)
    pages = B * maxp
    q = randn((B, HKV * G, D), torch.float16, device, seed=51)
    k = randn((pages, PAGE, HKV, D), torch.float16, device, seed=52)
    v = randn((pages, PAGE, HKV, D), torch.float16, device, seed=53)
    if compile_only(device):
        table = torch.empty((B, maxp), dtype=torch.int32)
    else:
        gen = torch.Generator(device=device).manual_seed(54)
        table = torch.randperm(pages, generator=gen, device=device).to(torch.int32).view(B, maxp)
    o = empty((B, HKV * G, D), torch.float16, device)
    scale = D**-0.5
    gp = max(16, G)
    s = spec(paged_decode_kernel, (B, HKV), q, k, v, table, lens, o, maxp, HKV, scale * 1.4426950408889634, G=G,
             GP=gp, D=D, PAGE=PAGE, BN=d["BN"], num_warps=d["warps"], num_stages=d["stages"])  # fmt: skip

    def ref():
        outs = []
        for i in range(B):
            n = int(lens[i])
            rows = table[i, : cdiv(n, PAGE)].long()
            kk = k[rows].reshape(-1, HKV, D)[:n].float()  # [n, HKV, D]
            vv = v[rows].reshape(-1, HKV, D)[:n].float()
            qq = q[i].float().view(HKV, G, D)
            sc = torch.einsum("hgd,nhd->hgn", qq, kk) * scale
            outs.append(torch.einsum("hgn,nhd->hgd", torch.softmax(sc, dim=-1), vv).reshape(HKV * G, D))
        return [torch.stack(outs)]

    what = ("spread lengths" if p["ragged"] == "spread" else "ragged lengths") if p["ragged"] else f"ctx {ctx}"
    return Built([s], [o], ref, 1e-2, f"B={B} Hkv={HKV} G={G} D={D} page {PAGE}, {what} (loaded)")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "b16_ctx16384_g8": {"B": 16, "HKV": 8, "G": 8, "D": 128, "ctx": 16384, "ragged": False},
    "b48_spread6000_g4": {"B": 48, "HKV": 8, "G": 4, "D": 64, "ctx": 6000, "ragged": "spread"},
    "b256_ctx512_g2": {"B": 256, "HKV": 4, "G": 2, "D": 128, "ctx": 512, "ragged": False},
}
HOLD_CONFIGS = ((16, 4, 2), (32, 4, 3), (64, 8, 3), (128, 8, 1), (64, 2, 2), (32, 8, 1), (16, 2, 3))


def hold_designs(p):
    return {f"n{bn}w{w}s{s}": {"BN": bn, "warps": w, "stages": s} for bn, w, s in HOLD_CONFIGS}


def spread_lens(B, ctx, device):
    """Ragged lengths from ctx / 8 to ctx, the same on every machine (no random stream: the CPU's prediction must
    see the values the GPU runs)."""
    lo = ctx // 8
    vals = [lo + (i * 7919) % (ctx - lo + 1) for i in range(B)]
    return torch.tensor(vals, dtype=torch.int32, device=None if compile_only(device) else device)


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "b4_ctx32768_g8": {"B": 4, "HKV": 8, "G": 8, "D": 128, "ctx": 32768, "ragged": False},
    "b100_spread2400_g2": {"B": 100, "HKV": 2, "G": 2, "D": 64, "ctx": 2400, "ragged": "spread"},
}
FRESH_CONFIGS = ((32, 2, 1), (16, 8, 2), (128, 2, 2), (64, 8, 1))  # BN, warps, stages: in neither other corpus


def fresh_designs(p):
    return {f"n{bn}w{w}s{s}": {"BN": bn, "warps": w, "stages": s} for bn, w, s in FRESH_CONFIGS}


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "b24_ragged12288_g6": {"B": 24, "HKV": 4, "G": 6, "D": 128, "ctx": 12288, "ragged": True},
    "b384_ctx256_g8": {"B": 384, "HKV": 2, "G": 8, "D": 128, "ctx": 256, "ragged": False},
    "b2_spread40000_g16": {"B": 2, "HKV": 2, "G": 16, "D": 128, "ctx": 40000, "ragged": "spread"},
}
