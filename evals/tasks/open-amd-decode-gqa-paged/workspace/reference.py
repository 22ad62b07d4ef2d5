"""Reference for the paged GQA decode task: gathers each sequence's pages and runs softmax attention in fp64."""

import torch

PAGE = 16


def make_inputs(params, gen, device):
    B, HQ, HKV, D = (int(params[k]) for k in ("B", "HQ", "HKV", "D"))
    ctx = int(params["ctx"])
    max_pages = (ctx + PAGE - 1) // PAGE
    pages = B * max_pages + 3
    perm = torch.randperm(pages, generator=gen).to(torch.int32)
    table = perm[: B * max_pages].reshape(B, max_pages).contiguous()
    q = torch.randn(B, HQ, D, generator=gen).half()
    k = torch.randn(pages, PAGE, HKV, D, generator=gen).half()
    v = torch.randn(pages, PAGE, HKV, D, generator=gen).half()
    return (*(x.to(device) for x in (q, k, v, table)), ctx)


def reference(q, k_cache, v_cache, block_table, ctx_len):
    B, HQ, D = q.shape
    HKV = k_cache.shape[2]
    out = torch.empty(B, HQ, D, dtype=torch.float64, device=q.device)
    for b in range(B):
        n = ctx_len
        pages = block_table[b, : (n + PAGE - 1) // PAGE].long()
        k = k_cache[pages].reshape(-1, HKV, D)[:n].double()
        v = v_cache[pages].reshape(-1, HKV, D)[:n].double()
        kq = k.repeat_interleave(HQ // HKV, dim=1)  # [n, HQ, D]
        vq = v.repeat_interleave(HQ // HKV, dim=1)
        s = torch.einsum("hd,nhd->hn", q[b].double(), kq) * D**-0.5
        out[b] = torch.einsum("hn,nhd->hd", torch.softmax(s, dim=-1), vq)
    return out.half()
