"""bf16 TMA GEMM 2048x2048x16384, tiled (pair tmalongk: tiled is the before; tma_kernels.py)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from tma_kernels import entry, run

CONFIG = ("tiled", 2048, 2048, 16384)  # kind, M, N, K


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
