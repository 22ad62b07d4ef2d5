"""Reference for axpby-loads-in-flight: alpha * x + beta * y in fp64 (alpha, beta drawn per call)."""

import torch


def make_inputs(params, gen, device):
    n = int(params["n"])
    x = torch.randn(n, generator=gen, device=device)
    y = torch.randn(n, generator=gen, device=device)
    ab = torch.rand(2, generator=gen, device=device) * 4 - 2
    return x, y, float(ab[0]), float(ab[1])


def reference(x, y, alpha, beta):
    return (alpha * x.double() + beta * y.double()).float()
