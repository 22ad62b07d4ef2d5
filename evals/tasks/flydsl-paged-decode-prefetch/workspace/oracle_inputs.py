"""Inputs for the output oracle (`kernelpilot check`): the harness reads this file from the task folder."""

import torch

BLOCK_BYTES = 4096  # one KV block (kernel.py)


def kernelpilot_inputs(seed, n_blocks=32):
    """A block table of n_blocks + 2 random ids into a 64-block cache (a prefetch may read two entries ahead)."""
    g = torch.Generator().manual_seed(seed)
    kv = torch.randn(64 * BLOCK_BYTES // 4, generator=g)
    table = torch.randint(0, 64, (n_blocks + 2,), generator=g, dtype=torch.int32)
    scale = torch.rand(64, generator=g) + 0.5
    out = torch.randn(1024, generator=g)
    return None, (kv, table, scale, out, n_blocks)
