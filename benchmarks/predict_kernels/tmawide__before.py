"""bf16 TMA GEMM 8192x8192x2048, tiled (pair tmawide: tiled is the before; tma_kernels.py)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from tma_kernels import entry, run

CONFIG = ("tiled", 8192, 8192, 2048)  # kind, M, N, K


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
