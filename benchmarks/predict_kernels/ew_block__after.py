"""axpy with 1024 values per program of 4 warps: two 16-byte loads per thread per array (ew_block: after)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from ew_kernels import entry, run

CONFIG = (1024, None, 4)  # BLOCK, persistent programs (None: one block per program), num_warps


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
