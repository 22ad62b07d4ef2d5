"""How much of a gpu-runtime task's timed window is the kernel, and how much is the host launching it: the task's
baseline and reference solution timed in this one process three ways, rounds interleaved.

    python benchmarks/eval_timing_methods.py TASK [TASK...] [--rounds 10] [--calls 10] [--pin CPU]

- ``idle-start``: the eval harness before 2026-11-23 (session 4): fresh inputs, L2 flush, synchronise, then start
  event, call, end event, synchronise. The GPU is idle when the start event fires, so the window also holds the
  host's launch of the call (Python, the Triton launcher, allocations).
- ``queued``: fresh inputs, L2 flush, then start event, call, end event with no synchronise in between: the flush
  still runs while the host launches, so the window starts when the flush ends (``triton.testing.do_bench``'s
  way, and ``tools.profilers.timing.EventTimer``'s).
- ``fixed-queued``: ``queued`` on three input sets made once (``benchmarks/gpu_tasks_bench.py``'s way).

Also printed: the host's own time to return from the call (``launch``) — the part of ``idle-start`` that is not
the kernel — and, with ``--pin``, the CPU this process ran on.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _bench_module():
    spec = importlib.util.spec_from_file_location("gpu_tasks_bench", HERE / "gpu_tasks_bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _time(method: str, fn, make, flush, calls: int, seed0: int):
    ev, host, launch = [], [], []
    fixed = [make(seed0 + i) for i in range(3)] if method == "fixed-queued" else None
    for c in range(calls):
        inputs = fixed[c % 3] if fixed else make(seed0 + c)
        flush.zero_()
        if method == "idle-start":
            torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        start.record()
        fn(*inputs)
        t1 = time.perf_counter()
        end.record()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        ev.append(start.elapsed_time(end))
        host.append((t2 - t0) * 1e3)
        launch.append((t1 - t0) * 1e3)
    return statistics.median(ev), statistics.median(host), statistics.median(launch)


def run_task(bench, task_dir: Path, tmp: Path, flush, rounds: int, calls: int) -> None:
    spec = yaml.safe_load((task_dir / "task.yaml").read_text())
    ref_mod = bench._import(task_dir / "workspace" / spec["correctness"].get("reference", "reference.py"), "ref")
    sol = bench.solution_dir(task_dir, tmp)
    fns = {
        "baseline": bench.build(task_dir, spec, task_dir / "workspace", tmp, None, f"{task_dir.name}-base"),
        "solution": bench.build(task_dir, spec, sol, tmp, None, f"{task_dir.name}-sol"),
    }
    params = spec["performance"]["shapes"][0]["params"]

    def make(seed):
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        return ref_mod.make_inputs(params, gen, "cuda")

    for fn in fns.values():  # compile and warm
        for _ in range(3):
            fn(*make(1))
    torch.cuda.synchronize()
    methods = ("idle-start", "queued", "fixed-queued")
    per = {(m, k): [] for m in methods for k in fns}
    for r in range(rounds):
        for m in methods:
            order = list(fns) if r % 2 == 0 else list(fns)[::-1]
            for k in order:
                per[(m, k)].append(_time(m, fns[k], make, flush, calls, 1000 * r))
    for m in methods:
        b = [x[0] for x in per[(m, "baseline")]]
        s = [x[0] for x in per[(m, "solution")]]
        bl = statistics.median(x[2] for x in per[(m, "baseline")])
        sl = statistics.median(x[2] for x in per[(m, "solution")])
        bh = statistics.median(x[1] for x in per[(m, "baseline")])
        sh = statistics.median(x[1] for x in per[(m, "solution")])
        mb, ms = statistics.median(b), statistics.median(s)
        spread = max(s) / min(s) if min(s) > 0 else float("nan")
        print(
            f"{task_dir.name:28s} {m:13s} base {mb:8.4f} ms  sol {ms:8.4f} ms  {mb / ms:5.2f}x  "
            f"host {bh:7.4f}/{sh:7.4f} ms  launch {bl:6.4f}/{sl:6.4f} ms  sol rounds max/min {spread:4.2f}",
            flush=True,
        )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks", nargs="+")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--pin", type=int, help="run this process on this CPU only")
    args = ap.parse_args()
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})
    bench = _bench_module()
    print(f"{torch.cuda.get_device_name()}, pid {os.getpid()}, CPUs {sorted(os.sched_getaffinity(0))[:4]}...")
    flush = torch.empty(512 << 18, dtype=torch.float32, device="cuda")
    tmp = Path(tempfile.mkdtemp(prefix="kp-methods-"))
    for t in args.tasks:
        try:
            run_task(bench, REPO / "evals" / "tasks" / t, tmp, flush, args.rounds, args.calls)
        except Exception as exc:  # one broken task does not hide the others' figures
            print(f"{t}: FAILED {type(exc).__name__}: {exc}"[:300], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
