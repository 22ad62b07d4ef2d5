"""int8 GEMV, 16 rows per program, 16 x 256 weights per iteration, 8 warps (gemv_int8: after)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from gemv_int8_kernels import entry, run

CONFIG = (16, 256, 8)  # BLOCK_N, BLOCK_K, num_warps


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
