"""Reference for amd-attention-spills: non-causal attention per (batch, head) in fp64."""

import torch


def make_inputs(params, gen, device):
    B, H, N, D = params["B"], params["H"], params["N"], params["D"]
    return tuple(torch.randn(B, H, N, D, generator=gen, device=device).half() for _ in range(3))


def reference(q, k, v):
    s = (q.double() @ k.double().transpose(-1, -2)) * q.shape[-1] ** -0.5
    return (torch.softmax(s, dim=-1) @ v.double()).float()
