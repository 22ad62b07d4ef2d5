"""Reference for column-sum-coalesce: column sums in fp64."""

import torch


def make_inputs(params, gen, device):
    return (torch.randn(params["M"], params["N"], generator=gen, device=device),)


def reference(x):
    return x.double().sum(0).float()
