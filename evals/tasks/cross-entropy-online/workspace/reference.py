"""Reference for cross-entropy-online: per-row cross-entropy (no reduction) in fp64."""

import torch


def make_inputs(params, gen, device):
    M, V = params["M"], params["V"]
    logits = torch.randn(M, V, generator=gen, device=device) * 3
    target = torch.randint(0, V, (M,), generator=gen, device=device)
    return logits, target


def reference(logits, target):
    x = logits.double()
    return (torch.logsumexp(x, dim=-1) - x.gather(1, target[:, None])[:, 0]).float()
