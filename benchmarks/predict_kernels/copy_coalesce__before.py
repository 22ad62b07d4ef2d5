"""Matrix copy, one program per column, threads strided by a row (uncoalesced) (copy_coalesce: before)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from copy_kernels import entry, run

COALESCED = False


def kernelpilot_entry():
    return entry(COALESCED)


def kernelpilot_run(device):
    return run(device, COALESCED)
