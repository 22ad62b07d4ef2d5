"""Held-out pair ho_atomicz_embed (before): see atomic3_kernels.py."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from atomic3_kernels import entry, run


def kernelpilot_entry():
    return entry("embed", "before")


def kernelpilot_run(device):
    return run(device, "embed", "before")
