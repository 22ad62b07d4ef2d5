"""Collect what the GPU ran and how long it took, for validating the speed model (issue 22; layout in
benchmarks/predict_data/FORMAT.md). Runs on the GPU machine (``bash benchmarks/predict_device.sh``):

    python benchmarks/predict_collect.py --out $OUT [--only SUBSTR ...] [--calls 40] [--deadline 420]
    python benchmarks/predict_collect.py --list          # the variants and pairs, no GPU needed

Variants: every gpu-runtime eval task's baseline (workspace as shipped), reference (solution.patch applied to a copy)
and noop (the baseline again, imported or built again and timed on its own), every
``benchmarks/predict_kernels/<pair>__<role>.py``, and the generated corpora ``gen.<family>.<problem>.<design>``,
``hold.<family>.<problem>.<design>`` and ``fresh.<family>.<problem>.<design>`` (``benchmarks/predict_families``,
registry.CORPORA; ``--only gen.`` / ``--only hold.`` / ``--only fresh.``: compiled and checked in ``--workers`` processes first, then timed). Per variant: the call runs once with every Triton launch recorded (``JITFunction.run`` wrapped: grid, arguments, constexprs, the compiled kernel), once under torch.profiler (every GPU
kernel with grid, block, registers, duration; after the timing), timed with ``tools.profilers.timing.EventTimer`` (the eval
harness's timer: L2 flushed before each call); each variant compiles into its own fresh ``TRITON_CACHE_DIR``.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script: the repo's tools/ must import
    sys.path.insert(0, str(REPO))

from tools.executors import LOCAL  # noqa: E402
from tools.frontends._triton_jit import line_counts  # noqa: E402
from tools.toolchain import nvidia_tool  # noqa: E402

KERNELS_DIR = REPO / "benchmarks" / "predict_kernels"
FAMILIES_DIR = REPO / "benchmarks" / "predict_families"
TASKS_DIR = REPO / "evals" / "tasks"
TASK_ROLES = ("baseline", "reference", "noop")
TRITON_EXTS = (".ttir", ".ttgir", ".llir", ".ptx", ".cubin", ".json")
PACK_LIMIT = 16 * 1024 * 1024
FORMAT = 1


# --- what to run (pure, CPU) ---------------------------------------------------------------------------------------


@dataclass
class Variant:
    name: str  # task.<id>.<role>, pair.<pair>.<role>, gen|hold|fresh.<family>.<problem>.<design>
    kind: str  # task | pair | gen (every generated corpus: spec["corpus"] says which when it is not "gen")
    group: str  # task id, pair name, or <family>.<problem>
    role: str
    source: Path  # the file that is timed (task: the workspace entry or kernel.cu; pair: the variant file)
    language: str = "triton"
    spec: dict = field(default_factory=dict)  # task.yaml (tasks); gen: family, problem, design


def gpu_runtime_tasks(tasks_dir: Path = TASKS_DIR) -> list[tuple[Path, dict]]:
    import yaml

    out = []
    for task_yaml in sorted(tasks_dir.glob("*/task.yaml")):
        spec = yaml.safe_load(task_yaml.read_text())
        if spec.get("track") == "gpu-runtime":
            out.append((task_yaml.parent, spec))
    return out


def pair_files(kernels_dir: Path = KERNELS_DIR) -> dict[str, list[tuple[str, Path]]]:
    """``{pair: [(role, file), ...]}`` with ``before`` first, from ``<pair>__<role>.py`` names."""
    pairs: dict[str, list[tuple[str, Path]]] = {}
    for path in sorted(kernels_dir.glob("*__*.py")):
        pair, _, role = path.stem.partition("__")
        pairs.setdefault(pair, []).append((role, path))
    for roles in pairs.values():
        roles.sort(key=lambda rp: (rp[0] != "before", rp[0]))
    return pairs


def gen_variants(families_dir: Path = FAMILIES_DIR, corpus: str = "gen") -> list[Variant]:
    """A generated corpus (benchmarks/predict_families, ``corpus`` one of registry.CORPORA: ``gen``, the first,
    ``hold``, the second, or ``fresh``, the third): one variant per family x problem x design, named ``<corpus>.<family>.<problem>.
    <design>``, ordered
    design-round-robin (every problem's first design, then every problem's second, ...) so that a run cut short by
    its deadline keeps several designs of each problem rather than all of the first families."""
    if str(families_dir) not in sys.path:
        sys.path.insert(0, str(families_dir))
    import registry

    by_problem: dict[str, list[Variant]] = {}
    for family, problem, design, path in registry.enumerate_gen(families_dir, corpus):
        group = f"{family}.{problem}" if corpus == "gen" else f"{corpus}.{family}.{problem}"
        spec = {"family": family, "problem": problem, "design": design}
        by_problem.setdefault(group, []).append(
            Variant(
                name=f"{corpus}.{family}.{problem}.{design}",
                kind="gen",
                group=group,
                role=design,
                source=path,
                spec=spec if corpus == "gen" else spec | {"corpus": corpus},
            )
        )
    out = []
    for i in range(max((len(v) for v in by_problem.values()), default=0)):
        out += [designs[i] for designs in by_problem.values() if i < len(designs)]
    return out


def enumerate_variants(
    tasks_dir: Path = TASKS_DIR, kernels_dir: Path = KERNELS_DIR, families_dir: Path | None = FAMILIES_DIR
) -> list[Variant]:
    variants = []
    for task_dir, spec in gpu_runtime_tasks(tasks_dir):
        corr = spec["correctness"]
        cuda = bool(corr.get("loader"))
        entry = "kernel.cu" if cuda else corr.get("entry", "kernel.py:forward").partition(":")[0]
        for role in TASK_ROLES:
            variants.append(
                Variant(
                    name=f"task.{task_dir.name}.{role}",
                    kind="task",
                    group=task_dir.name,
                    role=role,
                    source=task_dir / "workspace" / entry,
                    language="cuda" if cuda else "triton",
                    spec=spec,
                )
            )
    for pair, roles in pair_files(kernels_dir).items():
        for role, path in roles:
            variants.append(Variant(name=f"pair.{pair}.{role}", kind="pair", group=pair, role=role, source=path))
    if families_dir is not None:
        if str(families_dir) not in sys.path:
            sys.path.insert(0, str(families_dir))
        import registry

        variants += [v for corpus in registry.CORPORA for v in gen_variants(families_dir, corpus)]  # every corpus
    return variants


def variant_pairs(variants: list[Variant]) -> list[dict]:
    """baseline->reference and baseline->noop per task; before->every other role per pair; every two designs of
    one generated problem (design->design, in design order)."""
    by_group: dict[tuple[str, str], dict[str, str]] = {}
    for v in variants:
        by_group.setdefault((v.kind, v.group), {})[v.role] = v.name
    out = []
    for (kind, _), roles in by_group.items():
        if kind == "gen":
            names = list(roles.values())
            out += [
                {"before": a, "after": b, "kind": "design->design"} for i, a in enumerate(names) for b in names[i + 1 :]
            ]
            continue
        first = roles.get("baseline" if kind == "task" else "before")
        if first is None:
            continue
        for role, name in roles.items():
            if name == first:
                continue
            label = f"baseline->{role}" if kind == "task" else "before->after"
            out.append({"before": first, "after": name, "kind": label})
    return out


def task_code_dir(task_dir: Path, role: str, tmp: Path) -> Path:
    """A private copy of the task's workspace; the reference has ``solution.patch`` applied (as the eval does)."""
    dest = tmp / f"{task_dir.name}-{role}"
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(task_dir / "workspace", dest)
    if role == "reference":
        result = LOCAL.run(["git", "apply", str(task_dir / "solution.patch")], cwd=dest, timeout=60)
        if not result.ok:
            raise RuntimeError(f"git apply {task_dir.name}/solution.patch failed: {result.stderr[-500:]}")
    return dest


