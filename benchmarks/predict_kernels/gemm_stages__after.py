"""GEMM with 64x64 tiles, 3 stages: the next tiles load while this one multiplies (gemm_stages: after)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from gemm_kernels import entry, run

CONFIG = (64, 64, 64, 4, 3)  # BM, BN, BK, num_warps, num_stages


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
