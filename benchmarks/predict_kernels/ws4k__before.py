"""bf16 warp-specialised TMA GEMM 4096x4096x4096, tiled: the before (pair ws4k; ws_kernels.py; frozen in
benchmarks/predict_data/h200-2026-12-02-ws-frozen.md)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from ws_kernels import entry, run

CONFIG = ("tiled", 4096, 4096, 4096)  # kind, M, N, K


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
