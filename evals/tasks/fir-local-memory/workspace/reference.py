"""Reference for fir-local-memory: the causal 32-tap FIR filter along time, in fp64."""

import torch

TAPS = 32


def make_inputs(params, gen, device):
    T, C = params["T"], params["C"]
    x = torch.randn(T, C, generator=gen, device=device)
    w = torch.randn(TAPS, generator=gen, device=device) / TAPS
    return x, w


def reference(x, w):
    xd, wd = x.double(), w.double()
    y = torch.zeros_like(xd)
    for j in range(TAPS):
        if j < x.shape[0]:
            y[j:] += wd[j] * xd[: x.shape[0] - j]
    return y.float()
