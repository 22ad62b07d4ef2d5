"""Reference for paged-decode-prefetch: gather each sequence's blocks, dequantise, softmax(q·K) · V in fp64."""

import torch

BLOCK, D = 16, 128


def make_inputs(params, gen, device):
    seqs, blocks, pool = params["seqs"], params["blocks"], params["pool"]
    q = torch.randn(seqs, D, generator=gen, device=device) * 0.05
    k = torch.randint(-127, 128, (pool, BLOCK, D), generator=gen, device=device, dtype=torch.int8)
    v = torch.randint(-127, 128, (pool, BLOCK, D), generator=gen, device=device, dtype=torch.int8)
    scales = torch.rand(pool, generator=gen, device=device) * 0.02 + 0.005
    table = torch.randint(0, pool, (seqs, blocks), generator=gen, device=device, dtype=torch.int32)
    return q, k, v, scales, table, torch.tensor(blocks, dtype=torch.int32)


def reference(q, k_cache, v_cache, scales, table, num_blocks):
    n = int(num_blocks.item())
    idx = table[:, :n].long()
    s = scales.double()[idx][:, :, None, None]
    k = (k_cache.double()[idx] * s).flatten(1, 2)
    v = (v_cache.double()[idx] * s).flatten(1, 2)
    att = torch.softmax(torch.einsum("sd,std->st", q.double(), k), dim=-1)
    return torch.einsum("st,std->sd", att, v).float()
