#!/bin/bash
# What is left to run on an H100 for the issue-15 gpu-runtime tasks (benchmarks/RESULTS.md says why): the reference
# agent on the three tasks the first call did not reach and the noop agent on all thirteen, one eval run each.
# Run from a checkout root on the device, the wheels in .whl/ (see /work/.library/device/README.md):
#   bash benchmarks/gpu_tasks_device.sh            # about 16 x 28 s; results tarred into $OUT/runs.tgz
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
ALL=bias-silu-residual-fusion,rmsnorm-spills,decode-attention-split-kv,int8-dequant-gemm-fusion,cross-entropy-online
ALL=$ALL,column-sum-coalesce,gemm-software-pipeline,attention-flash-fusion,sgemm-register-tiling,histogram-privatize
ALL=$ALL,gemv-warp-per-row,axpby-loads-in-flight,fir-local-memory
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
time python3 -m tools.cli eval run --agent reference --out /tmp/runs \
    --tasks rmsnorm-spills,int8-dequant-gemm-fusion,sgemm-register-tiling 2>&1 | tee "$OUT/reference.log"
time python3 -m tools.cli eval run --agent noop --out /tmp/runs --tasks "$ALL" 2>&1 | tee "$OUT/noop.log"
tar czf "$OUT/runs.tgz" -C /tmp runs
