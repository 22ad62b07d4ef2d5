"""Flash attention forward (fp16, online softmax in exp2), causal and not: one program per (BLOCK_M queries, head);
the causal kernel stops at the diagonal block."""

import torch
import triton
import triton.language as tl
from gen_common import Built, empty, randn, spec

FAMILY = "flash_attn"
PROBLEMS = {
    "b4h16s2048d64": {"B": 4, "H": 16, "S": 2048, "D": 64, "causal": False},
    "b4h16s2048d64_causal": {"B": 4, "H": 16, "S": 2048, "D": 64, "causal": True},
    "b2h16s4096d128_causal": {"B": 2, "H": 16, "S": 4096, "D": 128, "causal": True},
    "b8h32s1024d128": {"B": 8, "H": 32, "S": 1024, "D": 128, "causal": False},
}
CONFIGS = ((128, 64, 8, 3), (128, 64, 4, 2), (64, 64, 4, 3), (128, 128, 8, 2), (64, 32, 4, 2), (128, 32, 8, 3),
           (64, 128, 4, 2), (128, 64, 8, 1))  # fmt: skip
SMALL = {
    "b4h16s2048d64_causal": {"B": 1, "H": 2, "S": 256, "D": 64, "causal": True},
    "b8h32s1024d128": {"B": 1, "H": 1, "S": 128, "D": 128, "causal": False},
}


def designs(p):
    return {f"m{bm}n{bn}w{w}s{s}": {"BM": bm, "BN": bn, "warps": w, "stages": s} for bm, bn, w, s in CONFIGS}


@triton.jit
def flash_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S, scale_log2, CAUSAL: tl.constexpr, D: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr):  # fmt: skip
    start_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)
    base = head * S * D
    rm = start_m * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + base + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    hi = (start_m + 1) * BM if CAUSAL else S
    for start_n in range(0, hi, BN):
        rn = start_n + tl.arange(0, BN)
        k = tl.load(k_ptr + base + rn[None, :] * D + rd[:, None])
        s = tl.dot(q, k) * scale_log2
        if CAUSAL:
            s = tl.where(rm[:, None] >= rn[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + rn[:, None] * D + rd[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(o_ptr + base + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


def build(p, d, device):
    B, H, S, D, causal = p["B"], p["H"], p["S"], p["D"], p["causal"]
    q, k, v = (randn((B, H, S, D), torch.float16, device, seed=40 + i) for i in range(3))
    o = empty((B, H, S, D), torch.float16, device)
    scale = D**-0.5
    s = spec(flash_fwd_kernel, (S // d["BM"], B * H), q, k, v, o, S, scale * 1.4426950408889634, CAUSAL=causal, D=D,
             BM=d["BM"], BN=d["BN"], num_warps=d["warps"], num_stages=d["stages"])  # fmt: skip

    def ref():
        return [torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)]

    return Built([s], [o], ref, 1e-2, f"B={B} H={H} S={S} D={D} fp16{' causal' if causal else ''}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "b1h32s8192d64_causal": {"B": 1, "H": 32, "S": 8192, "D": 64, "causal": True},
    "b16h8s512d128": {"B": 16, "H": 8, "S": 512, "D": 128, "causal": False},
    "b2h24s3072d64": {"B": 2, "H": 24, "S": 3072, "D": 64, "causal": False},
}
HOLD_CONFIGS = ((128, 64, 8, 2), (64, 64, 4, 2), (64, 64, 8, 3), (128, 32, 4, 2), (64, 128, 8, 2))


def hold_designs(p):
    return {f"m{bm}n{bn}w{w}s{s}": {"BM": bm, "BN": bn, "warps": w, "stages": s} for bm, bn, w, s in HOLD_CONFIGS}


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "b1h8s16384d64_causal": {"B": 1, "H": 8, "S": 16384, "D": 64, "causal": True},
    "b32h16s256d64": {"B": 32, "H": 16, "S": 256, "D": 64, "causal": False},
    "b4h12s1536d128_causal": {"B": 4, "H": 12, "S": 1536, "D": 128, "causal": True},
}
FRESH_CONFIGS = ((64, 32, 4, 3), (128, 64, 4, 3), (64, 64, 4, 1), (128, 32, 8, 2))


def fresh_designs(p):
    return {f"m{bm}n{bn}w{w}s{s}": {"BM": bm, "BN": bn, "warps": w, "stages": s} for bm, bn, w, s in FRESH_CONFIGS}


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "b1h40s4096d128_causal": {"B": 1, "H": 40, "S": 4096, "D": 128, "causal": True},
    "b16h12s640d64": {"B": 16, "H": 12, "S": 640, "D": 64, "causal": False},
    "b2h28s2176d128_causal": {"B": 2, "H": 28, "S": 2176, "D": 128, "causal": True},
}
