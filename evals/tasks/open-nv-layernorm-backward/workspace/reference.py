"""Reference for open-nv-layernorm-backward: the gradients of y = (x - mean) * rstd * w + b, in fp64, packed as
(M + 2, N): dx in rows 0..M-1, dw in row M, db in row M + 1."""

import torch


def make_inputs(params, gen, device):
    M, N = params["M"], params["N"]
    x = (torch.randn(M, N, generator=gen, device=device) * 2 + 0.5).half()
    w = (1 + 0.1 * torch.randn(N, generator=gen, device=device)).half()
    dy = torch.randn(M, N, generator=gen, device=device).half()
    xd = x.double()
    mean = xd.mean(1)
    rstd = (xd.var(1, unbiased=False) + 1e-5).rsqrt()
    return x, w, dy, mean.float(), rstd.float()


def reference(x, w, dy, mean, rstd):
    xhat = (x.double() - mean.double()[:, None]) * rstd.double()[:, None]
    g = dy.double() * w.double()
    dx = rstd.double()[:, None] * (g - (g * xhat).mean(1, keepdim=True) * xhat - g.mean(1, keepdim=True))
    dw = (dy.double() * xhat).sum(0, keepdim=True)
    db = dy.double().sum(0, keepdim=True)
    return torch.cat([dx, dw, db]).half()
