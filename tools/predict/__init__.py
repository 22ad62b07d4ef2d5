"""kernelpilot predict: a predicted time for every launch, and what bounds it.

Public API: ``predict_launch`` (one KernelDump; it and its steps are tools/predict/launch.py), ``predict_kernels`` (a
call's launches in order), ``predict_pair`` (before/after, for the verdicts), ``predict_file`` (what the CLI and the
MCP tool run).
"""

from __future__ import annotations

import math
from pathlib import Path

from tools.isa.arch import is_amd, normalize_arch
from tools.isa.machines import device_for
from tools.models.dump import KernelDump
from tools.models.predict import LaunchPrediction, PairPrediction
from tools.predict.evidence import band_of, band_words, pair_speedup_band
from tools.predict.launch import library_op, predict_launch
from tools.predict.totals import kernel_bound, kernel_us, not_modelled_notes, sum_band, total_of

__all__ = [
    "band_of",
    "kernel_bound",
    "kernel_us",
    "library_op",
    "not_modelled_notes",
    "predict_kernels",
    "predict_launch",
    "predict_pair",
    "sum_band",
    "total_of",
]

MAX_CHECK_WORKGROUPS = 64  # the CPU engine runs every workgroup in lock step; beyond this the loop bounds are used


def executed_trips(
    source: str | Path, kernels: list[KernelDump], arch: str, timeout: float = 600, call: str | None = None
) -> list[dict]:
    """Per launch of an AMD kernel file, its loops' executions on the CPU engine of check (trip evidence (a)); an
    entry with ``skipped`` (why) where the engine was not run or failed, so the next evidence is used."""
    if not is_amd(arch) or not kernels:
        return [{} for _ in kernels]
    groups = sum(math.prod(k.launch.grid) if k.launch and k.launch.grid else 0 for k in kernels)
    if groups > MAX_CHECK_WORKGROUPS:
        why = f"not run on the CPU engine: {groups} workgroups (at most {MAX_CHECK_WORKGROUPS}; no sampling yet)"
        return [{"skipped": why} for _ in kernels]
    from tools.check.compare import CheckTimeout, executed_loops
    from tools.errors import KernelpilotError

    try:
        runs = executed_loops(source, arch, timeout=timeout, call=call)
    except CheckTimeout:
        why = f"not run to its end on the CPU engine: stopped after {timeout:.0f}s (its share of predict's --timeout)"
        return [{"skipped": why} for _ in kernels]
    except KernelpilotError as exc:
        return [{"skipped": f"the CPU engine could not run it: {exc.message}"} for _ in kernels]
    if len(runs) != len(kernels):
        return [{"skipped": "the CPU engine ran a different number of launches"} for _ in kernels]
    return runs


def predict_kernels(
    kernels: list[KernelDump],
    *,
    arch: str,
    device: str | None = None,
    trips: float | None = None,
    executed: list[dict] | None = None,
    loop_trips: dict[str, float] | None = None,
) -> list[LaunchPrediction]:
    """Each launch of a call, in order (``executed``: one entry per launch from ``executed_trips``)."""
    normalize_arch(arch)
    runs = executed or [{} for _ in kernels]
    kw = {"device": device, "trips": trips, "loop_trips": loop_trips}  # loop_trips: tools.predict.loops.loop_names
    if loop_trips and len(kernels) > 1:  # a named loop is one launch's (a split-K GEMM's, not its reduce kernel's)
        from tools.predict.loops import check_named_loops

        seen: dict[str, tuple[list[str], str]] = {}
        got = [predict_launch(k, executed=e, seen_loops=seen, **kw) for k, e in zip(kernels, runs, strict=True)]
        check_named_loops(loop_trips, seen)
        return got
    return [predict_launch(k, executed=e, **kw) for k, e in zip(kernels, runs, strict=True)]


def predict_pair(
    before: list[KernelDump],
    after: list[KernelDump],
    *,
    arch: str,
    device: str | None = None,
    trips: float | None = None,
    kernel_time: bool = False,
) -> PairPrediction:
    """Predicted before/after times and speedup for the verdicts: ``undetermined`` (with why) when either side has
    no prediction; ``speedup_band`` None while the device's band is unvalidated or a side's is undetermined (each
    side's assumptions widen it: ``evidence.pair_speedup_band``). ``trips``: the hot loop's iterations
    where the compiled code does not give them.

    ``kernel_time`` (what the verdicts and the eval compare): when both sides make the same number of launches the
    fixed per-launch overhead (the device's ``launch_overhead_us``, the same on both sides) is left out of both
    times, so a small example launch compares the kernels, not the launch cost; with another number of launches it
    stays in (an extra launch is a real cost). Without it, the calls' whole predicted times."""
    m = device_for(arch, device)
    b = predict_kernels(before, arch=arch, device=device, trips=trips)
    a = predict_kernels(after, arch=arch, device=device, trips=trips)
    notes = [f"device {m.product}; band {band_of(m).status} ({band_of(m).source})"]
    for side, launches in (("before", b), ("after", a)):
        notes += [f"{side} {n}" for n in not_modelled_notes(launches)]
        for p in launches:
            if p.trips.source == "assumption":
                notes.append(f"{side} {p.name}: trips assumed ({p.trips.detail})")
    (b_us, _), (a_us, bound) = total_of(b), total_of(a)
    why = None
    if not before or not after:
        why = "no kernel on the " + ("before" if not before else "after") + " side"
    else:
        missing = [f"{p.name}: {p.undetermined}" for p in (*b, *a) if p.predicted_us is None and not p.not_modelled]
        why = "; ".join(missing) or None
    if why:
        return PairPrediction(baseline_predicted_us=b_us, predicted_us=a_us, undetermined=why, notes=notes)
    if kernel_time and len(b) == len(a):
        mb, ma = [p for p in b if not p.not_modelled], [p for p in a if not p.not_modelled]
        b_us, a_us = round(sum(kernel_us(p) for p in mb), 3), round(sum(kernel_us(p) for p in ma), 3)
        overhead = ma[0].figures.launch_overhead_us or 0.0
        notes.append(
            f"kernel time: the fixed per-launch overhead ({overhead:g} µs × {len(a)}, the same on both sides) is left "
            "out of both times"
        )
        bound = kernel_bound(max(ma, key=kernel_us))
    elif kernel_time:
        notes.append(f"{len(b)} → {len(a)} launches: each launch's fixed overhead stays in both times")
    if a_us <= 0:
        return PairPrediction(baseline_predicted_us=b_us, predicted_us=a_us, undetermined="no kernel time", notes=notes)
    speedup = round(b_us / a_us, 4)
    sides = {side: sum_band(m, launches) for side, launches in (("before", b), ("after", a))}
    for side, band in sides.items():
        if band.status != "validated":
            notes.append(f"{side}: {band_words(band)}")
    return PairPrediction(
        baseline_predicted_us=b_us,
        predicted_us=a_us,
        predicted_speedup=speedup,
        speedup_band=pair_speedup_band(speedup, sides["before"], sides["after"], band_of(m), m.kind_bands),
        bound=bound,
        notes=notes,
    )