# --- describing a launch (pure given its objects) ------------------------------------------------------------------


MAX_VALUES = 1024  # as tools/frontends/_triton_jit.MAX_RECORDED_VALUES: a batch's lengths, not a table


def small_int_values(value) -> list[int] | None:
    """An integer tensor's elements (at most MAX_VALUES; copied to the host once, at recording): a loop bound the
    kernel loads from it is evaluated on them (FORMAT.md ``values``)."""
    if not str(value.dtype).startswith(("torch.int", "torch.uint")) or value.numel() > MAX_VALUES:
        return None
    return [int(v) for v in value.detach().flatten().cpu().tolist()]


def describe_value(name: str, value) -> dict:
    """One runtime argument as FORMAT.md's ``args`` entry."""
    if hasattr(value, "data_ptr") and hasattr(value, "shape"):
        return {
            "name": name,
            "kind": "tensor",
            "shape": list(value.shape),
            "dtype": str(value.dtype).removeprefix("torch."),
            "nbytes": int(value.numel() * value.element_size()),
            "stride": list(value.stride()),
            "values": small_int_values(value),
            "hottest": line_counts(value),  # a larger integer tensor's skew, as dump-ir records it (FORMAT.md)
        }
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"name": name, "kind": "scalar", "value": value}
    return {"name": name, "kind": "other", "value": repr(value)[:200]}


def _plain(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "__name__"):
        return value.__name__
    return repr(value)[:200]


def triton_launch_record(jit_fn, args: tuple, kwargs: dict, grid, compiled) -> dict:
    """FORMAT.md's launch entry for one ``jit_fn[grid](*args, **kwargs)`` that ran ``compiled``."""
    sig = inspect.signature(jit_fn.fn)
    bound = sig.bind_partial(*args, **{k: v for k, v in kwargs.items() if k in sig.parameters})
    bound.apply_defaults()
    values = dict(bound.arguments)
    if callable(grid):
        grid = grid(values)
    grid = [int(g) for g in (grid if isinstance(grid, (tuple, list)) else (grid,))]
    grid += [1] * (3 - len(grid))
    constexpr_names = {p.name for p in jit_fn.params if p.is_constexpr}
    md = compiled.metadata
    num_warps = int(md.num_warps)
    return {
        "kernel": md.name,
        "grid": grid,
        "block": [num_warps * 32, 1, 1],
        "num_warps": num_warps,
        "num_stages": int(md.num_stages),
        "num_ctas": int(getattr(md, "num_ctas", 1)),
        "shared": int(md.shared),
        "registers": None,
        "args": [describe_value(n, values.get(n)) for n in sig.parameters if n not in constexpr_names],
        "constexprs": {n: _plain(values.get(n)) for n in sig.parameters if n in constexpr_names},
        "hash": compiled.hash,
        "profiled_us": None,
        "capture": "triton-jit",
        "_compiled": compiled,
    }


