"""prefetch-data-load --verify: does AFTER really prefetch BEFORE's hot loop, and what did it cost?

Each check is a ``VerifyCheck`` whose figures say what its verdict says: loads stay in the loop, prologue loads, loads
consumed in the next iteration, longer load-to-wait distance, memory latencies per iteration, spills, occupancy
against the launch grid (``occupancy_check``), register copies (``copies_check``), and on a GPU host the correctness
and speed of both sides (``tools.prefetch.gpu.measure_gpu``).
"""

from __future__ import annotations

from pathlib import Path

from tools.errors import InputError
from tools.isa import arch as archmod
from tools.models.prefetch import GpuMeasurement, LoopReport, PrefetchReport, VerifyCheck, VerifyReport
from tools.prefetch.analysis import SOURCE_SUFFIXES, analyze_prefetch, hot_loop_report, resolve_source


def verify_prefetch(
    before: str | Path,
    after: str | Path,
    arch: str | None = None,
    kernel: str | None = None,
    allow_occupancy_drop: int = 0,
    gpu: bool = True,
    compute_units: int | None = None,
    frontend: str | None = None,
    timeout: float = 600,
    trace: str | Path | None = None,
    trace_kernel: str | None = None,
) -> VerifyReport:
    """Compile/analyse BEFORE and AFTER and check that AFTER really prefetches: prologue loads before the loop,
    in-loop loads feeding the next iteration, longer load-to-wait distance, no loop-invariant hoisting, no new
    spills, no occupancy drop beyond ``allow_occupancy_drop``; report the loop-carried register copies it costs.

    With ``gpu`` (default), ``measure_gpu`` also runs both files where they define ``kernelpilot_run`` and a GPU is
    present: wrong output or a slower AFTER fail the verification; otherwise ``gpu.note`` says why nothing ran.
    An occupancy drop is judged against the launch (``occupancy_check``); ``compute_units`` overrides the CU/SM
    count of the product assumed for the arch. ``trace`` (a kernel-trace output: rocprofv3 kernel_trace.csv, ncu
    details...) gives the launch the GPU ran: the grid of ``trace_kernel`` (default: AFTER's kernel name) in it
    replaces the kernel files' example-argument grid (``tools.prefetch.launch``)."""
    before, after = resolve_source(before), resolve_source(after)
    b = analyze_prefetch(before, arch, kernel, frontend, timeout)
    a = analyze_prefetch(after, arch or b.arch, kernel, frontend, timeout)
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
    checks: list[VerifyCheck] = []
    if hb.loads_total and ha.bytes_per_lane_per_iteration and hb.bytes_per_lane_per_iteration:
        ratio = ha.bytes_per_lane_per_iteration / hb.bytes_per_lane_per_iteration
        same = 0.5 <= ratio <= 2
        checks.append(
            VerifyCheck(
                name="same-kernel",
                ok=same,
                detail=f"bytes/lane/iteration {hb.bytes_per_lane_per_iteration} → {ha.bytes_per_lane_per_iteration}"
                + ("" if same else ": the loops load different amounts; are these two versions of one kernel?"),
            )
        )
    in_loop = ha.loads_total
    checks.append(
        VerifyCheck(
            name="loads-stay-in-loop",
            ok=in_loop > 0,  # fewer, wider loads are fine (cp.async fills shared memory once per tile)
            detail=f"{hb.loads_total} → {in_loop} load(s) in the hot loop"
            + (
                ""
                if in_loop
                else "; the loads were hoisted out as loop-invariant: their address must advance with the loop counter"
            ),
        )
    )
    checks.append(
        VerifyCheck(
            name="prologue-loads",
            ok=a.prologue_loads > 0,
            detail=f"{a.prologue_loads} load(s) before the hot loop (BEFORE had {b.prologue_loads})",
        )
    )
    checks.append(
        VerifyCheck(
            name="loads-feed-next-iteration",
            ok=ha.verdict == "prefetched",
            detail=f"{ha.loads_next_iteration} of {in_loop} in-loop load(s) are consumed in the next iteration, "
            f"{ha.loads_exposed} exposed"
            + (f", {ha.loads_undetermined} undetermined" if ha.loads_undetermined else "")
            + f"; hot loop is {ha.verdict}"
            + ("" if ha.verdict == "prefetched" else f": {ha.reason}"),
        )
    )
    db, da = hb.closest_wait_cycles or 0, ha.closest_wait_cycles or 0
    checks.append(
        VerifyCheck(
            name="load-to-wait-distance-grew",
            ok=da > db,
            detail=f"closest load-to-wait ~{db} → ~{da} estimated cycles",
        )
    )
    lb, la = hb.memory_latencies_per_iteration, ha.memory_latencies_per_iteration
    if lb is not None and la is not None:
        checks.append(
            VerifyCheck(
                name="memory-latencies-per-iteration",
                ok=la <= lb,
                detail=f"~{lb} → ~{la} memory latencies exposed per iteration (iteration ~{hb.iteration_cycles} → "
                f"~{ha.iteration_cycles} cycles; {ha.latency_note})",
            )
        )
    sb, sa = b.spill_count or 0, a.spill_count or 0
    checks.append(VerifyCheck(name="no-new-spills", ok=sa <= sb, detail=f"spills {sb} → {sa}"))
    checks.append(copies_check(hb, ha, after))
    import tools.prefetch as api  # looked up on the package, so a patched tools.prefetch.measure_gpu is the one run

    measured = api.measure_gpu(before, after) if gpu else None
    occupancy = occupancy_check(b, a, allow_occupancy_drop, measured, compute_units)
    if occupancy is not None:
        checks.insert(next(i for i, c in enumerate(checks) if c.name == "no-new-spills") + 1, occupancy)
    if measured is not None and measured.before_correct is not None:
        checks += [measured.before_correct, measured.after_correct]
    if measured is not None and measured.comparison is not None:
        cmp = measured.comparison
        checks.append(VerifyCheck(name="gpu-not-slower", ok=cmp.verdict != "slower", detail=measured.note))
    ok = all(c.ok for c in checks)
    failed = [c.name for c in checks if not c.ok]
    summary = f"{'PASS' if ok else 'FAIL'}: {b.kernel} ({hb.verdict}) → {a.kernel} ({ha.verdict})" + (
        f"; failed: {', '.join(failed)}" if failed else f"; load-to-wait ~{db} → ~{da} cycles"
    )
    if lb is not None and la is not None:
        summary += f"; ~{lb} → ~{la} memory latencies per iteration"
    if measured is not None and measured.comparison is not None:
        summary += f"; GPU speedup {measured.comparison.speedup:.2f}x ({measured.comparison.verdict})"
    return VerifyReport(summary=summary, ok=ok, before=b, after=a, checks=checks, gpu=measured)


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
    return VerifyCheck(name="loop-carried-copies", ok=True, detail="; ".join(parts))


