"""prefetch-data-load --verify: is AFTER correct, and is it faster than BEFORE? Then why (the structure).

The verdict is an outcome (``tools.outcome``): correctness first (the GPU run of ``kernelpilot_run`` where a GPU is
present, else ``kernelpilot check`` on the CPU where it applies, else "not checked"), then speed (measured on a GPU,
else predicted with the predictor's band). FAIL means incorrect, slower (measured, or predicted slower beyond the
band), new spills, or a budget the user set (``max_vgprs``, ``min_waves``, ``allow_occupancy_drop``). Structural
findings — loads in the loop, prologue loads, loads consumed in the next iteration, load-to-wait distance, memory
latencies per iteration, register copies, occupancy against each version's own launch — are ``note`` / ``warning``
checks that explain the time and suggest the next step; they never fail a verification on their own.
"""

from __future__ import annotations

from pathlib import Path

from tools.errors import InputError
from tools.isa import arch as archmod
from tools.models.outcome import Correctness, SpeedOutcome
from tools.models.prefetch import GpuMeasurement, LoopReport, PrefetchReport, VerifyCheck, VerifyReport
from tools.outcome import check_correctness, decide, kernel_dumps, no_speed, predict_speed, speed_from_comparison
from tools.prefetch.analysis import SOURCE_SUFFIXES, analyze_prefetch, hot_loop_report, resolve_source


def _finding(name: str, fine: bool, detail: str) -> VerifyCheck:
    """A structural finding: a note when it is what a prefetch looks like, a warning (with the next step) when not;
    never a failure."""
    return VerifyCheck(name=name, ok=True, severity="note" if fine else "warning", detail=detail)


def verify_prefetch(
    before: str | Path,
    after: str | Path,
    arch: str | None = None,
    kernel: str | None = None,
    allow_occupancy_drop: int | None = None,
    gpu: bool = True,
    compute_units: int | None = None,
    frontend: str | None = None,
    timeout: float = 600,
    trace: str | Path | None = None,
    trace_kernel: str | None = None,
    check: bool = True,
    max_vgprs: int | None = None,
    min_waves: int | None = None,
    device: str | None = None,
    call: str | None = None,
) -> VerifyReport:
    """Compile/analyse BEFORE and AFTER (``call``: the host function both run, tools.callspec); judge AFTER by outcome (correct, then faster) and explain the time with the
    structure of both hot loops.

    With ``gpu`` (default), ``measure_gpu`` runs both files where they define ``kernelpilot_run`` and a GPU is present
    (correctness and an interleaved timing); otherwise ``check`` (default on) compares the outputs on the CPU where
    the files allow it, and the predictor (``tools.predict``) gives the speed with its band. ``allow_occupancy_drop``,
    ``max_vgprs`` and ``min_waves`` are the user's budgets: breaking one fails. ``compute_units`` overrides the CU/SM
    count of the product assumed for the arch. ``trace`` (a kernel-trace output: rocprofv3 kernel_trace.csv, ncu
    details...) gives the launch the GPU ran: the grid of ``trace_kernel`` (default: AFTER's kernel name) in it
    replaces the kernel files' example-argument grid (``tools.prefetch.launch``). ``device`` names the machine model the
    prediction uses (``tools/isa/machines``; default: the arch's)."""
    before, after = resolve_source(before), resolve_source(after)
    b = analyze_prefetch(before, arch, kernel, frontend, timeout, call=call)
    a = analyze_prefetch(after, arch or b.arch, kernel, frontend, timeout, call=call)
    if b.arch and a.arch and b.arch != a.arch:
        raise InputError(f"BEFORE is {b.arch} and AFTER is {a.arch}", hint="compare two builds for one --arch")
    if trace is not None:
        from tools.prefetch.launch import launch_from_trace, with_launch

        launch = launch_from_trace(trace, trace_kernel or a.kernel)
        b, a = with_launch(b, launch), with_launch(a, launch)
    hb, ha = hot_loop_report(b), hot_loop_report(a)
    if hb is None:
        raise InputError(
            f"BEFORE ({b.kernel}) has no loop, so there is nothing to prefetch across",
            hint="verify a rewrite of a kernel with a loop; check --kernel",
        )
    if ha is None:
        raise InputError(
            f"AFTER ({a.kernel}) has no loop while BEFORE ({b.kernel}) has one: these are not two versions of one kernel "
            "(or the rewrite unrolled the loop completely, e.g. with constant bounds)",
            hint="use runtime loop bounds; pass --kernel when a file holds several kernels",
        )
    checks = structural_checks(b, a, hb, ha, after)
    sb, sa = b.spill_count or 0, a.spill_count or 0
    checks.append(VerifyCheck(name="no-new-spills", ok=sa <= sb, detail=f"spills {sb} → {sa}"))
    checks += budget_checks(a, max_vgprs, min_waves)
    import tools.prefetch as api  # looked up on the package, so a patched tools.prefetch.measure_gpu is the one run

    measured = api.measure_gpu(before, after) if gpu else None
    occupancy = occupancy_check(b, a, allow_occupancy_drop, measured, compute_units)
    if occupancy is not None:
        checks.insert(next(i for i, c in enumerate(checks) if c.name == "no-new-spills") + 1, occupancy)
    return judge_pair(
        b,
        a,
        hb,
        ha,
        checks,
        measured,
        before,
        after,
        check=check,
        timeout=timeout,
        frontend=frontend,
        device=device,
        call=call,
    )


