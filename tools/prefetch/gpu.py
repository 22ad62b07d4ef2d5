"""prefetch-data-load --verify on a GPU host: run BEFORE and AFTER (files defining ``kernelpilot_run(device)``)
through the one GPU runner, ``tools.profilers.gpu_runner.run_pair`` (each side in its own process): each output
against its reference, then an interleaved timing."""

from __future__ import annotations

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


def measure_gpu(
    before: str | Path, after: str | Path, rounds: int = 50, warmup: int = 10, timeout: float = 600
) -> GpuMeasurement:
    """Run BEFORE and AFTER on this host's GPU with ``run_pair``: each output against its reference, then both
    timed interleaved (L2 flushed, events). Without a GPU, torch or a ``kernelpilot_run`` it measures nothing and
    says why; a ``kernelpilot_run`` that cannot be used (missing, wrong return) is an InputError."""
    files = {"BEFORE": runner_file(before), "AFTER": runner_file(after)}
    missing = [k for k, v in files.items() if v is None]
    if missing:
        return GpuMeasurement(
            measured=False,
            note=f"not measured: {' and '.join(missing)} {'defines' if len(missing) == 1 else 'define'} no "
            f"{RUN_ENTRY}(device) (in the .py kernel file, or <stem>_run.py beside a .cu/.hip file)",
        )
    from tools.profilers.gpu_runner import run_pair

    res = run_pair(files["BEFORE"], files["AFTER"], rounds=rounds, warmup=warmup, timeout=timeout)
    if res.status == "input-error":
        side = res.before if res.failed_side == "BEFORE" else res.after
        raise InputError(side.detail, hint=res.hint or "see skills/prefetch-data-load/SKILL.md")
    correct = {
        side.role: VerifyCheck(name=f"{side.role.lower()}-correct", ok=side.correct, detail=side.detail)
        for side in (res.before, res.after)
        if side.correct is not None
    }
    grid = res.after.grid if res.measured else None
    return GpuMeasurement(
        measured=res.measured,
        note=res.note,
        device=res.device,
        shape=res.shape,
        before_correct=correct.get("BEFORE"),
        after_correct=correct.get("AFTER"),
        comparison=res.comparison,
        grid=grid,
    )
