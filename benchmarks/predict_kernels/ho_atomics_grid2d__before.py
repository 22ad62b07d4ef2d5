"""Held-out pair ho_atomics_grid2d (before): see atomic2_kernels.py."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from atomic2_kernels import entry, run


def kernelpilot_entry():
    return entry("grid2d", "before")


def kernelpilot_run(device):
    return run(device, "grid2d", "before")