def judge_pair(
    b: PrefetchReport,
    a: PrefetchReport,
    hb: LoopReport,
    ha: LoopReport,
    checks: list[VerifyCheck],
    measured: GpuMeasurement | None,
    before: str | Path,
    after: str | Path,
    *,
    check: bool = True,
    timeout: float = 600,
    frontend: str | None = None,
    device: str | None = None,
    call: str | None = None,
) -> VerifyReport:
    """The outcome verdict of a pair from its checks and the GPU measurement (or, without one, ``check`` on the CPU
    and the predictor): see ``tools.outcome.decide``. Only checks with ``ok=False`` (correctness, speed, spills,
    budgets) fail it."""
    correctness = _correctness(measured, before, after, a.arch, check, timeout, call)
    if correctness.source == "gpu":
        checks += [c for c in (measured.before_correct, measured.after_correct) if c is not None]
    elif correctness.source == "check" and correctness.checked:
        checks.append(VerifyCheck(name="outputs-correct", ok=correctness.ok is not False, detail=correctness.note))
    speed = _speed(measured, before, after, a.arch, frontend, timeout, device, call)
    if speed.source == "measured":
        checks.append(VerifyCheck(name="gpu-not-slower", ok=speed.verdict != "slower", detail=measured.note))
    elif speed.source == "predicted":
        checks.append(VerifyCheck(name="predicted-not-slower", ok=speed.verdict != "slower", detail=speed.note))
    failures = [f"{c.name} ({c.detail})" for c in checks if not c.ok and c.name not in _OUTCOME_CHECKS]
    verdict, reason = decide(failures, correctness, speed)
    db, da = hb.closest_wait_cycles or 0, ha.closest_wait_cycles or 0
    summary = f"{verdict.upper()}: {b.kernel} ({hb.verdict}) → {a.kernel} ({ha.verdict}); {reason}"
    summary += f"; load-to-wait ~{db} → ~{da} cycles"
    lb, la = hb.memory_latencies_per_iteration, ha.memory_latencies_per_iteration
    if lb is not None and la is not None:
        summary += f"; ~{lb} → ~{la} memory latencies per iteration"
    return VerifyReport(
        summary=summary,
        ok=verdict == "pass",
        verdict=verdict,
        undetermined=reason if verdict == "undetermined" else None,
        correctness=correctness,
        speed=speed,
        before=b,
        after=a,
        checks=checks,
        gpu=measured,
    )


# checks whose failure decide() already counts from the correctness and speed outcomes
_OUTCOME_CHECKS = {"before-correct", "after-correct", "outputs-correct", "gpu-not-slower", "predicted-not-slower"}


def _correctness(
    measured: GpuMeasurement | None, before, after, arch: str | None, check: bool, timeout: float, call=None
) -> Correctness:
    if measured is not None and (measured.before_correct is not None or measured.after_correct is not None):
        sides = [c for c in (measured.before_correct, measured.after_correct) if c is not None]
        ok = all(c.ok for c in sides)
        wrong = "; ".join(f"{c.name}: {c.detail}" for c in sides if not c.ok)
        return Correctness(
            checked=True, ok=ok, source="gpu", note=wrong or f"both outputs correct on {measured.device or 'the GPU'}"
        )
    if not check:
        return Correctness(checked=False, source="none", note="correctness not checked (--no-check, no GPU run)")
    return check_correctness(before, after, arch, timeout, call=call)


