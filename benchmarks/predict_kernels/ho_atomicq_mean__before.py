"""Held-out pair ho_atomicq_mean (before): see atomic4_kernels.py."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from atomic4_kernels import entry, run


def kernelpilot_entry():
    return entry("mean", "before")


def kernelpilot_run(device):
    return run(device, "mean", "before")
