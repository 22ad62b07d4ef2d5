"""Outcome verdicts: a rewrite passes when it is correct and faster, fails when it is incorrect, slower, spills more
or breaks a budget the user set, and is undetermined (with the reason) when neither can be shown.

Speed comes from a GPU measurement (``tools.profilers.timing.Comparison``) where there is one, else from the
predictor (``tools.predict``, the kernels' GPU time without the fixed per-launch overhead) with its error band. Structural findings (loads carried, copies, wait
distances, occupancy) explain a time; they never decide a verdict here. Pure functions except ``kernel_dumps``
(compiles through dump-ir, cached), ``predict_speed`` (the predictor) and ``check_correctness`` (``kernelpilot
check`` on the CPU).
"""

from __future__ import annotations

from pathlib import Path

from tools.errors import KernelpilotError
from tools.models.dump import CompilerVersions, KernelDump
from tools.models.outcome import Correctness, OutcomeVerdict, SpeedOutcome
from tools.models.timing import Comparison

# what `kernelpilot check` compares with inside a verdict: another fp32 summation order passes, another block's data
# does not (the eval tasks' llvm-cpu oracles use the same figures)
CHECK_ATOL = 1e-4
CHECK_RTOL = 1e-4


def speed_from_comparison(cmp: Comparison) -> SpeedOutcome:
    """A GPU measurement as a speed outcome: faster / slower only when the whole 95 % CI says so."""
    verdict = {"faster": "faster", "slower": "slower"}.get(cmp.verdict, "within-band")
    return SpeedOutcome(
        source="measured",
        speedup=cmp.speedup,
        band=cmp.speedup_ci,
        verdict=verdict,
        baseline_us=cmp.baseline.median_us,
        after_us=cmp.candidate.median_us,
        device=cmp.device,
        note=f"measured {cmp.speedup:.3f}× (95 % CI {cmp.speedup_ci[0]:.3f}–{cmp.speedup_ci[1]:.3f}) on "
        f"{cmp.device}: {cmp.baseline.median_us:.1f} → {cmp.candidate.median_us:.1f} µs",
    )


def speed_from_prediction(pred) -> SpeedOutcome:
    """A ``tools.predict`` PairPrediction as a speed outcome: faster when the low end of its speedup band clears 1,
    slower when the high end stays below 1, within-band otherwise; undetermined (with the predictor's reason) when it
    has no figure or no band."""
    why = getattr(pred, "undetermined", None)
    speedup = getattr(pred, "predicted_speedup", None)
    band = getattr(pred, "speedup_band", None)
    bound = getattr(pred, "bound", None)
    base_us, after_us = getattr(pred, "baseline_predicted_us", None), getattr(pred, "predicted_us", None)
    if why or speedup is None:
        return SpeedOutcome(
            source="predicted", verdict="undetermined", bound=bound, note=f"no prediction: {why or 'no figure'}"
        )
    times = f"{base_us:.1f} → {after_us:.1f} µs, " if base_us is not None and after_us is not None else ""
    if any(n.startswith("kernel time") for n in getattr(pred, "notes", [])):
        times = times.replace(" µs, ", " µs kernel time (launch overhead left out), ", 1)
    if band is None:
        # why there is none: a side's band is undetermined / assumed (tools.predict.predict_pair's notes), or the
        # device is unvalidated
        why = [n for n in getattr(pred, "notes", []) if n.startswith(("before: band", "after: band"))]
        return SpeedOutcome(
            source="predicted",
            speedup=speedup,
            verdict="undetermined",
            baseline_us=base_us,
            after_us=after_us,
            bound=bound,
            note=f"predicted {speedup:.2f}× ({times}bound: {bound}) but the predictor gives no error band for this "
            f"pair{': ' + '; '.join(why) if why else ''}: measure on a GPU",
        )
    low, high = band
    # a side None: an assumption opens the band there (e.g. an atomic's contention not counted), so it decides
    # nothing on that side
    verdict = "faster" if low is not None and low > 1 else "slower" if high is not None and high < 1 else "within-band"
    shown = f"{low:.2f}" if low is not None else "?"
    shown += f"–{high:.2f}" if high is not None else "–open"
    return SpeedOutcome(
        source="predicted",
        speedup=speedup,
        band=(low, high),
        verdict=verdict,
        baseline_us=base_us,
        after_us=after_us,
        bound=bound,
        note=f"predicted {speedup:.2f}× (band {shown}; {times}AFTER bound by {bound})",
    )


