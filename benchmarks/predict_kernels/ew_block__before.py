"""axpy with 128 values per program of 4 warps: one 4-byte load per thread per array (ew_block: before)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from ew_kernels import entry, run

CONFIG = (128, None, 4)  # BLOCK, persistent programs (None: one block per program), num_warps


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
