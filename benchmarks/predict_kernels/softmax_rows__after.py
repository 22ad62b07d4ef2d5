"""Softmax, 16 rows per program of 4 warps (16384 programs) (softmax_rows: after)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from softmax_kernels import entry, run

CONFIG = (16, 4)  # rows per program, num_warps


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
