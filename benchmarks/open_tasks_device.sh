#!/bin/bash
# The NVIDIA open-ended tasks (open-nv-*, issue 25) on an H100/H200: per task the baseline, the good solution
# (solution.patch) and the excellent one (solutions/excellent.patch) checked and timed side by side by
# benchmarks/gpu_tasks_bench.py, which prints `excellent/good` per task (issue 25 asks >= 1.3x); then the scorer with
# the reference agent (applies solution.patch: must pass) and the noop agent (the baseline: must fail), the two runs
# side by side (their GPU phases take turns on the per-GPU lock); then the per-task table. Run from a checkout root on
# the device, the wheels in .whl/ (see /work/.library/device/README.md):
#   bash benchmarks/open_tasks_device.sh [bench] [eval]   # both by default; under 6 min on an H100
# Logs, bench.json and runs.tgz under $OUT. The eval runs are cut at 150 s each to keep the whole under 6 min; on the
# same warm machine `bash benchmarks/open_tasks_device.sh eval` resumes them (finished tasks are skipped).
set -u -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}
mkdir -p "$O"
TASKS="open-nv-decode-gqa-paged open-nv-prefill-causal open-nv-blockscale-int8-gemm open-nv-moe-grouped-gemm"
TASKS="$TASKS open-nv-layernorm-backward open-nv-logsoftmax-vocab open-nv-linear-scan"
LIST=$(echo $TASKS | tr ' ' ,)
STAGES=${*:-bench eval}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee "$O/gpu.txt"
if [[ " $STAGES " == *" bench "* ]]; then
    # shellcheck disable=SC2086
    (time timeout 170 python3 benchmarks/gpu_tasks_bench.py $TASKS --out "$O/bench.json") 2>&1 | tee "$O/bench.log"
    echo "== excellent over good (solution.patch), H100 target >= 1.30x"
    grep "excellent/good" "$O/bench.log"
fi
if [[ " $STAGES " == *" eval "* ]]; then
    (time timeout 150 python3 -m tools.cli eval run --agent reference --out /tmp/runs --tasks "$LIST") \
        > "$O/reference.log" 2>&1 &
    (time timeout 150 python3 -m tools.cli eval run --agent noop --out /tmp/runs --tasks "$LIST") > "$O/noop.log" 2>&1 &
    wait
    tail -n 12 "$O/reference.log" "$O/noop.log"
    python3 benchmarks/eval_task_seconds.py /tmp/runs | tee "$O/seconds.txt"
    tar czf "$O/runs.tgz" -C /tmp runs
fi
