#!/bin/bash
# Issue 25 "cluster throughput": the gpu-runtime track (reference agent) through Dask on this host's GPUs (one
# `eval worker` per GPU, two jobs per GPU) against the single-host runner on ONE GPU. Run from a checkout root on a
# 2-GPU device machine, the wheels (pydantic, dask, distributed, ...) in .whl/:
#   bash benchmarks/cluster_throughput_device.sh dask     # ~4 min on 2x H100; logs under $OUT
#   bash benchmarks/cluster_throughput_device.sh single   # ~5.5 min: the same track on GPU 0 alone
# Run both on the same (warm) machine, Dask first (cold Triton caches: the conservative order for the claim).
MODE=${1:-dask}
# the 16 gpu-runtime tasks of the earlier figures (the open-ended ones are timed by open_tasks_device.sh)
TASKS=${TASKS:-axpby-loads-in-flight,attention-flash-fusion,bias-silu-residual-fusion,column-sum-coalesce,cross-entropy-online,decode-attention-split-kv,fir-local-memory,gemm-software-pipeline,gemv-warp-per-row,histogram-privatize,int8-dequant-gemm-fusion,matmul-tiling,rmsnorm-spills,sgemm-register-tiling,softmax-fusion,transpose-smem}
set -u -o pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0
O=${OUT:-/tmp/out}
mkdir -p "$O"
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$O/gpu.txt"
echo "nproc $(nproc) cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null) OMP_NUM_THREADS=${OMP_NUM_THREADS-unset}" | tee -a "$O/gpu.txt"
# where each run's scoring time went: every stage's seconds summed over the tasks (TaskScore.stage_seconds)
stages() {
  python3 -c "import json,glob,sys; t={}
for f in glob.glob(sys.argv[1]+'/reference/*.json'):
    for k,v in json.load(open(f)).get('stage_seconds',{}).items(): t[k]=t.get(k,0)+v
print(sys.argv[2], {k: round(v,1) for k,v in t.items()})" "$1" "$2" | tee -a "$O/stages.txt"
}
(vmstat 5 > "$O/vmstat-$MODE.txt" 2>&1 &) ; VMSTAT_STARTED=1
if [ "$MODE" = dask ]; then
python3 -m distributed.cli.dask_scheduler --host 127.0.0.1 --port 8786 --dashboard-address :0 >"$O/scheduler.log" 2>&1 &
SCHED=$!
sleep 3
python3 -m tools.cli eval worker --scheduler tcp://127.0.0.1:8786 >"$O/worker.log" 2>&1 &
WORKER=$!
for _ in $(seq 60); do
  n=$(python3 -c "import distributed; c=distributed.Client('tcp://127.0.0.1:8786', timeout=10); print(len(c.scheduler_info()['workers']))" 2>/dev/null)
  [ "${n:-0}" -ge 2 ] && break
  sleep 1
done
echo "dask workers: ${n:-0}" | tee -a "$O/gpu.txt"
s=$(date +%s.%N)
timeout -k 10 330 python3 -m tools.cli eval run --agent reference --tasks "$TASKS" --out /tmp/dask \
    --cluster tcp://127.0.0.1:8786 2>&1 | tee "$O/dask.log"
e=$(date +%s.%N)
echo "dask_2gpu_wall_s $(python3 -c "print(round($e-$s,1))")" | tee -a "$O/walls.txt"
stages /tmp/dask dask
kill $WORKER $SCHED 2>/dev/null; wait $WORKER $SCHED 2>/dev/null
tar czf "$O/dask_runs.tgz" -C /tmp dask 2>/dev/null
else
s=$(date +%s.%N)
CUDA_VISIBLE_DEVICES=0 timeout -k 10 420 python3 -m tools.cli eval run --agent reference --tasks "$TASKS" \
    --out /tmp/one 2>&1 | tee "$O/single.log"
e=$(date +%s.%N)
echo "single_host_1gpu_wall_s $(python3 -c "print(round($e-$s,1))")" | tee -a "$O/walls.txt"
stages /tmp/one single
tar czf "$O/single_runs.tgz" -C /tmp one 2>/dev/null
fi
pkill -f "vmstat 5" 2>/dev/null
true
