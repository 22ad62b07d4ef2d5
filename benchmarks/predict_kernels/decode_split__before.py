"""Decode attention, one program per (batch, head) over the whole 16k context: 128 programs of 4 warps, one per SM
at most, so few bytes are in flight per SM (the before of decode_split)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from decode_kernels import run, tensors, whole_launches


def kernelpilot_entry():
    return whole_launches(*tensors("cpu"))


def kernelpilot_run(device):
    return run(device, whole_launches)
