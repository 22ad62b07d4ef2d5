"""Reference for rmsnorm-spills: RMSNorm in fp64 (eps 1e-6)."""

import torch


def make_inputs(params, gen, device):
    x = torch.randn(params["M"], params["N"], generator=gen, device=device) * 2
    w = torch.rand(params["N"], generator=gen, device=device) + 0.5
    return x, w


def reference(x, w):
    xd = x.double()
    return (xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6) * w.double()).float()
