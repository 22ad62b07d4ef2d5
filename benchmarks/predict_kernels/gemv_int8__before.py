"""int8 GEMV, one row per program, 1024 weights per iteration (gemv_int8: before)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from gemv_int8_kernels import entry, run

CONFIG = (1, 1024, 4)  # BLOCK_N, BLOCK_K, num_warps


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
