"""Reference for open-nv-decode-gqa-paged: per sequence, gather its pages of the KV cache, then every query head
attends (softmax(q k^T / sqrt(D)) v) over the keys of its KV head, in fp64."""

import torch

PAGE = 16


def make_inputs(params, gen, device):
    B, HQ, HKV, S, D = params["B"], params["HQ"], params["HKV"], params["S"], params["D"]
    pages_per_seq = -(-S // PAGE)
    pool = B * pages_per_seq + 3  # a few pages no sequence uses
    q = torch.randn(B, HQ, D, generator=gen, device=device).half()
    k_cache = torch.randn(pool, PAGE, HKV, D, generator=gen, device=device).half()
    v_cache = torch.randn(pool, PAGE, HKV, D, generator=gen, device=device).half()
    perm = torch.randperm(pool, generator=gen, device=device)[: B * pages_per_seq]
    block_table = perm.view(B, pages_per_seq).to(torch.int32)
    # the first sequence is S long, the others between 2S/3 and S
    lo = max(1, S - S // 3)
    seq_lens = torch.randint(lo, S + 1, (B,), generator=gen, device=device, dtype=torch.int32)
    seq_lens[0] = S
    return q, k_cache, v_cache, block_table, seq_lens


def reference(q, k_cache, v_cache, block_table, seq_lens):
    B, HQ, D = q.shape
    HKV = k_cache.shape[2]
    out = torch.empty(B, HQ, D, dtype=torch.float64, device=q.device)
    for b in range(B):
        n = int(seq_lens[b])
        pages = block_table[b, : -(-n // PAGE)].long()
        k = k_cache[pages].double().flatten(0, 1)[:n]  # (n, HKV, D)
        v = v_cache[pages].double().flatten(0, 1)[:n]
        k = k.repeat_interleave(HQ // HKV, dim=1)  # query head h reads KV head h // (HQ // HKV)
        v = v.repeat_interleave(HQ // HKV, dim=1)
        s = torch.einsum("hd,nhd->hn", q[b].double(), k) * D**-0.5
        out[b] = torch.einsum("hn,nhd->hd", torch.softmax(s, dim=-1), v)
    return out.float()
