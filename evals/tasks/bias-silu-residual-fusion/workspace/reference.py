"""Reference for bias-silu-residual-fusion: silu(x + bias) + residual in fp64."""

import torch


def make_inputs(params, gen, device):
    M, N = params["M"], params["N"]
    x = torch.randn(M, N, generator=gen, device=device) * 3
    bias = torch.randn(N, generator=gen, device=device)
    residual = torch.randn(M, N, generator=gen, device=device)
    return x, bias, residual


def reference(x, bias, residual):
    t = x.double() + bias.double()
    return (t * torch.sigmoid(t) + residual.double()).float()
