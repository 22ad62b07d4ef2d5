"""Reference for sgemm-register-tiling: A @ B in fp64."""

import torch


def make_inputs(params, gen, device):
    M, N, K = params["M"], params["N"], params["K"]
    return torch.randn(M, K, generator=gen, device=device), torch.randn(K, N, generator=gen, device=device)


def reference(a, b):
    return (a.double() @ b.double()).float()
