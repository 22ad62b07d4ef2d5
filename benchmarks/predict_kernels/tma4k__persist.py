"""bf16 TMA GEMM 4096x4096x4096, persistent (pair tma4k: tiled is the before; tma_kernels.py)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from tma_kernels import entry, run

CONFIG = ("persistent", 4096, 4096, 4096)  # kind, M, N, K


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