def no_speed(why: str) -> SpeedOutcome:
    return SpeedOutcome(source="none", verdict="undetermined", note=why)


def predict_speed(
    before: list[KernelDump],
    after: list[KernelDump],
    arch: str,
    device: str | None = None,
    trips: float | None = None,
):
    """Both versions' predicted kernel time (``tools.predict.predict_pair``, ``kernel_time``) as a SpeedOutcome (and the PairPrediction, or
    None); undetermined with the reason when this build has no predictor or the predictor cannot decide. ``trips``:
    the hot loop's iterations where the compiled code does not give them (FlyDSL's runtime loop bounds)."""
    if not before or not after:
        return no_speed("no compiled kernels to predict from (pass kernel files or their final ISA files)"), None
    try:
        from tools.predict import predict_pair

        pred = predict_pair(before, after, arch=arch, device=device, trips=trips, kernel_time=True)
    except ImportError:
        return no_speed("this build has no time predictor (tools.predict)"), None
    except KernelpilotError as exc:
        return no_speed(f"the predictor could not run: {exc.message}"), None
    return speed_from_prediction(pred), pred


def predicted_fraction_of_sol(
    kernels: list[KernelDump],
    arch: str,
    device: str | None = None,
    trips: float | None = None,
    sol_us: float | None = None,
) -> tuple[float | None, str]:
    """The launches' speed-of-light time over their predicted kernel time (fixed launch overhead left out): SOL is
    ``sol_us`` when the caller knows the work's own floor (an eval task's bytes/flops at the device's peaks), else
    the bytes the predictor says they move at the device's peak HBM bandwidth (``hbm_peak_gbs``). (None, why) when a
    launch has no prediction."""
    from tools.isa.machines import device_for
    from tools.predict import kernel_us, predict_kernels

    m = device_for(arch, device)
    launches = predict_kernels(kernels, arch=arch, device=device, trips=trips)
    if not launches or any(p.predicted_us is None for p in launches):
        return None, "no prediction for every launch"
    moved = sum(p.figures.bytes_moved or 0.0 for p in launches)
    kernel_time = sum(kernel_us(p) for p in launches)
    if sol_us is not None and kernel_time > 0:
        return sol_us / kernel_time, f"{sol_us:.3f} µs against {kernel_time:.2f} µs predicted on {m.name}"
    if not moved or kernel_time <= 0:
        return None, "the launches move no bytes the predictor counts"
    sol_us = moved / (m.value("hbm_peak_gbs") * 1e9) * 1e6
    return sol_us / kernel_time, (
        f"{moved / 1e3:.1f} kB at {m.value('hbm_peak_gbs'):g} GB/s = {sol_us:.3f} µs against {kernel_time:.2f} µs "
        f"predicted on {m.name}"
    )


