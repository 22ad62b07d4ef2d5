"""Matrix copy, one program per row, consecutive threads on consecutive addresses (coalesced) (copy_coalesce: after)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from copy_kernels import entry, run

COALESCED = True


def kernelpilot_entry():
    return entry(COALESCED)


def kernelpilot_run(device):
    return run(device, COALESCED)
