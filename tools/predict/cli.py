"""``kernelpilot predict FILE --arch A [--device D] [--baseline B] [--trips N] [--json]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from tools.callspec import add_call_argument
from tools.errors import InputError
from tools.frontends.registry import add_frontend_argument
from tools.gitref import resolve_file
from tools.isa.arch import normalize_arch
from tools.isa.machines import device_for, machine_names
from tools.models.dump import KernelDump
from tools.models.predict import LaunchPrediction, PredictResult

ENGINE_SHARE = 0.5  # of predict's --timeout left after the compile, for the CPU engine's trip run
HELP = "predict each launch's time on a GPU from its ISA and launch, and what bounds it"


def load_kernels(
    source: str | Path, arch: str | None, timeout: float = 600, frontend: str | None = None, call: str | None = None
) -> tuple[list[KernelDump], str, bool]:
    """The launches of ``source`` in order: a kernel file (compiled by dump-ir; a call form, or ``call``, captures
    every launch) or a recorded variant folder (meta.json + compiled files, benchmarks/predict_data/FORMAT.md)."""
    from tools.predict.artifacts import is_variant_dir, read_variant

    path = Path(source)
    if is_variant_dir(path):
        if call:
            raise InputError(f"--call applies to a kernel file; {path} is a recorded variant folder",
                             hint="its meta.json names its launches: drop --call")  # fmt: skip
        kernels = read_variant(path, arch)
        return kernels, kernels[0].arch, False
    if path.is_dir():
        raise InputError(
            f"{path} is a folder without meta.json",
            hint="give a kernel file, or a recorded variant folder (meta.json beside the Triton cache files)",
        )
    if not arch:
        raise InputError("--arch is needed to compile a kernel file", hint="e.g. kernelpilot predict k.py --arch sm_90")
    from tools.dump_ir.dump import dump_ir

    result = dump_ir(path, arch, frontend=frontend, timeout=timeout, call=call)
    return result.kernels, result.arch, True


def _summary(p: PredictResult) -> str:
    if p.predicted_us is None:
        why = next((lp.undetermined for lp in p.launches if lp.undetermined), "no launch")
        return f"undetermined on {p.device}: {why}"
    n = len(p.launches)
    text = f"{p.predicted_us:.1f} us predicted on {p.device} ({n} launch{'es' if n != 1 else ''}), bound: {p.bound}"
    if p.predicted_speedup is not None:
        text += f"; {p.predicted_speedup:.2f}x vs baseline ({p.baseline_predicted_us:.1f} us)"
    text += "; " + band_text(p.band)
    if p.speedup_band:
        text += "; " + _speedup_band_text(p.speedup_band)
    return text


def band_text(b) -> str:
    """The band as one phrase: its status, the measured time's range around the predicted one, what it rests on."""
    from tools.predict.evidence import band_words

    return band_words(b)


def _speedup_band_text(sb: list) -> str:
    low = f"{sb[0]:.2f}x" if sb[0] is not None else "?"
    high = f"{sb[1]:.2f}x" if sb[1] is not None else "open"
    return f"speedup band {low}-{high}"


