"""The predicted-speed stage of an amd-static task with a ``speed_bar``: no GPU times it, so the candidate's
predicted GPU time is set against its baseline's (``tools.outcome.predict_speed``), and a fail is given only when the
predictor can tell (its band's top under the bar, or the same compiled code on both sides)."""

from __future__ import annotations

import re
from pathlib import Path

from evals.catalog import Task
from evals.harness.timing import sol_ms
from evals.metrics import geomean
from evals.models import TaskScore
from tools.models.dump import KernelDump


def predicted_speed_scored(task: Task) -> bool:
    """amd-static tasks with a ``speed_bar`` are scored on the predicted speedup over their baseline."""
    return task.spec.track == "amd-static" and task.spec.speed_bar is not None


def predicted_speed(task: Task, base: list[KernelDump], cand: list[KernelDump], s: TaskScore) -> None:
    """The predicted-speed stage of an amd-static task: the kernels' predicted GPU time per arch (baseline against
    candidate, ``tools.predict.predict_pair(kernel_time=True)``: the same fixed launch overhead on both sides left
    out; the task's ``prediction.trips`` where the code does not give the loop's), the geometric mean against the
    task's ``speed_bar``. No prediction for an arch leaves the score incomplete (``needs_gpu``: measure it), never a
    pass. The fraction of speed-of-light is the task's own floor
    (``performance.bytes``/``flops`` on its first shape, the example launch's, at the arch's device peaks) over the
    candidate's predicted kernel time (launch overhead left out); without them, the bytes the predictor counts at
    peak HBM bandwidth."""
    from tools.outcome import predict_speed, predicted_fraction_of_sol

    bar = task.spec.speed_bar
    trips = task.spec.prediction.trips if task.spec.prediction else None
    speeds, lines, fractions, highs = [], [], [], []
    same = True
    for arch in sorted({k.arch for k in cand}):
        b = [k for k in base if k.arch == arch]
        c = [k for k in cand if k.arch == arch]
        speed, _ = predict_speed(b, c, arch, trips=trips)
        if speed.speedup is None:
            s.complete = False
            s.record("needs_gpu", False, f"no predicted speed on {arch} ({speed.note}): measure on a GPU")
            return
        speeds.append(speed.speedup)
        highs.append(speed.band[1] if speed.band else None)
        same = same and _same_code(b, c)
        lines.append(f"{arch} {speed.note}")
        s.flags.append(f"predicted speed on {arch}: {speed.note}")
        floor_us, floor_how = _task_sol_us(task, arch)
        fraction, how = predicted_fraction_of_sol(c, arch, trips=trips, sol_us=floor_us)
        how = f"{floor_how}: {how}" if floor_us else how
        if fraction is not None:
            fractions.append(fraction)
            s.flags.append(f"predicted fraction of speed-of-light on {arch}: {fraction:.3f} ({how})")
    if not speeds:
        return
    s.speedup = geomean(speeds)
    # nothing measured on this track: the fraction of speed-of-light comes from the prediction
    s.fraction_of_sol = geomean(fractions) if len(fractions) == len(speeds) else None
    what = f"predicted speedup {s.speedup:.3f}× against the bar {bar}× ({'; '.join(lines)})"
    if s.speedup >= bar:
        s.record("faster", True, what)
        return
    # under the bar: a fail only when the predictor can tell (the band's top under the bar, or the same code on both
    # sides: the same time, exactly); inside the band, or without one, the score waits for a GPU (issue 31)
    high = geomean(highs) if highs and None not in highs else None
    if same or (high is not None and high < bar):
        why = "the same compiled code on both sides" if same else f"the band's top {high:.3f}× is under the bar"
        s.record("slower", False, f"{what}; {why}")
        return
    s.complete = False
    band = f"the band reaches {high:.3f}×" if high is not None else "the predictor gives no band that decides it"
    s.record("needs_gpu", False, f"{what}: undetermined, {band}: measure on a GPU")


def _same_code(base: list[KernelDump], cand: list[KernelDump]) -> bool:
    """Whether both sides compiled to the same final ISA, launch for launch (a noop rewrite)."""
    if len(base) != len(cand) or not base:
        return False
    for b, c in zip(base, cand, strict=True):
        if not (b.final_isa and c.final_isa) or (b.launch and b.launch.grid) != (c.launch and c.launch.grid):
            return False
        try:
            if _code_text(b.final_isa) != _code_text(c.final_isa):
                return False
        except OSError:
            return False
    return True


_FILE_DIR = re.compile(rb'\.file\s+\d+\s+"([^"]+)"')
_STRING_OFFSET = re.compile(rb";\s*string offset=\d+")


def _code_text(isa: str) -> bytes:
    """The ISA without the folder its source was compiled in (the candidate's workspace, the task's baseline): the
    folders its ``.file`` directives name, wherever the debug info repeats them, and the debug strings' offsets that
    shift with their length. What is left is code."""
    text = Path(isa).read_bytes()
    for folder in set(_FILE_DIR.findall(text)):
        text = text.replace(folder, b"")
    return _STRING_OFFSET.sub(b"", text)


def _task_sol_us(task: Task, arch: str) -> tuple[float | None, str]:
    """The task's speed-of-light time in µs (``performance.bytes``/``flops`` on its first shape, the example launch
    the prediction is for, at the peaks of the arch's device) and what it is; (None, why) when the task states none.
    Unlike the predictor's byte count, it does not grow when a kernel moves more bytes than the work needs."""
    from tools.isa.machines import device_for

    perf = task.spec.performance
    if not perf or not (perf.bytes or perf.flops) or not perf.shapes:
        return None, "the task states no bytes/flops"
    device = device_for(arch).product
    floor_ms = sol_ms(task, perf.shapes[0], device)
    if not floor_ms:
        return None, f"no peaks for {device}"
    return floor_ms * 1e3, f"the task's floor for {perf.shapes[0].name}"
