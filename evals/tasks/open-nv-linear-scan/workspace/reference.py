"""Reference for open-nv-linear-scan: h[t] = a[t] * h[t - 1] + x[t] along the sequence, h[-1] = 0, in fp64."""

import torch


def make_inputs(params, gen, device):
    B, L, D = params["B"], params["L"], params["D"]
    a = 0.8 + 0.199 * torch.rand(B, L, D, generator=gen, device=device)
    x = torch.randn(B, L, D, generator=gen, device=device)
    return a, x


def reference(a, x):
    a64, x64 = a.double(), x.double()
    h = torch.empty_like(x64)
    state = torch.zeros_like(x64[:, 0])
    for t in range(x.shape[1]):
        state = a64[:, t] * state + x64[:, t]
        h[:, t] = state
    return h.float()
