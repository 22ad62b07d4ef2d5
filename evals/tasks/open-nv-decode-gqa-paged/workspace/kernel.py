"""Decode attention over a paged KV cache with grouped-query heads.

q is (B, HQ, D) fp16: one new token per sequence. The cache holds pages of PAGE tokens: k_cache and v_cache are
(num_pages, PAGE, HKV, D) fp16; block_table (B, pages_per_seq) int32 lists each sequence's pages in order and
seq_lens (B,) int32 its length. Query head h reads KV head h // (HQ // HKV). out[b, h] = softmax(q k^T / sqrt(D)) v
over the seq_lens[b] cached tokens, fp32, shape (B, HQ, D).

One program per (sequence, query head) walks the sequence one page at a time with an online softmax."""

import torch
import triton
import triton.language as tl

PAGE = 16
OPTIONS = {"num_warps": 4}


@triton.jit
def paged_decode_kernel(
    q_ptr, k_ptr, v_ptr, table_ptr, lens_ptr, out_ptr, pages_per_seq, scale,
    HQ: tl.constexpr, HKV: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr,
):
    b = tl.program_id(0)
    h = tl.program_id(1)
    kvh = h // (HQ // HKV)
    d = tl.arange(0, D)
    t = tl.arange(0, PAGE)
    q = tl.load(q_ptr + (b * HQ + h) * D + d).to(tl.float32)
    n_tokens = tl.load(lens_ptr + b)
    m_i = tl.full((), float("-inf"), tl.float32)
    l_i = tl.full((), 0.0, tl.float32)
    acc = tl.zeros((D,), dtype=tl.float32)
    for p in range(0, tl.cdiv(n_tokens, PAGE)):
        page = tl.load(table_ptr + b * pages_per_seq + p).to(tl.int64)
        valid = p * PAGE + t < n_tokens
        offs = ((page * PAGE + t[:, None]) * HKV + kvh) * D + d[None, :]
        k = tl.load(k_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
        s = tl.where(valid, tl.sum(k * q[None, :], 1) * scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 0))
        w = tl.exp(s - m_new)
        alpha = tl.exp(m_i - m_new)
        v = tl.load(v_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(w[:, None] * v, 0)
        l_i = l_i * alpha + tl.sum(w, 0)
        m_i = m_new
    tl.store(out_ptr + (b * HQ + h) * D + d, acc / l_i)


def forward(q, k_cache, v_cache, block_table, seq_lens):
    B, HQ, D = q.shape
    HKV = k_cache.shape[2]
    out = torch.empty((B, HQ, D), device=q.device, dtype=torch.float32)
    paged_decode_kernel[(B, HQ)](
        q, k_cache, v_cache, block_table, seq_lens, out, block_table.shape[1], D**-0.5,
        HQ=HQ, HKV=HKV, D=D, PAGE=PAGE, **OPTIONS,
    )
    return out


def kernelpilot_entry():
    B, HQ, HKV, D = 8, 32, 8, 128
    q = torch.empty((B, HQ, D), dtype=torch.float16)
    k = v = torch.empty((1, PAGE, HKV, D), dtype=torch.float16)  # only dtype and alignment matter to the compiler
    table = torch.empty((B, 512), dtype=torch.int32)
    lens = torch.empty((B,), dtype=torch.int32)
    out = torch.empty((B, HQ, D))
    kwargs = {"HQ": HQ, "HKV": HKV, "D": D, "PAGE": PAGE, **OPTIONS}
    args = (q, k, v, table, lens, out, 512, D**-0.5)
    return {"kernel": paged_decode_kernel, "args": args, "kwargs": kwargs, "grid": (B, HQ)}
