"""Reference for the MoE router in fp64: the renormalised top-k weights, then the expert indices (as floats).

The logits (fp32, or fp16 for ``bits: 16``) lie on a 1/4 grid with unit spread, so equal logits are common, at the
k-th place too (in most tokens of 128 experts): the order puts the lower expert index first. Distinct logits on the
grid stay distinct through an fp32 softmax (their probabilities differ by a factor e^0.25 at least)."""

import torch


def make_inputs(params, gen, device):
    T, E, topk = int(params["T"]), int(params["E"]), int(params["topk"])
    dtype = {16: torch.float16, 32: torch.float32}[int(params.get("bits", 32))]
    logits = ((torch.randn(T, E, generator=gen) * 4).round() / 4).to(dtype)
    return logits.to(device), topk


def reference(logits, topk):
    x = logits.double()
    p = torch.softmax(x, dim=1)
    # a stable descending sort keeps equal logits in expert order: the lower index first
    idx = torch.sort(x, dim=1, descending=True, stable=True).indices[:, :topk]
    w = torch.gather(p, 1, idx)
    return torch.cat((w / w.sum(dim=1, keepdim=True), idx.double()), dim=1)