class LaunchRecorder:
    """Records every Triton launch while active: wraps ``JITFunction.run`` (the one path ``kernel[grid](...)`` and
    the autotuner take)."""

    def __init__(self) -> None:
        from triton.runtime.jit import JITFunction

        self.records: list[dict] = []
        self.errors: list[str] = []
        self.active = False
        self._cls = JITFunction
        self._orig = JITFunction.run
        recorder = self

        def run(jit_self, *args, grid, warmup, **kwargs):
            kernel = recorder._orig(jit_self, *args, grid=grid, warmup=warmup, **kwargs)
            if recorder.active and not warmup and kernel is not None:
                try:
                    recorder.records.append(triton_launch_record(jit_self, args, kwargs, grid, kernel))
                except Exception as exc:  # a record we cannot make is reported, the launch still ran
                    recorder.errors.append(f"{getattr(jit_self, '__name__', '?')}: {type(exc).__name__}: {exc}")
            return kernel

        JITFunction.run = run

    @contextlib.contextmanager
    def recording(self):
        self.records, self.errors, self.active = [], [], True
        try:
            yield self
        finally:
            self.active = False


def merge_launches(traced: list[dict], recorded: list[dict]) -> list[dict]:
    """The call's launches in order: the profiler's kernels (every GPU op) matched by name to the Triton records;
    without a trace, the Triton records alone."""
    if not traced:
        return [dict(r) for r in recorded]
    pending = list(recorded)
    out = []
    for t in traced:
        match = next((r for r in pending if r["kernel"] == t["kernel"]), None)
        if match is not None:
            pending.remove(match)
            merged = dict(match)
            merged["op"] = t.get("op", "kernel")
            merged["registers"] = t.get("registers")
            merged["profiled_us"] = t.get("profiled_us")
            if t.get("grid") and t["grid"] != match["grid"]:
                merged["notes"] = [f"profiler grid {t['grid']} differs from the recorded {match['grid']}"]
            out.append(merged)
        else:
            out.append(dict(t))
    for r in pending:  # recorded but not seen by the profiler: keep, say so
        out.append({**r, "notes": ["not in the profiler trace"]})
    return out


def trace_kernels(trace: dict) -> list[dict]:
    """GPU kernels, memsets and memcpys of a chrome trace (torch.profiler), in start order, as launch entries."""
    ops = []
    for ev in trace.get("traceEvents", []):
        cat = ev.get("cat", "")
        if cat not in ("kernel", "gpu_memset", "gpu_memcpy"):
            continue
        a = ev.get("args", {})
        entry = {
            "kernel": ev.get("name", "?"),
            "op": {"kernel": "kernel", "gpu_memset": "memset", "gpu_memcpy": "memcpy"}[cat],
            "grid": a.get("grid"),
            "block": a.get("block"),
            "num_warps": (a["block"][0] * a["block"][1] * a["block"][2]) // 32 if a.get("block") else None,
            "num_stages": None,
            "shared": a.get("shared memory"),
            "registers": a.get("registers per thread"),
            "args": None,
            "constexprs": None,
            "hash": None,
            "profiled_us": ev.get("dur"),
            "capture": "profiler",
            "_ts": ev.get("ts", 0),
        }
        ops.append(entry)
    ops.sort(key=lambda e: e["_ts"])
    for e in ops:
        del e["_ts"]
    return ops


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, indent=1, default=str) + "\n")


# --- artifacts -------------------------------------------------------------------------------------------------------


def disassemble(cubin: Path, out: Path) -> str | None:
    """nvdisasm -c of a cubin into ``out``; the text, or None when nvdisasm is missing or fails."""
    tool = nvidia_tool("nvdisasm")
    if not tool:
        return None
    result = LOCAL.run([tool, "-c", str(cubin)], timeout=120, max_capture=1 << 30)  # whole SASS, never capped
    if not result.ok:
        return None
    out.write_text(result.stdout)
    return result.stdout


def save_triton_kernel(compiled, folder: Path) -> dict:
    """Copy one compiled kernel's cache files into ``folder/triton/<hash>/`` and disassemble its cubin; the launch's
    ``artifacts`` and ``files`` entries (paths relative to ``folder``)."""
    rel = Path("triton") / compiled.hash
    dest = folder / rel
    dest.mkdir(parents=True, exist_ok=True)
    name = compiled.metadata.name
    group = getattr(compiled, "metadata_group", None) or {}
    for file_name, src in group.items():
        if Path(file_name).suffix in TRITON_EXTS and Path(src).exists():
            shutil.copyfile(src, dest / Path(file_name).name)
    for ext, text in compiled.asm.items():  # whatever the cache did not hold (or no cache at all)
        target = dest / f"{name}.{ext}"
        if f".{ext}" in TRITON_EXTS and not target.exists():
            target.write_bytes(text) if isinstance(text, bytes) else target.write_text(text)
    files = {p.suffix[1:]: str(rel / p.name) for p in sorted(dest.iterdir()) if p.suffix in TRITON_EXTS}
    cubin = dest / f"{name}.cubin"
    ready = Path(group.get(f"{name}.cubin", "")).with_suffix(".sass")  # disassembled in the cache already (gen)
    if cubin.exists() and ready.name and ready.is_file():
        shutil.copyfile(ready, dest / f"{name}.sass")
        files["sass"] = str(rel / f"{name}.sass")
    elif cubin.exists() and disassemble(cubin, dest / f"{name}.sass") is not None:
        files["sass"] = str(rel / f"{name}.sass")
    return {"artifacts": str(rel), "files": files}


