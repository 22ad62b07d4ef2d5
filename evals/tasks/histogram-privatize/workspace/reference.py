"""Reference for histogram-privatize: 256-bin byte histogram as int32."""

import torch


def make_inputs(params, gen, device):
    n = int(params["n"])
    # a skewed distribution (like image or text bytes): half the bytes fall in 16 bins
    uniform = torch.randint(0, 256, (n,), generator=gen, device=device, dtype=torch.int32)
    narrow = torch.randint(96, 112, (n,), generator=gen, device=device, dtype=torch.int32)
    pick = torch.rand(n, generator=gen, device=device) < 0.5
    return (torch.where(pick, narrow, uniform).to(torch.uint8),)


def reference(data):
    return torch.bincount(data.long(), minlength=256).to(torch.int32)
