"""Check and time the gpu-runtime eval tasks' baselines against their reference solutions on the GPU that is present,
before the (slower, stricter) `kernelpilot eval run`. One process, all tasks: the solution is the task's
solution.patch applied to a copy of its workspace; Triton variants override module constants of the solution
(e.g. ``{"OPTIONS": {...}}``) to compare configurations in the same run. A task that keeps a best-known answer in
``solutions/excellent.patch`` (the open-ended tasks) also gets the variant ``excellent`` (that patch applied to the
workspace), and its time over the solution's is printed as ``excellent/good``.

    python benchmarks/gpu_tasks_bench.py TASK [TASK...] [--variants variants.json] [--out results.json]

Per task: correctness of baseline and every variant on the public, hidden and performance shapes against the task's
fp64 reference (max abs error, pass/fail with the task's atol/rtol); then the performance shape timed with CUDA
events, inputs rotated over 3 sets and a 512 MiB L2 flush before every call, rounds interleaved; median ms,
speedup over the baseline and the fraction of speed-of-light from the task's bytes/flops and the device peaks.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch
import yaml

REPO = Path(__file__).resolve().parents[1]
EXCELLENT = "solutions/excellent.patch"  # the best answer we know, kept by the open-ended tasks
PEAKS = {"H100": (3.35e12, 989e12), "H200": (4.8e12, 989e12)}  # datasheet, as evals/harness/devices.py


def _import(path: Path, name: str):
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.path.pop(0)
    return mod


def solution_dir(task_dir: Path, tmp: Path, patch: str = "solution.patch", name: str = "solution") -> Path:
    sol = tmp / f"{task_dir.name}-{name}"
    shutil.copytree(task_dir / "workspace", sol)
    subprocess.run(["git", "apply", str(task_dir / patch)], cwd=sol, check=True)
    return sol


def build(task_dir: Path, spec: dict, code_dir: Path, tmp: Path, overrides: dict | None, tag: str):
    """The task's callable for one code folder (Triton: forward; CUDA: the task's loader)."""
    corr = spec["correctness"]
    if corr.get("loader"):
        file, _, fn = corr["loader"].partition(":")
        loader = getattr(_import(task_dir / "workspace" / file, f"loader_{tag}"), fn)
        return loader(code_dir, tmp / f"build-{tag}")
    file, _, fn = corr.get("entry", "kernel.py:forward").partition(":")
    mod = _import(code_dir / file, f"kernel_{tag}")
    for k, v in (overrides or {}).items():
        setattr(mod, k, v)
    return getattr(mod, fn)


def compare(ref, out, atol, rtol):
    if tuple(out.shape) != tuple(ref.shape):
        return False, float("nan")
    err = (out.double().cpu() - ref.double().cpu()).abs()
    ok = bool((err <= atol + rtol * ref.double().cpu().abs()).all()) and not torch.isnan(out.double()).any()
    return ok, float(err.max()) if err.numel() else 0.0


def sol_ms(spec: dict, params: dict, device_name: str) -> float | None:
    peaks = next((v for k, v in PEAKS.items() if k in device_name), None)
    perf = spec["performance"]
    if not peaks:
        return None
    t = 0.0
    if perf.get("bytes"):
        t = max(t, eval(perf["bytes"], {"__builtins__": {}}, dict(params)) / peaks[0])  # noqa: S307 - our task files
    if perf.get("flops"):
        t = max(t, eval(perf["flops"], {"__builtins__": {}}, dict(params)) / peaks[1])  # noqa: S307
    return t * 1e3


def time_fns(fns: dict, make, flush, rounds=3, calls=10):
    sets = [make(s) for s in range(3)]
    per = {k: [] for k in fns}
    for fn in fns.values():  # warm-up (compile, caches)
        fn(*sets[0])
    torch.cuda.synchronize()
    for r in range(rounds):
        order = list(fns) if r % 2 == 0 else list(reversed(list(fns)))
        for name in order:
            ts = []
            for c in range(calls):
                inputs = sets[c % 3]
                flush.zero_()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fns[name](*inputs)
                end.record()
                torch.cuda.synchronize()
                ts.append(start.elapsed_time(end))
            per[name].append(statistics.median(ts))
    return {k: statistics.median(v) for k, v in per.items()}


def run_task(task_dir: Path, variants: dict, tmp: Path, flush, device_name: str, prebuilt: dict) -> dict:
    spec = yaml.safe_load((task_dir / "task.yaml").read_text())
    ref_mod = _import(
        task_dir / "workspace" / spec["correctness"].get("reference", "reference.py"),
        "ref_" + task_dir.name.replace("-", "_"),
    )
    fns = prebuilt[task_dir.name]
    corr = spec["correctness"]
    perf_shape = spec["performance"]["shapes"][0]
    shapes = corr["shapes"] + corr.get("hidden_shapes", []) + [perf_shape]
    res = {"task": task_dir.name, "checks": {}, "ms": {}}
    refs: dict[int, torch.Tensor] = {}  # the fp64 reference once per shape, shared by the variants
    for name, fn in fns.items():
        oks, errs = [], []
        for i, shape in enumerate(shapes):
            gen = torch.Generator(device="cuda")
            gen.manual_seed(1234 + i)
            inputs = ref_mod.make_inputs(shape["params"], gen, "cuda")
            try:
                out = fn(*inputs)
                torch.cuda.synchronize()
                if i not in refs:
                    refs[i] = ref_mod.reference(*inputs)
                ok, err = compare(refs[i], out, float(corr["atol"]), float(corr["rtol"]))  # YAML may read 1e-05 as str
            except Exception as exc:  # a broken variant is reported, not fatal
                ok, err = False, float("nan")
                print(f"  {task_dir.name}/{name} {shape['name']}: {type(exc).__name__}: {exc}"[:300])
            oks.append(ok)
            errs.append(err)
        res["checks"][name] = {"ok": all(oks), "max_err": max(errs) if errs else None}

    def make(seed):
        gen = torch.Generator(device="cuda")
        gen.manual_seed(99 + seed)
        return ref_mod.make_inputs(perf_shape["params"], gen, "cuda")

    good = {k: v for k, v in fns.items() if res["checks"][k]["ok"] or k == "baseline"}
    res["ms"] = time_fns(good, make, flush)
    res["sol_ms"] = sol_ms(spec, perf_shape["params"], device_name)
    return res


class _Done:
    def __init__(self, fn, *a):
        try:
            self.value, self.exc = fn(*a), None
        except Exception as exc:
            self.value, self.exc = None, exc

    def result(self):
        if self.exc:
            raise self.exc
        return self.value


def _now(fn, *a):
    return _Done(fn, *a)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks", nargs="+")
    ap.add_argument("--variants", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    variants = json.loads(args.variants.read_text()) if args.variants else {}
    device_name = torch.cuda.get_device_name()
    flush = torch.empty(512 << 18, dtype=torch.float32, device="cuda")
    tmp = Path(tempfile.mkdtemp(prefix="kp-bench-"))
    t0 = time.perf_counter()
    dirs = [REPO / "evals" / "tasks" / t for t in args.tasks]
    # build everything first (nvcc in parallel threads; Triton compiles lazily at the first call)
    jobs = {}
    with ThreadPoolExecutor(16) as pool:
        for d in dirs:
            spec = yaml.safe_load((d / "task.yaml").read_text())
            sol = solution_dir(d, tmp)
            cuda = bool(spec["correctness"].get("loader"))  # nvcc in threads; Triton imports stay on this thread
            submit = pool.submit if cuda else _now
            jobs[(d.name, "baseline")] = submit(build, d, spec, d / "workspace", tmp, None, f"{d.name}-base")
            for vname, ov in {"solution": {}, **variants.get(d.name, {})}.items():
                jobs[(d.name, vname)] = submit(build, d, spec, sol, tmp, ov, f"{d.name}-{vname}")
            if (d / EXCELLENT).exists():
                best = solution_dir(d, tmp, EXCELLENT, "excellent")
                jobs[(d.name, "excellent")] = submit(build, d, spec, best, tmp, None, f"{d.name}-excellent")
    prebuilt: dict[str, dict] = {}
    for (task, vname), fut in jobs.items():
        try:
            prebuilt.setdefault(task, {})[vname] = fut.result()
        except Exception as exc:
            print(f"  build failed {task}/{vname}: {exc}"[:400])
    print(f"built in {time.perf_counter() - t0:.1f} s on {device_name}", flush=True)
    results = []
    for d in dirs:
        t1 = time.perf_counter()
        try:
            r = run_task(d, variants.get(d.name, {}), tmp, flush, device_name, prebuilt)
        except Exception as exc:
            print(f"{d.name}: FAILED {type(exc).__name__}: {exc}"[:400], flush=True)
            continue
        r["seconds"] = round(time.perf_counter() - t1, 1)
        results.append(r)
        base = r["ms"]["baseline"]
        for name, ms in r["ms"].items():
            frac = f"{r['sol_ms'] / ms:.2f}" if r["sol_ms"] else "-"
            c = r["checks"][name]
            print(
                f"{d.name:28s} {name:22s} {ms:9.4f} ms  {base / ms:6.2f}x  SOL {frac}  "
                f"{'ok' if c['ok'] else 'WRONG'} (max err {c['max_err']:.3g})",
                flush=True,
            )
        if "excellent" in r["ms"] and "solution" in r["ms"]:
            r["excellent_over_good"] = r["ms"]["solution"] / r["ms"]["excellent"]
            print(f"{d.name:28s} excellent/good {r['excellent_over_good']:.2f}x", flush=True)
    if args.out:
        args.out.write_text(
            json.dumps({"device": device_name, "date": time.strftime("%Y-%m-%d"), "results": results}, indent=1)
        )
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
