"""The loaded-length row sum of loadedlen_kernels.py with full lengths (loadedlen: full)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from loadedlen_kernels import entry, run

KIND = "full"


def kernelpilot_entry():
    return entry(KIND)


def kernelpilot_run(device):
    return run(device, KIND)
