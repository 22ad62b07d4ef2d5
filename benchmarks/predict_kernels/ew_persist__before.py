"""axpy, one 1024-value block per program: 65536 programs (ew_persist: before)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from ew_kernels import entry, run

CONFIG = (1024, None, 4)  # BLOCK, persistent programs (None: one block per program), num_warps


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
