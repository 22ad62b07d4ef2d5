"""Held-out pair ho_atomics_dwdb (before): see atomic2_kernels.py."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from atomic2_kernels import entry, run


def kernelpilot_entry():
    return entry("dwdb", "before")


def kernelpilot_run(device):
    return run(device, "dwdb", "before")
