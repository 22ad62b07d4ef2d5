"""Reference for open-nv-moe-grouped-gemm: every expert's rows of x times that expert's weight, in fp64."""

import torch


def make_inputs(params, gen, device):
    T, E, K, N = params["T"], params["E"], params["K"], params["N"]
    x = torch.randn(T, K, generator=gen, device=device).half()
    w = (torch.randn(E, N, K, generator=gen, device=device) * K**-0.5).half()
    # an uneven routing: some experts get many tokens, some few or none
    share = torch.rand(E, generator=gen, device=device) ** 3
    counts = (share / share.sum() * T).floor().long()
    counts[int(torch.argmax(share))] += T - int(counts.sum())
    offsets = torch.zeros(E + 1, dtype=torch.int32, device=device)
    offsets[1:] = counts.cumsum(0).to(torch.int32)
    return x, w, offsets


def reference(x, w, offsets):
    out = torch.empty(x.shape[0], w.shape[1], dtype=torch.float32, device=x.device)
    for e in range(w.shape[0]):
        lo, hi = int(offsets[e]), int(offsets[e + 1])
        out[lo:hi] = (x[lo:hi].double() @ w[e].double().T).float()
    return out