def save_launch_artifacts(launches: list[dict], folder: Path) -> None:
    """Files of every Triton launch (once per compiled kernel) and the variant's ``kernel.sass``."""
    saved: dict[str, dict] = {}
    parts = []
    for i, launch in enumerate(launches):
        launch["index"] = i
        compiled = launch.pop("_compiled", None)
        if compiled is None:
            continue
        if compiled.hash not in saved:
            saved[compiled.hash] = save_triton_kernel(compiled, folder)
            sass = saved[compiled.hash]["files"].get("sass")
            if sass:
                head = f"// ==== launch {i}: {launch['kernel']} ({saved[compiled.hash]['artifacts']})\n"
                parts.append(head + (folder / sass).read_text())
        launch.update(saved[compiled.hash])
    for i, launch in enumerate(launches):
        launch["index"] = i
    if parts:
        (folder / "kernel.sass").write_text("\n".join(parts))


def code_cubins(cubins: list[Path]) -> list[tuple[Path, str]]:
    """The cubins that hold at least one function, with their SASS, in the given order. A loader's .so can embed
    cubins with no code (1.5 KB, a 3-line listing): the H100 run of 2026-11-25 kept such a one as kernel.cubin."""
    from tools.isa.sass import parse_sass

    out = []
    for cubin in cubins:
        sass = disassemble(cubin, cubin.with_suffix(".sass"))
        cubin.with_suffix(".sass").unlink(missing_ok=True)
        if sass is not None and parse_sass(sass):
            out.append((cubin, sass))
    return out


def save_cuda_artifacts(build_dir: Path, folder: Path) -> tuple[dict, list[str]]:
    """cuobjdump the loader's shared library: cuda/kernel.cubin (the first cubin with code; further ones as
    kernel.<i>.cubin), cuda/kernel.sass (the SASS of all of them), cuda/res_usage.txt."""
    notes = []
    libs = sorted(build_dir.glob("*.so"))
    cuobjdump = nvidia_tool("cuobjdump")
    if not libs or not cuobjdump:
        return {}, [f"CUDA artifacts: {'no .so in the build' if not libs else 'cuobjdump not found'}"]
    dest = folder / "cuda"
    dest.mkdir(parents=True, exist_ok=True)
    extract = LOCAL.run([cuobjdump, "-xelf", "all", str(libs[0])], cwd=dest, timeout=120)
    cubins = sorted(dest.glob("*.cubin"))
    if not extract.ok or not cubins:
        return {}, [f"cuobjdump -xelf failed: {extract.stderr[-300:]}"]
    with_code = code_cubins(cubins)
    for cubin in cubins:
        if cubin not in [c for c, _ in with_code]:
            cubin.unlink()
    if not with_code:
        return {}, [f"no cubin of {libs[0].name} holds a function ({len(cubins)} extracted)"]
    files = {}
    kept = []
    for i, (cubin, _) in enumerate(with_code):
        kept.append(cubin.rename(dest / ("kernel.cubin" if i == 0 else f"kernel.{i}.cubin")))
    files["cubin"] = "cuda/kernel.cubin"
    if len(kept) > 1:
        notes.append(f"{len(kept)} cubins hold code: kernel.sass lists them all, kernel.cubin is the first")
    (dest / "kernel.sass").write_text("\n".join(sass for _, sass in with_code))
    files["sass"] = "cuda/kernel.sass"
    shutil.copyfile(dest / "kernel.sass", folder / "kernel.sass")
    usage = [LOCAL.run([cuobjdump, "-res-usage", str(c)], timeout=120) for c in kept]
    if all(u.ok for u in usage):
        (dest / "res_usage.txt").write_text("".join(u.stdout for u in usage))
    return files, notes


# --- GPU side ------------------------------------------------------------------------------------------------------


def _import(path: Path, name: str):
    """Import ``path`` as a fresh module ``name``, its folder on sys.path meanwhile (predict_families.registry.load)."""
    if str(FAMILIES_DIR) not in sys.path:
        sys.path.insert(0, str(FAMILIES_DIR))
    import registry

    return registry.load(path, name)


