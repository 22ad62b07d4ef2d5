"""bf16 TMA GEMM 3072x3072x4096, persist (pair tmah3k: tiled is the before; tma_kernels.py).
Predicted before any run: benchmarks/predict_data/h200-2026-12-02-hop-frozen.md."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from tma_kernels import entry, run

CONFIG = ("persistent", 3072, 3072, 4096)  # kind, M, N, K


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
