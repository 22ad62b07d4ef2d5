#!/bin/bash
# The gpu-runtime eval on an H100/H200 (benchmarks/RESULTS.md, "Throughput, issue 15 part 5 continued"): the stage
# profile of two tasks, the reference agent on the three tasks last run there first, the noop agent on all thirteen,
# and the GPU negative controls; then the per-task table. Run from a checkout root on the device, the wheels in
# .whl/ (see /work/.library/device/README.md):
#   bash benchmarks/gpu_tasks_device.sh     # about 6 min on an H100; logs and runs.tgz under $OUT
set -u -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}
mkdir -p "$O"
ALL=bias-silu-residual-fusion,rmsnorm-spills,decode-attention-split-kv,int8-dequant-gemm-fusion,cross-entropy-online
ALL=$ALL,column-sum-coalesce,gemm-software-pipeline,attention-flash-fusion,sgemm-register-tiling,histogram-privatize
ALL=$ALL,gemv-warp-per-row,axpby-loads-in-flight,fir-local-memory
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee "$O/gpu.txt"
(time python3 benchmarks/bench_eval_stages.py --task bias-silu-residual-fusion --task gemv-warp-per-row) 2>&1 | tee "$O/stages.log"
(time python3 -m tools.cli eval run --agent reference --out /tmp/runs \
    --tasks rmsnorm-spills,int8-dequant-gemm-fusion,sgemm-register-tiling) 2>&1 | tee "$O/reference.log"
(time python3 -m tools.cli eval run --agent noop --out /tmp/runs --tasks "$ALL") 2>&1 | tee "$O/noop.log"
(time python3 -m tools.cli eval controls --only correct-but-slower --only timer-monkeypatch-gpu \
    --only side-stream-gpu --out /tmp/controls) 2>&1 | tee "$O/controls.log"
python3 benchmarks/eval_task_seconds.py /tmp/runs > "$O/seconds.txt"
tar czf "$O/runs.tgz" -C /tmp runs controls