def predict_file(
    source: str | Path,
    arch: str | None = None,
    *,
    device: str | None = None,
    baseline: str | Path | None = None,
    trips: float | None = None,
    timeout: float = 600,
    frontend: str | None = None,
    call: str | None = None,
    loop_trips: dict[str, float] | None = None,
) -> PredictResult:
    """What ``kernelpilot predict`` and the MCP tool run: every launch of ``source`` (and of ``baseline``, a file or
    a git revision ``REV:PATH``); ``call``: the host function both run (``--call``, tools.callspec); ``loop_trips``:
    iterations per program stated for loops by name (``--trips LINE=N``, tools.predict.loops.loop_names)."""
    from tools.limits import MAX_TIMEOUT_S, MAX_TRIPS, out_of_range
    from tools.predict import (
        band_of,
        bounds,
        executed_trips,
        not_modelled_notes,
        predict_kernels,
        sum_band,
        total_of,
    )
    from tools.predict.evidence import pair_speedup_band
    from tools.predict.learned import learned_estimate

    if trips is not None and (trips <= 0 or out_of_range(trips, 0, MAX_TRIPS)):  # before any compile
        raise InputError(f"trips {trips:g} is outside (0, {MAX_TRIPS:g}]",
                         hint="give `kernelpilot predict --trips N` (MCP: trips) as the hot loop's iterations per "
                         "program, at most 10**9")  # fmt: skip
    for name, n in (loop_trips or {}).items():
        if n <= 0 or out_of_range(n, 0, MAX_TRIPS):
            raise InputError(f"--trips {name}={n:g}: the count is outside (0, {MAX_TRIPS:g}]",
                             hint="give the loop's iterations per program, at most 10**9")  # fmt: skip
    if timeout <= 0 or out_of_range(timeout, 0, MAX_TIMEOUT_S):
        raise InputError(f"timeout {timeout:g} s is outside (0, {MAX_TIMEOUT_S:g}] s",
                         hint="give `kernelpilot predict --timeout SECONDS` (MCP: timeout) within that range")  # fmt: skip
    limit = bounds.TimeLimit(timeout)  # one --timeout for the whole call, the baseline's included

    def predicted(src):
        with limit, resolve_file(src) as (path, _):  # a baseline may be HEAD:kernel.py
            kernels, karch, is_file = load_kernels(path, arch, limit.left(f"compiling {Path(src).name}"), frontend,
                                                   call)  # fmt: skip
            # evidence before a stated --trips, which only fills the loops no evidence gives
            # the CPU engine gets half of what is left: past it, the loop bounds give the trips (a deep nest of
            # runtime loops runs for minutes there)
            share = limit.left("running it on the CPU engine") * ENGINE_SHARE
            runs = executed_trips(path, kernels, karch, share, call) if is_file else None
            got = predict_kernels(kernels, arch=karch, device=device, trips=trips, executed=runs, loop_trips=loop_trips)
            limit.check(f"predicting {Path(src).name}")  # past it, what a stopped child left is no evidence
        return got, karch

    arch = normalize_arch(arch) if arch else None
    launches, arch = predicted(source)
    m = device_for(arch, device)
    total, bound = total_of(launches)
    result = PredictResult(
        summary="",
        source=str(source),
        arch=arch,
        device=m.name,
        launches=launches,
        predicted_us=total,
        bound=bound,
        band=sum_band(m, launches),
    )
    if baseline is not None:
        result.baseline = str(baseline)
        result.baseline_launches, _ = predicted(baseline)
        result.baseline_predicted_us, _ = total_of(result.baseline_launches)
        if result.baseline_predicted_us and total:
            result.predicted_speedup = round(result.baseline_predicted_us / total, 4)
            before = sum_band(m, result.baseline_launches)
            sb = pair_speedup_band(result.predicted_speedup, before, result.band, band_of(m), m.kind_bands)
            result.speedup_band = list(sb) if sb else None
    result.learned = learned_estimate(m, launches, total)
    if result.baseline_launches:
        result.baseline_learned = learned_estimate(m, result.baseline_launches, result.baseline_predicted_us)
    result.notes += not_modelled_notes(launches)
    result.notes += [f"baseline {n}" for n in not_modelled_notes(result.baseline_launches)]
    if any(lp.trips.source == "assumption" for lp in launches + result.baseline_launches):
        result.notes.append("some trip counts are assumed (see each launch's trips.detail); pass --trips N")
    result.notes.append(f"device figures and their sources: tools/isa/machines/{m.name}.yaml")
    result.summary = _summary(result)
    return result


def format_launch(i: int, p: LaunchPrediction) -> list[str]:
    if p.predicted_us is None:
        if p.not_modelled:
            return [f"  [{i}] {p.name}: not modelled: {p.not_modelled}"]
        return [f"  [{i}] {p.name}: undetermined: {p.undetermined}"]
    f = p.figures
    lines = [
        f"  [{i}] {p.name}: {p.predicted_us:.2f} us, bound: {p.bound}  (grid {p.grid}, {p.block_threads} threads); "
        + band_text(p.band),
        f"      bytes moved {f.bytes_moved:.0f} (requested {f.bytes_requested:.0f}, tensors {f.unique_tensor_bytes}); "
        f"in flight {f.bytes_in_flight_per_cu:.0f} B/CU ({f.resident_waves_per_cu} waves x "
        f"{f.bytes_in_flight_per_wave:.0f} B); {f.rounds} round(s) on {f.active_cus} CUs/SMs",
        f"      hbm {f.hbm_us:.2f} us, "
        + (f"l2 {f.l2_us:.2f} us, " if f.l2_us is not None else "")
        + f"latency {f.latency_us:.2f} us, issue {f.issue_us:.2f} us, valu "
        f"{f.valu_us:.2f} us, matrix {f.matrix_us:.2f} us, lds {f.lds_us:.2f} us, launch {f.launch_overhead_us} us"
        + (
            f", atomics {f.atomic_us:.2f} us ({f.atomic_updates_per_address:.0f} updates of one address)"
            if f.atomic_us is not None
            else ""
        ),
        f"      trips: {p.trips.source} ({p.trips.detail}); hot loop x{p.trips.trips:g}"
        + (f", {f.iteration_cycles:.0f} issue cycles/iteration" if f.iteration_cycles else ""),
    ]
    lines += [f"      note: {n}" for n in p.notes]
    return lines


def learned_text(r: PredictResult) -> str | None:
    """The learned correction's line (tools.predict.learned), beside the model's time, or None where it has none."""
    got = r.learned
    if got is None:
        return None
    if not got.applied:
        return f"learned correction: {got.why}"
    text = f"learned correction: {got.corrected_us:.1f} us (x{got.factor:.2f} the model's)"
    if got.band:
        text += f", band x{got.band[0]:.2f}-x{got.band[1]:.2f} ({got.band_source})"
    base = r.baseline_learned
    if base is not None and base.applied and base.corrected_us and got.corrected_us:
        text += f", {base.corrected_us / got.corrected_us:.2f}x vs baseline ({base.corrected_us:.1f} us corrected)"
    return text + f"; {got.source}; {got.why}"


