"""bf16 warp-specialised TMA GEMM 2048x2048x16384, persistent (pair wslongk; ws_kernels.py; frozen in
benchmarks/predict_data/h200-2026-12-02-ws-frozen.md)."""

import triton  # noqa: F401 - kernelpilot tells a Triton file by its imports
from ws_kernels import entry, run

CONFIG = ("persistent", 2048, 2048, 16384)  # kind, M, N, K


def kernelpilot_entry():
    return entry(*CONFIG)


def kernelpilot_run(device):
    return run(device, *CONFIG)
