"""Reference for amd-embedding-bag-chain: the bag sums of gathered rows in fp64."""

import torch


def make_inputs(params, gen, device):
    B, L, V, D = params["B"], params["L"], params["V"], params["D"]
    idx = torch.randint(0, V, (B, L), generator=gen, device=device, dtype=torch.int32)
    weight = torch.randn(V, D, generator=gen, device=device).half()
    return idx, weight


def reference(idx, weight):
    return weight.double()[idx.long()].sum(1).float()
