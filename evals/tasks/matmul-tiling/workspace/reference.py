"""Reference for matmul-tiling: fp16 inputs, the product computed in fp64 and returned in fp32."""

import torch


def make_inputs(params, gen, device):
    a = torch.randn(params["M"], params["K"], generator=gen, device=device).to(torch.float16)
    b = torch.randn(params["K"], params["N"], generator=gen, device=device).to(torch.float16)
    return a, b


def reference(a, b):
    return (a.double() @ b.double()).float()
