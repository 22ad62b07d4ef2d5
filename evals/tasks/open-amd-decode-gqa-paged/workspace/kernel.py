"""Paged grouped-query decode attention for MI300X/MI355X: one new query token per sequence attends to its cached
keys and values. q: [B, HQ, D] fp16; k_cache, v_cache: [num_pages, PAGE, HKV, D] fp16; block_table: [B, max_pages]
int32 (page ids); ctx_len: int, every sequence's length. HQ = GROUP * HKV (query head h reads KV head h // GROUP). Output [B, HQ, D]
fp16, softmax(q.k / sqrt(D)) @ v over the first ctx_len tokens."""

import torch
import triton
import triton.language as tl

PAGE = 16


@triton.jit
def decode_kernel(q_ptr, k_ptr, v_ptr, table_ptr, out_ptr, n, scale, max_pages,
                  HQ: tl.constexpr, HKV: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    kvh = h // (HQ // HKV)
    d = tl.arange(0, D)
    t = tl.arange(0, PAGE)
    q = tl.load(q_ptr + (b * HQ + h) * D + d).to(tl.float32)
    m = tl.full((), float("-inf"), tl.float32)
    l = tl.zeros((), tl.float32)
    acc = tl.zeros((D,), tl.float32)
    for i in range(0, tl.cdiv(n, PAGE)):
        page = tl.load(table_ptr + b * max_pages + i)
        tok = i * PAGE + t
        offs = ((page * PAGE + t[:, None]) * HKV + kvh) * D + d[None, :]
        k = tl.load(k_ptr + offs, mask=tok[:, None] < n, other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1) * scale
        s = tl.where(tok < n, s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m - m_new)
        v = tl.load(v_ptr + offs, mask=tok[:, None] < n, other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l = l * alpha + tl.sum(p, axis=0)
        m = m_new
    tl.store(out_ptr + (b * HQ + h) * D + d, (acc / l).to(tl.float16))


def forward(q, k_cache, v_cache, block_table, ctx_len):
    B, HQ, D = q.shape
    HKV = k_cache.shape[2]
    out = torch.empty_like(q)
    decode_kernel[(B, HQ)](q, k_cache, v_cache, block_table, out, ctx_len, D**-0.5, block_table.shape[1],
                           HQ=HQ, HKV=HKV, D=D, PAGE=PAGE, num_warps=4)
    return out


def kernelpilot_entry():
    """8 sequences of 4096 tokens, 32 query heads over 8 KV heads, head dim 128."""
    B, HQ, HKV, D, ctx = 8, 32, 8, 128, 4096
    pages = B * ctx // PAGE
    q = torch.empty(B, HQ, D, dtype=torch.float16)
    k = torch.empty(pages, PAGE, HKV, D, dtype=torch.float16)
    v = torch.empty(pages, PAGE, HKV, D, dtype=torch.float16)
    table = torch.arange(pages, dtype=torch.int32).reshape(B, ctx // PAGE)
    return {"call": forward, "args": (q, k, v, table, ctx), "kwargs": {}}
