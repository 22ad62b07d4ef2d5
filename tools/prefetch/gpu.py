"""prefetch-data-load --verify on a GPU host: run BEFORE and AFTER (files defining ``kernelpilot_run(device)``),
check each output against its reference, then time them interleaved."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from tools.errors import InputError
from tools.models.prefetch import GpuMeasurement, VerifyCheck
from tools.prefetch.analysis import SOURCE_SUFFIXES

RUN_ENTRY = "kernelpilot_run"


def runner_file(source: str | Path) -> Path | None:
    """Where ``kernelpilot_run(device)`` lives for a kernel file: the .py file itself, or ``<stem>_run.py`` beside a
    .cu/.hip file; None for ISA text or when there is none."""
    if not isinstance(source, Path) and (not isinstance(source, str) or "\n" in source):
        return None
    path = Path(source)
    if path.suffix == ".py":
        return path if path.is_file() and RUN_ENTRY in path.read_text(errors="replace") else None
    sibling = path.with_name(f"{path.stem}_run.py")
    return sibling if path.suffix in SOURCE_SUFFIXES and sibling.is_file() else None


def _load_run(path: Path, tag: str, device) -> dict:
    """Call ``kernelpilot_run(device)`` in ``path``; it returns {"launch": fn(), "check": fn() -> (ok, detail),
    "shape": str} and optionally "grid": the launch grid (tuple), which launch-aware occupancy uses."""
    name = f"_kernelpilot_run_{tag}_{path.stem}"
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # Triton's JIT reads the kernel's source through its module
        spec.loader.exec_module(module)
        entry = getattr(module, RUN_ENTRY, None)
        if not callable(entry):
            raise InputError(f"{path} defines no {RUN_ENTRY}(device)", hint="see skills/prefetch-data-load/SKILL.md")
        run = entry(device)
    finally:
        sys.path.remove(str(path.parent))
    if not isinstance(run, dict) or not callable(run.get("launch")) or not callable(run.get("check")):
        raise InputError(
            f"{path}: {RUN_ENTRY}(device) must return {{'launch': fn, 'check': fn, 'shape': str}}",
            hint="launch() runs the kernel once; check() returns (ok, detail) against a reference",
        )
    return run


def measure_gpu(before: str | Path, after: str | Path, rounds: int = 50, warmup: int = 10) -> GpuMeasurement:
    """Run BEFORE and AFTER on this host's GPU: each output against its reference, then ``compare_callables``
    (interleaved, L2 flushed). Without a GPU, torch or a ``kernelpilot_run`` it measures nothing and says why."""
    files = {"BEFORE": runner_file(before), "AFTER": runner_file(after)}
    missing = [k for k, v in files.items() if v is None]
    if missing:
        return GpuMeasurement(
            measured=False,
            note=f"not measured: {' and '.join(missing)} {'defines' if len(missing) == 1 else 'define'} no "
            f"{RUN_ENTRY}(device) (in the .py kernel file, or <stem>_run.py beside a .cu/.hip file)",
        )
    from tools.errors import ToolchainError
    from tools.profilers.timing import _torch_gpu, compare_callables

    try:
        torch = _torch_gpu()
    except ToolchainError as exc:
        return GpuMeasurement(measured=False, note=f"not measured: no GPU ({exc.message})")
    device = torch.device("cuda", torch.cuda.current_device())
    runs = {k: _load_run(v, k.lower(), device) for k, v in files.items()}
    correct = {}
    for k, run in runs.items():
        ok, detail = run["check"]()
        correct[k] = VerifyCheck(name=f"{k.lower()}-correct", ok=bool(ok), detail=detail)
    shapes = {run.get("shape") for run in runs.values()}
    shape = runs["BEFORE"].get("shape")
    name = torch.cuda.get_device_name(device)
    common = {"device": name, "shape": shape, "before_correct": correct["BEFORE"], "after_correct": correct["AFTER"]}
    if len(shapes) > 1:
        return GpuMeasurement(
            measured=False,
            note=f"not measured: BEFORE and AFTER run different problems {sorted(map(str, shapes))}",
            **common,
        )
    if not all(c.ok for c in correct.values()):
        wrong = " and ".join(k for k, c in correct.items() if not c.ok)
        return GpuMeasurement(measured=False, note=f"not timed: {wrong} output is wrong", **common)
    cmp = compare_callables(runs["BEFORE"]["launch"], runs["AFTER"]["launch"], rounds=rounds, warmup=warmup)
    grid = runs["AFTER"].get("grid")
    grid = [int(g) for g in grid] if isinstance(grid, (tuple, list)) else None
    return GpuMeasurement(measured=True, note=f"{name}, {shape}: {cmp.summary}", comparison=cmp, grid=grid, **common)
