"""Reference for gemv-warp-per-row: A @ x in fp64."""

import torch


def make_inputs(params, gen, device):
    M, K = params["M"], params["K"]
    a = torch.randn(M, K, generator=gen, device=device).half()
    x = torch.randn(K, generator=gen, device=device).half()
    return a, x


def reference(a, x):
    return (a.double() @ x.double()).float()
