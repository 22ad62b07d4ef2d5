"""Reference for open-nv-prefill-causal: causal softmax(q k^T / sqrt(D)) v per (batch, head) in fp64."""

import torch


def make_inputs(params, gen, device):
    B, H, N, D = params["B"], params["H"], params["N"], params["D"]
    q = torch.randn(B, H, N, D, generator=gen, device=device).half()
    k = torch.randn(B, H, N, D, generator=gen, device=device).half()
    v = torch.randn(B, H, N, D, generator=gen, device=device).half()
    return q, k, v


def reference(q, k, v):
    B, H, N, D = q.shape
    future = torch.ones(N, N, dtype=torch.bool, device=q.device).triu(1)
    out = torch.empty(B, H, N, D, dtype=torch.float32, device=q.device)
    for b in range(B):
        for h in range(H):
            s = (q[b, h].double() @ k[b, h].double().T) * D**-0.5
            s = s.masked_fill(future, float("-inf"))
            out[b, h] = (torch.softmax(s, dim=-1) @ v[b, h].double()).float()
    return out
