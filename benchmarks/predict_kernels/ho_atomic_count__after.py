"""Held-out pair ho_atomic_count (after): see atomic_kernels.py."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from atomic_kernels import entry, run


def kernelpilot_entry():
    return entry("count", "after")


def kernelpilot_run(device):
    return run(device, "count", "after")
