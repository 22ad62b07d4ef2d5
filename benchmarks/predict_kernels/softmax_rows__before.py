"""Softmax, one row per program of 4 warps (262144 programs) (softmax_rows: before)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from softmax_kernels import entry, run

CONFIG = (1, 4)  # rows per program, num_warps


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
