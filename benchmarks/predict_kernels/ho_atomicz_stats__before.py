"""Held-out pair ho_atomicz_stats (before): see atomic3_kernels.py."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from atomic3_kernels import entry, run


def kernelpilot_entry():
    return entry("stats", "before")


def kernelpilot_run(device):
    return run(device, "stats", "before")
