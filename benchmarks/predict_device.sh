#!/bin/bash
# Collect the speed model's validation data on an H100/H200 (issue 22; benchmarks/predict_data/FORMAT.md): every
# gpu-runtime task's baseline/reference/noop and every benchmarks/predict_kernels/ pair, timed with EventTimer, with
# Triton caches, SASS and launches. Run from a checkout root on the device, the wheels (pydantic, pyyaml...) in .whl/:
#   bash benchmarks/predict_device.sh        # about 6 min on an H100; $OUT/predict_data.tgz + collect.log + gpu.txt
#   DEADLINE=480 TIMEOUT=570 bash benchmarks/predict_device.sh --only gen. --calls 20   # the generated corpus
#     (benchmarks/predict_families: compiled and checked in parallel first, then timed; several
#     $OUT/predict_data-<i>.tgz when one pack would pass 16 MiB)
#   DEADLINE=330 TIMEOUT=450 bash benchmarks/predict_device.sh --only hold. --precompile-budget 120
#     (the second generated corpus, 400 variants; commit benchmarks/predict_freeze.py's predictions first)
set -u -o pipefail
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}
mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$O/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())" | tee -a "$O/gpu.txt"
# The collector stops starting variants after --deadline seconds and packs what it has; timeout is the hard guard.
timeout -k 10 "${TIMEOUT:-540}" python3 benchmarks/predict_collect.py --out "$O" --deadline "${DEADLINE:-420}" "$@" 2>&1 | tee "$O/collect.log"
rc=$?
if ! ls "$O"/predict_data*.tgz >/dev/null 2>&1 && [ -d "$O/predict_data" ]; then  # killed before packing: keep what was written
    find "$O/predict_data" \( -name '*.llir' -o -name '*.ptx' \) -delete
    tar czf "$O/predict_data.tgz" -C "$O" predict_data
fi
rm -rf "$O/predict_data"  # only the pack comes back (at most 8 files)
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader | tee -a "$O/gpu.txt"
ls -la "$O"
exit $rc