def _faster(measured: GpuMeasurement | None) -> bool:
    """A GPU measurement that found both outputs correct and AFTER faster."""
    if measured is None or measured.comparison is None:
        return False
    correct = all(c is not None and c.ok for c in (measured.before_correct, measured.after_correct))
    return correct and measured.comparison.verdict == "faster"


def occupancy_check(
    b: PrefetchReport,
    a: PrefetchReport,
    allow_drop: int = 0,
    measured: GpuMeasurement | None = None,
    compute_units: int | None = None,
) -> VerifyCheck | None:
    """Does AFTER's lower occupancy cost this launch anything?

    A CU/SM holds ``workgroups_per_cu`` workgroups at each occupancy; a grid of P workgroups on C CUs keeps at most
    ceil(P / C) per CU busy at once. The drop is felt only if AFTER then holds fewer than BEFORE did: otherwise it is
    a note. A felt drop fails, unless a GPU measurement found AFTER correct and faster (PASS with the note). With no
    grid known, the drop is a warning that says from which grid on it would matter."""
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
    if drop <= allow_drop:
        return VerifyCheck(name="occupancy", ok=True, detail=head + (f" (drop {drop} allowed)" if drop > 0 else ""))
    _, product = archmod.resident_groups_needed(1, a.arch, compute_units)
    cu = "CU" if amd else "SM"
    bg, ag = b.workgroups_per_cu or 0, a.workgroups_per_cu or 0
    matters = f"it matters once a launch keeps more than {ag} workgroups per {cu} busy (more than {ag * product.compute_units} workgroups on {product.name})"
    launch = a.launch or b.launch
    grid = launch.grid if launch else None
    if grid is None and measured is not None and measured.grid:
        grid = measured.grid
    speed = f"{measured.comparison.speedup:.2f}x" if measured is not None and measured.comparison else ""
    if grid is None:
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
    programs = 1
    for g in grid:
        programs *= g
    needed, product = archmod.resident_groups_needed(programs, a.arch, compute_units)
    where = (
        f"{programs} workgroups on {product.name} ({product.compute_units} {cu}s) need {needed} per {cu} at once; "
        f"BEFORE holds {bg}, AFTER {ag}"
    )
    if launch is not None and launch.source == "trace" and launch.grid == grid:
        where += f" (grid from the trace: {launch.note})"
    if min(needed, ag) >= min(needed, bg):
        return VerifyCheck(
            name="occupancy",
            ok=True,
            severity="note",
            detail=f"{head}, which this launch cannot feel: {where}; {matters}",
        )
    if _faster(measured):
        return VerifyCheck(
            name="occupancy",
            ok=True,
            severity="note",
            detail=f"{head}, felt by this launch ({where}), but the GPU measured AFTER correct and {speed} faster",
        )
    return VerifyCheck(
        name="occupancy",
        ok=False,
        detail=f"{head}, felt by this launch: {where}; keep AFTER at {b.occupancy} {unit} (or measure on a GPU)",
    )
