"""Held-out pair ho_atomicq_fast (after): see atomic4_kernels.py."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from atomic4_kernels import entry, run


def kernelpilot_entry():
    return entry("fast", "after")


def kernelpilot_run(device):
    return run(device, "fast", "after")