def _fresh_triton_cache(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    os.environ["TRITON_CACHE_DIR"] = str(path)
    with contextlib.suppress(Exception):
        import triton

        triton.knobs.cache.dir = str(path)


def nvidia_smi() -> dict:
    tool = shutil.which("nvidia-smi")
    if not tool:
        return {}
    q = "name,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu"
    r = LOCAL.run([tool, f"--query-gpu={q}", "--format=csv,noheader,nounits"], timeout=30)
    if not r.ok or not r.stdout.strip():
        return {}
    f = [x.strip() for x in r.stdout.splitlines()[0].split(",")]

    def num(s):
        try:
            return int(float(s))
        except ValueError:
            return None

    return {"name": f[0], "sm_mhz": num(f[1]), "sm_max_mhz": num(f[2]), "mem_mhz": num(f[3]), "temp_c": num(f[4])}


def profile_call(torch, call) -> tuple[list[dict], str | None]:
    """One untimed call under torch.profiler: its GPU ops as launch entries (or an error)."""
    try:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            call()
            torch.cuda.synchronize()
        with tempfile.TemporaryDirectory() as tmp:
            trace_path = Path(tmp) / "trace.json"
            prof.export_chrome_trace(str(trace_path))
            return trace_kernels(json.loads(trace_path.read_text())), None
    except Exception as exc:
        return [], f"torch.profiler trace failed: {type(exc).__name__}: {exc}"[:300]


class Collector:
    def __init__(self, out: Path, calls: int, deadline_s: float) -> None:
        import torch
        import triton

        from tools.profilers.timing import EventTimer

        self.torch, self.triton = torch, triton
        self.out = out
        self.calls = calls
        self.deadline_s = deadline_s
        self.t0 = time.perf_counter()
        self.tmp = Path(tempfile.mkdtemp(prefix="kp-predict-"))
        self.timer = EventTimer(flush_l2=True)
        self.recorder = LaunchRecorder()
        self.smi = nvidia_smi()
        self.device = self.smi.get("name") or self.timer.name
        self.failed: list[dict] = []
        self.cuda_builds: dict[str, object] = {}
        self.prechecked: dict[str, dict] = {}  # gen variants: compiled and checked in parallel before the timing

    def log(self, msg: str) -> None:
        print(f"[{time.perf_counter() - self.t0:7.1f}s] {msg}", flush=True)

    # build --------------------------------------------------------------------------------------------------------
    def start_cuda_builds(self, variants: list[Variant]) -> None:
        """nvcc for every CUDA variant in parallel threads (the loader builds; Triton compiles lazily later)."""
        pool = ThreadPoolExecutor(16)
        for v in variants:
            if v.language == "cuda":
                code = task_code_dir(v.source.parent.parent, v.role, self.tmp)
                self.cuda_builds[v.name] = pool.submit(self._cuda_build, v, code)
        pool.shutdown(wait=False)

    def _cuda_build(self, v: Variant, code: Path):
        file, _, fn = v.spec["correctness"]["loader"].partition(":")
        loader = getattr(_import(code / file, f"loader_{v.name.replace('.', '_').replace('-', '_')}"), fn)
        build_dir = self.tmp / f"build-{v.name}"
        return loader(code, build_dir), build_dir

    def callable_for(self, v: Variant, cache: Path) -> tuple:
        """(call, shape, check or None, build_dir or None) of one variant."""
        torch = self.torch
        _fresh_triton_cache(cache)
        tag = v.name.replace(".", "_").replace("-", "_")
        if v.kind == "gen":
            import registry
            from gen_common import check as gen_check

            built = registry.build(v.source, v.spec["problem"], v.spec["design"], "cuda", name=f"kp_{tag}",
                                   corpus=v.spec.get("corpus", "gen"))  # fmt: skip
            checked = self.prechecked.get(v.name)
            check = (lambda: (checked["correct"], checked["detail"])) if checked else (lambda: gen_check(built))
            return (lambda: (built.launch(), None)[1]), built.shape, check, None
        if v.kind == "pair":
            run = _import(v.source, f"kp_{tag}").kernelpilot_run("cuda")
            launch = run["launch"]
            return (lambda: (launch(), None)[1]), run.get("shape", ""), run.get("check"), None
        task_dir = v.source.parent.parent
        spec = v.spec
        ref_mod = _import(task_dir / "workspace" / spec["correctness"].get("reference", "reference.py"), f"ref_{tag}")
        perf = spec["performance"]["shapes"][0]
        gen = torch.Generator(device="cuda")
        gen.manual_seed(99)
        inputs = ref_mod.make_inputs(perf["params"], gen, "cuda")
        if v.language == "cuda":
            fn, build_dir = self.cuda_builds[v.name].result()
        else:
            code = task_code_dir(task_dir, v.role, self.tmp)
            file, _, name = spec["correctness"].get("entry", "kernel.py:forward").partition(":")
            fn, build_dir = getattr(_import(code / file, f"kernel_{tag}"), name), None
        shape = f"{perf.get('name', 'perf')} {json.dumps(perf['params'], sort_keys=True)}"
        return (lambda: (fn(*inputs), None)[1]), shape, None, build_dir

    def _forget_modules(self, before: set[str]) -> None:
        """Drop the variant's own modules (its file, helpers, task workspace) so the next variant imports and
        compiles afresh; torch/triton submodules imported on the way stay."""
        ours = (str(KERNELS_DIR), str(TASKS_DIR), str(self.tmp), str(FAMILIES_DIR))
        for name in set(sys.modules) - before:
            path = getattr(sys.modules.get(name), "__file__", None) or ""
            if path.startswith(ours):
                sys.modules.pop(name, None)

    def precompile_gen(self, variants: list[Variant], workers: int, budget_s: float) -> list[Variant]:
        """Compile and check every generated variant in ``workers`` processes, each into the Triton cache its timing
        will use (gen_worker.precompile); the variants that ran, in order. One that crashes its worker (a CUDA
        error kills the process's context) is retried once in a fresh pool, then listed in ``failed``."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        if str(FAMILIES_DIR) not in sys.path:
            sys.path.insert(0, str(FAMILIES_DIR))
        import gen_worker

        gens = [v for v in variants if v.kind == "gen"]
        tool = nvidia_tool("nvdisasm")
        pending = {v.name: v for v in gens}
        tries: dict[str, int] = {}
        t0 = time.perf_counter()
        ctx = multiprocessing.get_context("spawn")
        while pending and time.perf_counter() - t0 < budget_s:
            pool = ProcessPoolExecutor(workers, mp_context=ctx)
            futures = [
                pool.submit(
                    gen_worker.precompile, v.name, str(v.source), v.spec["problem"], v.spec["design"],
                    str(self.tmp / "triton-cache" / v.name), tool, v.spec.get("corpus", "gen"),
                )
                for v in pending.values()
            ]  # fmt: skip
            broken = False
            try:
                for fut in as_completed(futures, timeout=max(1.0, budget_s - (time.perf_counter() - t0))):
                    res = fut.result()
                    pending.pop(res["name"], None)
                    self.prechecked[res["name"]] = res
                    state = "ERROR " + res["error"] if res["error"] else ("ok" if res["correct"] else "WRONG")
                    self.log(f"precompiled {res['name']}: {state} ({res['detail']}) in {res['seconds']} s")
            except BrokenProcessPool:
                broken = True
                self.log(f"precompile: a worker died; {len(pending)} variant(s) left, retried once")
            except TimeoutError:
                self.log(f"precompile: past {budget_s:.0f} s; still running or queued: {', '.join(list(pending)[:30])}")
            finally:  # a worker stuck in a kernel must not share the GPU with the timing: end ours, by process
                for proc in list((getattr(pool, "_processes", None) or {}).values()):
                    with contextlib.suppress(Exception):
                        proc.kill()
                pool.shutdown(wait=False, cancel_futures=True)
            if not broken:
                break
            for name in list(pending):
                tries[name] = tries.get(name, 0) + 1
                if tries[name] >= 2:
                    pending.pop(name)
                    self.prechecked[name] = {"name": name, "error": "its worker process died twice (CUDA error?)"}
        for name in pending:
            self.prechecked[name] = {"name": name, "error": f"not compiled and checked within {budget_s:.0f} s"}
        ran = []
        for v in gens:
            res = self.prechecked.get(v.name) or {}
            if res.get("error"):
                self.failed.append({"variant": v.name, "stage": "precompile", "error": res["error"]})
            else:
                ran.append(v)
        wrong = [v.name for v in ran if self.prechecked[v.name].get("correct") is False]
        self.log(
            f"precompiled {len(ran)} of {len(gens)} generated variants in {time.perf_counter() - t0:.1f} s "
            f"({workers} workers); {len(wrong)} incorrect: {', '.join(wrong[:20])}"
        )
        return ran

    # one variant --------------------------------------------------------------------------------------------------
    def collect(self, v: Variant) -> dict | None:
        """Run, record, time and save one variant; on any failure the variant is listed in ``failed``, not fatal."""
        before_mods = set(sys.modules)
        self._stage = "build"
        try:
            return self._collect(v)
        except Exception as exc:
            err = f"{type(exc).__name__}: {exc}"
            self.failed.append({"variant": v.name, "stage": self._stage, "error": err[:500]})
            self.log(f"{v.name}: FAILED at {self._stage}: {err[:300]}")
            traceback.print_exc(limit=4)
            shutil.rmtree(self.out / v.name, ignore_errors=True)
            return None
        finally:
            self._forget_modules(before_mods)
            self.torch.cuda.empty_cache()

    def _collect(self, v: Variant) -> dict:
        from tools.profilers.timing import summarize_times

        torch = self.torch
        folder = self.out / v.name
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        smi0 = nvidia_smi()
        call, shape, check, build_dir = self.callable_for(v, self.tmp / "triton-cache" / v.name)
        self._stage = "capture"
        call()  # compiles (and autotunes, if the kernel does) outside the recording
        torch.cuda.synchronize()
        with self.recorder.recording() as rec:
            call()
            torch.cuda.synchronize()
        recorded, record_errors = list(rec.records), list(rec.errors)
        self._stage = "time"
        self.timer.warm(call, 3)
        half = max(1, self.calls // 2)
        times = [c.event_us for c in self.timer.round(call, half)]
        times += [c.event_us for c in self.timer.round(call, self.calls - half)]
        stats = summarize_times(times)
        correct, detail = None, None
        if check is not None:
            self._stage = "check"
            correct, detail = check()
            correct = bool(correct)
        self._stage = "profile"  # after timing: the profiler's CUPTI set-up stays out of the measured calls
        traced, trace_error = profile_call(torch, call)
        self._stage = "save"
        launches = merge_launches(traced, recorded)
        not_captured = list(record_errors)
        if trace_error:
            not_captured.append(trace_error)
        if v.language == "cuda":
            files, notes = save_cuda_artifacts(build_dir, folder)
            not_captured += notes
            not_captured.append(
                "CUDA kernel arguments: the loader calls a C launcher; grid/block/shared/registers "
                "come from the profiler trace"
            )
            for launch in launches:
                if launch.get("op", "kernel") == "kernel":
                    launch.update({"artifacts": "cuda", "files": files})
        else:
            save_launch_artifacts(launches, folder)
        for i, launch in enumerate(launches):
            launch["index"] = i
        smi1 = nvidia_smi()
        meta = {
            "format": FORMAT,
            "name": v.name,
            "kind": v.kind,
            "group": v.group,
            "role": v.role if v.kind == "task" or v.role == "before" else ("design" if v.kind == "gen" else "after"),
            "variant_role": v.role,
            "language": v.language,
            "source": str(v.source.relative_to(REPO)),
            "shape": shape,
            "correct": correct,
            "check_detail": detail,
            "measured_us": stats.median_us,
            "iqr_us": stats.iqr_us,
            "q1_us": stats.q1_us,
            "q3_us": stats.q3_us,
            "min_us": stats.min_us,
            "samples": stats.samples,
            "times_us": [round(t, 3) for t in times],
            "flush_bytes": self.timer.flush_bytes,
            "launches": launches,
            "not_captured": not_captured,
            "device": self.device,
            "clocks": {
                "sm_mhz_start": smi0.get("sm_mhz"),
                "sm_mhz_end": smi1.get("sm_mhz"),
                "sm_max_mhz": smi1.get("sm_max_mhz"),
                "mem_mhz": smi1.get("mem_mhz"),
            },
            "triton": self.triton.__version__,
            "torch": self.torch.__version__,
            "seconds": round(time.perf_counter() - start, 2),
        }
        if v.kind == "gen":
            meta.update(v.spec)  # family, problem, design
            pre = self.prechecked.get(v.name) or {}
            meta["compile_check_seconds"] = pre.get("seconds")
        write_json(folder / "meta.json", meta)
        ok = "" if correct is None else (" ok" if correct else " WRONG")
        names = ",".join(sorted({launch["kernel"][:40] for launch in launches}))[:120]
        self.log(
            f"{v.name}: {stats.median_us:.1f} us (IQR {stats.iqr_us:.1f}){ok}, {len(launches)} launch(es) "
            f"[{names}] in {meta['seconds']} s"
        )
        return meta


def pack(out: Path, tgz: Path, drops=([], [".llir", ".ptx"], [".ttir"]), limit: int = PACK_LIMIT) -> list[str]:
    """tar.gz of ``out``; .llir, .ptx (then .ttir) dropped until it fits in ``limit``. Returns what was dropped."""
    stripped: list[str] = []
    for drop in drops:
        for ext in drop:
            for p in out.rglob(f"*{ext}"):
                p.unlink()
            stripped.append(ext)
        manifest = out / "manifest.json"
        if manifest.exists():
            data = json.loads(manifest.read_text())
            data["stripped"] = stripped
            write_json(manifest, data)
        with tarfile.open(tgz, "w:gz") as tar:
            tar.add(out, arcname=out.name)
        if tgz.stat().st_size <= limit:
            break
    return stripped


MAX_PARTS = 6  # $OUT brings back 8 files: the parts, collect.log and gpu.txt


def pack_key(name: str) -> str:
    """The unit a split pack keeps together: a generated family (its pairs never cross it), else the kind."""
    parts = name.split(".")
    return f"{parts[0]}.{parts[1]}" if parts[0] in ("gen", "hold", "fresh") and len(parts) > 1 else parts[0]


def _tgz_size(folders: list[Path], arcroot: Path) -> int:
    with tempfile.NamedTemporaryFile(suffix=".tgz") as tmp:
        with tarfile.open(tmp.name, "w:gz") as tar:
            for f in folders:
                tar.add(f, arcname=str(Path("predict_data") / f.relative_to(arcroot)))
        return Path(tmp.name).stat().st_size


def pack_parts(data: Path, out: Path, limit: int = PACK_LIMIT) -> tuple[list[Path], list[str]]:
    """``predict_data.tgz`` when the whole set fits in ``limit`` (``pack``); else, with .llir/.ptx dropped, several
    ``predict_data-<i>.tgz``, each a complete data set (its own manifest: its variants, the pairs among them, every
    failure) holding whole pack units (``pack_key``), first-fit by compressed size. Returns (files, stripped)."""
    manifest = json.loads((data / "manifest.json").read_text())
    whole = out / "predict_data.tgz"
    stripped = pack(data, whole, drops=([], [".llir", ".ptx"]), limit=limit)  # the TTIR is read: never dropped here
    if whole.stat().st_size <= limit:
        return [whole], stripped
    whole.unlink()
    units: dict[str, list[str]] = {}
    for name in manifest["variants"]:
        units.setdefault(pack_key(name), []).append(name)
    sizes = {k: _tgz_size([data / n for n in names], data) for k, names in units.items()}
    bins: list[list[str]] = []
    used: list[int] = []
    for key in sorted(units, key=lambda k: -sizes[k]):
        i = next((i for i, u in enumerate(used) if u + sizes[key] <= limit * 0.97), None)
        if i is None and len(bins) >= MAX_PARTS:
            i = min(range(len(used)), key=lambda j: used[j])  # over the limit rather than lost; the log says so
        if i is None:
            bins.append([])
            used.append(0)
            i = len(bins) - 1
        bins[i].append(key)
        used[i] += sizes[key]
    files = []
    for i, keys in enumerate(bins, 1):
        names = [n for k in keys for n in units[k]]
        keep = set(names)
        part = dict(manifest, variants=names, part=f"{i} of {len(bins)}", stripped=stripped,
                    pairs=[p for p in manifest["pairs"] if p["before"] in keep and p["after"] in keep])  # fmt: skip
        path = out / f"predict_data-{i}.tgz"
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "manifest.json").write_text(json.dumps(part, indent=1, default=str) + "\n")
            with tarfile.open(path, "w:gz") as tar:
                tar.add(Path(tmp) / "manifest.json", arcname="predict_data/manifest.json")
                for n in names:
                    tar.add(data / n, arcname=f"predict_data/{n}")
        files.append(path)
    return files, stripped


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp/out")))
    ap.add_argument("--only", action="append", default=[], help="collect only variants whose name contains this")
    ap.add_argument("--calls", type=int, default=40, help="timed calls per variant (median over them)")
    ap.add_argument("--deadline", type=float, default=420.0, help="seconds after which remaining variants are skipped")
    ap.add_argument("--list", action="store_true", help="print the variants and pairs and exit (no GPU needed)")
    ap.add_argument("--workers", type=int, default=max(1, min(15, (os.cpu_count() or 2) - 1)),
                    help="processes that compile and check the generated variants before the timing")  # fmt: skip
    ap.add_argument(
        "--precompile-budget",
        type=float,
        default=None,
        help="seconds for the parallel compile-and-check of generated variants (default: half --deadline)",
    )
    ap.add_argument("--check-only", action="store_true",
                    help="compile and check the generated variants, time nothing, write check.json")  # fmt: skip
    args = ap.parse_args()
    variants = enumerate_variants()
    if args.only:
        variants = [v for v in variants if any(s in v.name for s in args.only)]
    pairs = variant_pairs(variants)
    if args.list:
        for v in variants:
            print(f"{v.name:50s} {v.language:6s} {v.source.relative_to(REPO)}")
        print(f"{len(variants)} variants, {len(pairs)} pairs")
        return 0
    data = args.out / "predict_data"
    if data.exists():
        shutil.rmtree(data)
    data.mkdir(parents=True)
    col = Collector(data, args.calls, args.deadline)
    col.log(f"{len(variants)} variants, {len(pairs)} pairs on {col.device} (triton {col.triton.__version__})")
    col.start_cuda_builds(variants)
    if any(v.kind == "gen" for v in variants):
        budget = args.precompile_budget if args.precompile_budget is not None else args.deadline / 2
        ran = {v.name for v in col.precompile_gen(variants, args.workers, budget)}
        variants = [v for v in variants if v.kind != "gen" or v.name in ran]
        if args.check_only:
            write_json(args.out / "check.json", {"prechecked": col.prechecked, "failed": col.failed})
            wrong = [n for n, r in col.prechecked.items() if r.get("correct") is False]
            col.log(f"check only: {len(ran)} ran, {len(wrong)} incorrect, {len(col.failed)} failed")
            for n in wrong:
                col.log(f"  WRONG {n}: {col.prechecked[n].get('detail')}")
            for f in col.failed:
                col.log(f"  FAILED {f['variant']}: {f['error'][:200]}")
            return 0
    done = []
    for v in variants:
        if time.perf_counter() - col.t0 > args.deadline:
            col.failed.append({"variant": v.name, "stage": "deadline", "error": f"past --deadline {args.deadline} s"})
            continue
        if col.collect(v) is not None:
            done.append(v.name)
    smi = nvidia_smi()
    manifest = {
        "format": FORMAT,
        "device": col.device,
        "triton": col.triton.__version__,
        "torch": col.torch.__version__,
        "cuda": col.torch.version.cuda,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "clocks": {"start": col.smi, "end": smi},
        "timer": "tools.profilers.timing.EventTimer(flush_l2=True)",
        "calls": args.calls,
        "flush_bytes": col.timer.flush_bytes,
        "stripped": [],
        "variants": done,
        "failed": col.failed,
        "pairs": [p for p in pairs if p["before"] in done and p["after"] in done],
    }
    write_json(data / "manifest.json", manifest)
    files, stripped = pack_parts(data, args.out)
    sizes = ", ".join(f"{f.name} {f.stat().st_size / 2**20:.1f} MiB" for f in files)
    col.log(
        f"done: {len(done)} of {len(variants)} variants, {len(manifest['pairs'])} pairs, {len(col.failed)} failed; "
        f"{sizes} (stripped {stripped or 'nothing'})"
    )
    shutil.rmtree(col.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