def _speed(
    measured: GpuMeasurement | None,
    before,
    after,
    arch: str | None,
    frontend,
    timeout,
    device: str | None = None,
    call: str | None = None,
) -> SpeedOutcome:
    if measured is not None and measured.comparison is not None:
        return speed_from_comparison(measured.comparison)
    if not arch:
        return no_speed("the target is unknown: pass --arch")
    try:
        kb = kernel_dumps(before, arch, frontend, timeout, call)
        ka = kernel_dumps(after, arch, frontend, timeout, call)
    except InputError as exc:
        return no_speed(f"no kernels to predict from: {exc.message}")
    speed, _ = predict_speed(kb, ka, arch, device)
    gpu_note = f"{measured.note}; " if measured is not None else ""
    return speed.model_copy(update={"note": gpu_note + speed.note}) if gpu_note else speed


def budget_checks(a: PrefetchReport, max_vgprs: int | None, min_waves: int | None) -> list[VerifyCheck]:
    """The user's register and occupancy budgets for AFTER (``--max-vgprs``, ``--min-waves``): breaking one fails."""
    out = []
    unit = "waves/SIMD" if a.arch and archmod.is_amd(a.arch) else "warps/SM"
    regs = "VGPRs" if a.arch and archmod.is_amd(a.arch) else "registers/thread"
    if max_vgprs is not None:
        ok = a.registers is not None and a.registers <= max_vgprs
        out.append(
            VerifyCheck(
                name="max-vgprs",
                ok=ok,
                detail=f"AFTER uses {a.registers if a.registers is not None else 'unknown'} {regs}; budget {max_vgprs}",
            )
        )
    if min_waves is not None:
        ok = a.occupancy is not None and a.occupancy >= min_waves
        out.append(
            VerifyCheck(
                name="min-waves",
                ok=ok,
                detail=f"AFTER holds {a.occupancy if a.occupancy is not None else 'unknown'} {unit}; budget "
                f"{min_waves}",
            )
        )
    return out


def structural_checks(
    b: PrefetchReport, a: PrefetchReport, hb: LoopReport, ha: LoopReport, after: str | Path
) -> list[VerifyCheck]:
    """What the two hot loops look like, as notes (a prefetch's shape) and warnings (what to look at next)."""
    checks: list[VerifyCheck] = []
    if hb.loads_total and ha.bytes_per_lane_per_iteration and hb.bytes_per_lane_per_iteration:
        ratio = ha.bytes_per_lane_per_iteration / hb.bytes_per_lane_per_iteration
        same = 0.5 <= ratio <= 2
        checks.append(
            _finding(
                "same-kernel",
                same,
                f"bytes/lane/iteration {hb.bytes_per_lane_per_iteration} → {ha.bytes_per_lane_per_iteration}"
                + ("" if same else ": the loops load different amounts; are these two versions of one kernel?"),
            )
        )
    in_loop = ha.loads_total
    checks.append(
        _finding(
            "loads-stay-in-loop",
            in_loop > 0,  # fewer, wider loads are fine (cp.async fills shared memory once per tile)
            f"{hb.loads_total} → {in_loop} load(s) in the hot loop"
            + (
                ""
                if in_loop
                else "; the loads were hoisted out as loop-invariant: their address must advance with the loop counter"
            ),
        )
    )
    checks.append(
        _finding(
            "prologue-loads",
            a.prologue_loads > 0,
            f"{a.prologue_loads} load(s) before the hot loop (BEFORE had {b.prologue_loads})",
        )
    )
    checks.append(
        _finding(
            "loads-feed-next-iteration",
            ha.verdict == "prefetched",
            f"{ha.loads_next_iteration} of {in_loop} in-loop load(s) are consumed in the next iteration, "
            f"{ha.loads_exposed} exposed"
            + (f", {ha.loads_undetermined} undetermined" if ha.loads_undetermined else "")
            + f"; hot loop is {ha.verdict}"
            + ("" if ha.verdict == "prefetched" else f": {ha.reason}"),
        )
    )
    db, da = hb.closest_wait_cycles or 0, ha.closest_wait_cycles or 0
    checks.append(
        _finding("load-to-wait-distance-grew", da > db, f"closest load-to-wait ~{db} → ~{da} estimated cycles")
    )
    lb, la = hb.memory_latencies_per_iteration, ha.memory_latencies_per_iteration
    if lb is not None and la is not None:
        checks.append(
            _finding(
                "memory-latencies-per-iteration",
                la <= lb,
                f"~{lb} → ~{la} memory latencies exposed per iteration (iteration ~{hb.iteration_cycles} → "
                f"~{ha.iteration_cycles} cycles; {ha.latency_note})",
            )
        )
    checks.append(copies_check(hb, ha, after))
    return checks


