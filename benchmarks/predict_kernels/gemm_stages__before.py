"""GEMM with 64x64 tiles and no pipelining: each iteration waits for its own tile loads (gemm_stages: before)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from gemm_kernels import entry, run

CONFIG = (64, 64, 64, 4, 1)  # BM, BN, BK, num_warps, num_stages


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
