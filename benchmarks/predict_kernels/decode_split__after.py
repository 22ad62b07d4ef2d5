"""Decode attention split over 32 context chunks per head (4096 programs) and a merge kernel: flash-decoding (the
after of decode_split; both launches in one list)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from decode_kernels import run, split_launches, tensors


def kernelpilot_entry():
    return split_launches(*tensors("cpu"))


def kernelpilot_run(device):
    return run(device, split_launches)
