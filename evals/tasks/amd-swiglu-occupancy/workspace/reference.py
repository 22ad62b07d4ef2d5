"""Reference for amd-swiglu-occupancy: silu(gate) * up in fp64, rounded to fp16."""

import torch


def make_inputs(params, gen, device):
    n = int(params["n"])
    gate = (torch.randn(n, generator=gen, device=device) * 3).half()
    up = torch.randn(n, generator=gen, device=device).half()
    return gate, up


def reference(gate, up):
    g = gate.double()
    return (g * torch.sigmoid(g) * up.double()).half()