def kernel_dumps(
    source: str | Path, arch: str | None, frontend: str | None = None, timeout: float = 600, call: str | None = None
):
    """The KernelDumps of one input for the predictor: dump-ir's for a kernel source (cached), one per kernel of an
    AMDGCN file (resources from its metadata); [] for inline text and SASS (nothing the predictor can launch)."""
    from tools import inputs

    if isinstance(source, str) and "\n" in source:
        return []
    path = Path(source)
    if path.suffix in inputs.SOURCE_SUFFIXES:
        return list(inputs.compile_source(path, arch, frontend=frontend, timeout=timeout, call=call)[0].kernels)
    if path.suffix not in inputs.ISA_SUFFIXES or not path.is_file():
        return []
    from tools.isa.amdgcn import load_isa_text, parse_isa
    from tools.isa.metadata import resources_from_metadata
    from tools.models.dump import Resources

    isa = parse_isa(load_isa_text(path), str(path))
    karch = arch or isa.arch
    if not karch:
        return []
    return [
        KernelDump(
            name=k.name,
            arch=karch,
            frontend="isa",
            compiler=CompilerVersions(frontend="isa"),
            stages=[],
            final_isa=str(path),
            resources=resources_from_metadata(k.metadata, karch) if k.metadata is not None else Resources(),
            notes=["read from an ISA file: no launch known"],
        )
        for k in isa.kernels
    ]


CHECK_TIMEOUT_S = 120.0  # past it, correctness is "not checked" with check's own hint (run kernelpilot check longer)


def check_correctness(
    before: str | Path,
    after: str | Path,
    arch: str | None,
    timeout: float = 600,
    *,
    atol=CHECK_ATOL,
    rtol=CHECK_RTOL,
    call: str | None = None,
) -> Correctness:
    """``kernelpilot check`` (the LLVM IR run on the CPU) where it applies: FlyDSL and Triton files with
    ``kernelpilot_entry()`` or ``kernelpilot_inputs``; otherwise not checked, with the reason."""
    if not all(isinstance(p, Path | str) and "\n" not in str(p) and Path(p).suffix == ".py" for p in (before, after)):
        return Correctness(
            checked=False, source="none", note="correctness not checked: check runs FlyDSL and Triton .py files only"
        )
    from tools.check.compare import check
    from tools.isa import arch as archmod

    amd_arch = arch if arch and archmod.is_amd(arch) else "gfx942"  # check runs the AMDGPU LLVM IR
    try:  # bounded: a verdict waits at most CHECK_TIMEOUT_S for the CPU run (a big GEMM takes minutes there)
        rep = check(
            before, after, arch=amd_arch, atol=atol, rtol=rtol, timeout=min(timeout, CHECK_TIMEOUT_S), call=call
        )
    except KernelpilotError as exc:
        hint = f" ({exc.hint})" if exc.hint else ""
        return Correctness(checked=False, source="check", note=f"correctness not checked: check: {exc.message}{hint}")
    if rep.verdict == "same":
        return Correctness(checked=True, ok=True, source="check", note=f"check (CPU, {amd_arch}): {rep.summary}")
    if rep.verdict == "different":
        return Correctness(checked=True, ok=False, source="check", note=f"check (CPU, {amd_arch}): {rep.summary}")
    return Correctness(checked=False, source="check", note=f"correctness not checked: check: {rep.summary}")


def decide(failures: list[str], correctness: Correctness, speed: SpeedOutcome) -> tuple[OutcomeVerdict, str]:
    """The verdict and its one-line reason: fail on any failure (incorrect, slower, new spills, a budget), pass when
    AFTER is faster beyond the band, undetermined otherwise (no figure, or a speedup within the band)."""
    if correctness.ok is False:
        failures = ["incorrect: " + correctness.note, *failures]
    if speed.verdict == "slower":
        failures = [*failures, f"slower: {speed.note}"]
    if failures:
        return "fail", "; ".join(failures)
    unchecked = "" if correctness.checked else f" ({correctness.note})"
    if speed.verdict == "faster":
        return "pass", f"faster: {speed.note}{unchecked}"
    if speed.verdict == "within-band":
        what = "a GPU run" if speed.source == "measured" else "the prediction"
        return "undetermined", f"neither faster nor slower beyond {what}'s band: {speed.note}{unchecked}"
    return "undetermined", f"speed unknown: {speed.note}{unchecked}"
