"""Reference for decode-attention-split-kv: single-query attention per (batch, head) in fp64."""

import torch


def make_inputs(params, gen, device):
    B, H, S, D = params["B"], params["H"], params["S"], params["D"]
    q = torch.randn(B, H, D, generator=gen, device=device).half()
    k = torch.randn(B, H, S, D, generator=gen, device=device).half()
    v = torch.randn(B, H, S, D, generator=gen, device=device).half()
    return q, k, v


def reference(q, k, v):
    D = q.shape[-1]
    s = torch.einsum("bhd,bhsd->bhs", q.double(), k.double()) * D**-0.5
    return torch.einsum("bhs,bhsd->bhd", torch.softmax(s, dim=-1), v.double()).float()
