"""Inputs for the output oracle (`kernelpilot check`): the harness reads this file from the task folder."""

import torch

TILE_ELEMS = 2048  # f16 elements per operand per k-tile (kernel.py)


def kernelpilot_inputs(seed, k_tiles=64):
    """A and B as distinct random f16 tensors of k_tiles tiles; C prefilled so unwritten elements show."""
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(k_tiles * TILE_ELEMS, generator=g).half()
    b = torch.randn(k_tiles * TILE_ELEMS, generator=g).half()
    c = torch.randn(1024, generator=g)
    return None, (a, b, c, k_tiles)
