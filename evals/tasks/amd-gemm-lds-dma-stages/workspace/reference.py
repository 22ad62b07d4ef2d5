"""Reference for amd-gemm-lds-dma-stages: A @ B in fp64 from fp16 inputs."""

import torch


def make_inputs(params, gen, device):
    M, N, K = params["M"], params["N"], params["K"]
    a = torch.randn(M, K, generator=gen, device=device).half()
    b = torch.randn(K, N, generator=gen, device=device).half()
    return a, b


def reference(a, b):
    return (a.double() @ b.double()).float()