ROTATION_OPTION = "rotation-max-header-size"


def _option_set(source: str | Path, option: str) -> bool:
    if not isinstance(source, Path) and (not isinstance(source, str) or "\n" in source):
        return False
    path = Path(source)
    return path.suffix in SOURCE_SUFFIXES and path.is_file() and option in path.read_text(errors="replace")


def copies_check(hb: LoopReport, ha: LoopReport, after: str | Path) -> VerifyCheck:
    """Register copies in AFTER's hot loop by kind, with the cause of the first of each kind; a remedy is suggested
    only where it applies (rotation-max-header-size only for an unrotated loop whose source does not set it)."""
    parts = [
        f"loaded-data copies {hb.loaded_data_copies} → {ha.loaded_data_copies}",
        f"accumulator copies {hb.accumulator_copies} → {ha.accumulator_copies}",
    ]
    seen = set()
    for c in ha.copies:
        if c.kind == "other" or c.kind in seen:
            continue
        seen.add(c.kind)
        parts.append(f"{c.kind} `{c.text}` [{c.index}, {c.place}]: {c.cause}")
    grew = ha.loaded_data_copies + ha.accumulator_copies > hb.loaded_data_copies + hb.accumulator_copies
    if grew and ha.rotated is False:
        if _option_set(after, ROTATION_OPTION):
            parts.append(f"the loop is still unrotated although the source sets {ROTATION_OPTION}: raise its value")
        else:
            parts.append(
                f"the loop is unrotated (exit test at the top): raise LLVM's {ROTATION_OPTION}, e.g. "
                f"llvm_options {{'{ROTATION_OPTION}': 64}}"
            )
    return VerifyCheck(name="loop-carried-copies", ok=True, severity="note", detail="; ".join(parts))


def _faster(measured: GpuMeasurement | None) -> bool:
    """A GPU measurement that found both outputs correct and AFTER faster."""
    if measured is None or measured.comparison is None:
        return False
    correct = all(c is not None and c.ok for c in (measured.before_correct, measured.after_correct))
    return correct and measured.comparison.verdict == "faster"


def _grid(rep: PrefetchReport, measured: GpuMeasurement | None, use_measured: bool) -> list[int] | None:
    if rep.launch is not None and rep.launch.grid:
        return rep.launch.grid
    return measured.grid if use_measured and measured is not None and measured.grid else None


