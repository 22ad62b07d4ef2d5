"""Held-out pair ho_gather (before): see holdout_kernels.py."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from holdout_kernels import entry, run


def kernelpilot_entry():
    return entry("gather", "before")


def kernelpilot_run(device):
    return run(device, "gather", "before")