def format_result(r: PredictResult) -> str:
    lines = [r.summary]
    if learned := learned_text(r):
        lines.append(learned)
    if r.baseline_launches:
        lines.append(f"baseline {r.baseline}:")
        for i, p in enumerate(r.baseline_launches):
            lines += format_launch(i, p)
        lines.append(f"{r.source}:")
    for i, p in enumerate(r.launches):
        lines += format_launch(i, p)
    lines.append(f"band: {r.band.status} ({r.band.source})" + (f"; {r.band.note}" if r.band.note else ""))
    lines += [f"note: {n}" for n in r.notes]
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", help="kernel file (Triton, FlyDSL, ...) or a recorded variant folder with meta.json")
    p.add_argument("--arch", help="target: gfx90a, gfx942, gfx950, sm_80, sm_90 (a variant folder names its own)")
    p.add_argument(
        "--device", choices=machine_names(), help="device model (default per arch: gfx942 mi300x, sm_90 h100)"
    )
    p.add_argument("--baseline", metavar="B", help="a second kernel file or folder, or a git revision (HEAD:kernel.py): "
                   "predicted speedup of SOURCE over B")  # fmt: skip
    add_call_argument(p)
    p.add_argument("--trips", action="append", type=trips_value, metavar="N|LINE=N",
                   help="N: hot-loop iterations per program where no evidence gives them; LINE=N (repeatable): the "
                   "loop whose `for` is on source line LINE runs N iterations per program, over any evidence (loops "
                   "inside it scale alike); a second loop the compiler made from the same line is LINE.2; an unknown "
                   "name's error lists the loops there are")  # fmt: skip
    p.add_argument("--timeout", type=float, default=600,
                   help="seconds for the whole call (compiles, the CPU engine's trip run, the loop-bound evaluation, "
                   "the baseline); past it: an error")  # fmt: skip
    add_frontend_argument(p, "kernel files (SOURCE and --baseline): the language, instead of detecting it")
    p.add_argument("--json", action="store_true", help="print the PredictResult model as JSON")
    p.add_argument("--explain", action="store_true",
                   help="after the prediction, each launch's terms: their time and share, the one that decided, the "
                   "formula and the device figures read with their sources (text; --json holds the same figures)")  # fmt: skip


def trips_value(text: str) -> tuple[str | None, float]:
    """One ``--trips`` as argparse reads it: ``N`` → (None, N), ``LINE=N`` → (LINE, N); the count a finite number in
    (0, MAX_TRIPS], checked while parsing (argparse.ArgumentTypeError, as the other numeric options are)."""
    import math

    from tools.errors import bounded
    from tools.limits import MAX_TRIPS

    name, sep, count = text.rpartition("=")
    try:
        n = float(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be N or LINE=N with N a number, got '{bounded(text, 40)}'") from None
    if not math.isfinite(n):
        raise argparse.ArgumentTypeError(f"must be a finite number, got '{bounded(text, 40)}'")
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {bounded(text, 40)}")
    if n > MAX_TRIPS:
        raise argparse.ArgumentTypeError(f"must be <= {MAX_TRIPS:g}, got {bounded(text, 40)}")
    if sep and not name.strip():
        raise argparse.ArgumentTypeError(f"names no loop before '=', got '{bounded(text, 40)}'")
    return (name.strip() if sep else None), n


def parse_trips(values: list[tuple[str | None, float]] | None) -> tuple[float | None, dict[str, float]]:
    """The ``--trips`` given (``trips_value`` each): (the one plain N, {LINE: N}); InputError for a second plain N."""
    plain, named = None, {}
    for name, n in values or []:
        if name is None:
            if plain is not None:
                raise InputError(f"--trips {n:g}: a second plain count (already {plain:g})",
                                 hint="give one --trips N; name other loops with --trips LINE=N")  # fmt: skip
            plain = n
        else:
            named[name] = n
    return plain, named


def run(args: argparse.Namespace) -> int:
    if args.explain and args.json:
        raise InputError("--explain prints text; --json already holds every term's time (launches[].figures)",
                         hint="drop one of --explain / --json")  # fmt: skip
    plain, named = parse_trips(args.trips)
    r = predict_file(
        args.source,
        args.arch,
        device=args.device,
        baseline=args.baseline,
        trips=plain,
        loop_trips=named or None,
        timeout=args.timeout,
        frontend=args.frontend,
        call=args.call,
    )
    print(r.model_dump_json(indent=2) if args.json else format_result(r))
    if args.explain:
        from tools.isa.machines import machine
        from tools.predict.terms import format_explain

        m = machine(r.device)
        for launch in [*r.baseline_launches, *r.launches]:
            if launch.predicted_us is not None and not launch.not_modelled:
                print("\n".join(format_explain(launch, m)))
    return 0