def _waves_per_group(rep: PrefetchReport) -> int:
    """Waves (AMD) or warps (NVIDIA) in one workgroup / block of this version's launch."""
    threads = rep.launch.block_threads if rep.launch is not None and rep.launch.block_threads else None
    if threads is None:
        return 1
    width = archmod.amd_arch(rep.arch).wavefront_size if archmod.is_amd(rep.arch) else 32
    return max(1, -(-threads // width))


def occupancy_check(
    b: PrefetchReport,
    a: PrefetchReport,
    allow_drop: int | None = None,
    measured: GpuMeasurement | None = None,
    compute_units: int | None = None,
) -> VerifyCheck | None:
    """Does AFTER keep fewer waves (warps) resident per CU (SM) than BEFORE at each version's own launch?

    A CU/SM holds ``workgroups_per_cu`` workgroups at each occupancy; a grid of P workgroups on C CUs keeps at most
    ceil(P / C) per CU busy at once. Each version's resident waves per CU are min(ceil(P / C), held) × waves per
    workgroup, for its own grid (a restructured kernel may launch another grid), never per-block occupancy across a
    grid change. Fewer resident waves is a warning that explains a time (less latency hidden), not a failure; it
    fails only against the user's budget ``allow_drop`` (waves/SIMD or warps/SM AFTER may lose). With no grid known
    it is a warning that says from which grid on it would matter."""
    if b.occupancy is None or a.occupancy is None or not a.arch:
        return None
    amd = archmod.is_amd(a.arch)
    unit = "waves/SIMD" if amd else "warps/SM"
    drop = b.occupancy - a.occupancy
    head = f"occupancy {b.occupancy} → {a.occupancy} {unit}" + (
        f" (AFTER limited by {a.occupancy_limiter})"
        if drop > 0 and a.occupancy_limiter not in (None, "hardware")
        else ""
    )
    if allow_drop is not None and drop > allow_drop:
        return VerifyCheck(
            name="occupancy", ok=False, detail=f"{head}: more than the {allow_drop} {unit} your budget allows"
        )
    cu = "CU" if amd else "SM"
    bg, ag = b.workgroups_per_cu or 0, a.workgroups_per_cu or 0
    _, product = archmod.resident_groups_needed(1, a.arch, compute_units)
    matters = f"it matters once a launch keeps more than {ag} workgroups per {cu} busy (more than {ag * product.compute_units} workgroups on {product.name})"
    gb = _grid(b, measured, use_measured=False)
    ga = _grid(a, measured, use_measured=True)
    if gb is None and ga is not None and (b.launch is None or not b.launch.grid):
        gb = ga  # BEFORE states no launch of its own: the same launch is assumed
    speed = f"{measured.comparison.speedup:.2f}x" if measured is not None and measured.comparison else ""
    if ga is None or gb is None:
        if drop <= 0:
            return VerifyCheck(name="occupancy", ok=True, severity="note", detail=head)
        if _faster(measured):
            return VerifyCheck(
                name="occupancy",
                ok=True,
                severity="note",
                detail=f"{head}; the GPU measured AFTER correct and {speed} faster at its launch; {matters}",
            )
        return VerifyCheck(
            name="occupancy",
            ok=True,
            severity="warning",
            detail=f"{head}: the launch grid is unknown; {matters}. Return example arguments with a 'grid' from "
            "kernelpilot_entry() (or measure on a GPU, or pass --trace with a kernel trace of the launch) to decide",
        )
    pb, pa = _programs(gb), _programs(ga)
    nb, _ = archmod.resident_groups_needed(pb, a.arch, compute_units)
    na, product = archmod.resident_groups_needed(pa, a.arch, compute_units)
    wb = min(nb, bg) * _waves_per_group(b)
    wa = min(na, ag) * _waves_per_group(a)
    waves = "waves" if amd else "warps"
    if pa == pb:
        where = (
            f"{pa} workgroups on {product.name} ({product.compute_units} {cu}s) need {na} per {cu} at once; "
            f"BEFORE holds {bg}, AFTER {ag}"
        )
    else:
        where = (
            f"BEFORE's {pb} workgroups need {nb} per {cu} at once and it holds {bg}; AFTER's {pa} need {na} and it "
            f"holds {ag} (on {product.name}, {product.compute_units} {cu}s)"
        )
    launch = a.launch or b.launch
    if launch is not None and launch.source == "trace" and launch.grid == ga:
        where += f" (grid from the trace: {launch.note})"
    where += f": {wb} → {wa} resident {waves} per {cu}"
    if wa >= wb:
        feel = "which this launch cannot feel" if drop > 0 else "at each version's own launch"
        return VerifyCheck(name="occupancy", ok=True, severity="note", detail=f"{head}, {feel}: {where}; {matters}")
    if _faster(measured):
        return VerifyCheck(
            name="occupancy",
            ok=True,
            severity="note",
            detail=f"{head}, felt by this launch ({where}), but the GPU measured AFTER correct and {speed} faster",
        )
    return VerifyCheck(
        name="occupancy",
        ok=True,
        severity="warning",
        detail=f"{head}, felt by this launch: {where}; fewer {waves} in flight hide less memory latency: if AFTER is "
        f"not faster, keep it at {b.occupancy} {unit} (or measure on a GPU)",
    )


def _programs(grid: list[int]) -> int:
    n = 1
    for g in grid:
        n *= g
    return n
