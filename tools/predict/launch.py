"""One launch predicted: a KernelDump's grid and occupancy, its loops' trips from the evidence (the CPU engine, the
loop bounds on the recorded arguments, trips stated by name or for every loop), one wave's work from its ISA, and its
launch shape (DRAM traffic, same-address atomics, L1 reuse) through the timing model (``model.predict``), raised to
the device's floors where it came out below them, in the band its assumptions widen. ``predict_launch`` is the entry
point (``tools.predict`` exports it)."""

from __future__ import annotations

import copy
import dataclasses
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from tools.isa.arch import amd_arch, is_amd
from tools.isa.machines import Machine, device_for
from tools.models.dump import KernelDump
from tools.models.predict import Band, LaunchFigures, LaunchPrediction, TripEvidence
from tools.predict.evidence import (
    Assumption,
    asm_assumptions,
    atomic_assumptions,
    band_of,
    feature_assumptions,
    floor_assumptions,
    histogram_op_assumptions,
    launch_band,
    matrix_flops,
    reuse_assumptions,
    sass_atomic_assumptions,
    trip_assumptions,
    unroll_assumptions,
)
from tools.predict.floors import launch_floors
from tools.predict.flydsl_launch import flydsl_called_launch, flydsl_launch
from tools.predict.kinds import kind_band, kind_of
from tools.predict.loops import fused_loops, stated_assumptions, stated_plan
from tools.predict.model import LaunchShape, WaveWork, predict

if TYPE_CHECKING:  # a type only: the atomics are read lazily, where a launch has a TTIR
    from tools.predict.atomics import Contention

DEFAULT_TRIPS = 1.0


# PyTorch's own kernels (a zeros() before the user's kernel): the artifacts hold no ISA for them
_LIBRARY_OP_RE = re.compile(r"(^|[\s<(])(at::native::|at::cuda::|c10::)")


def library_op(name: str) -> bool:
    """Whether ``name`` is a PyTorch (ATen) kernel, which the recorded artifacts never hold the ISA of."""
    return bool(_LIBRARY_OP_RE.search(name))


def _stage(k: KernelDump, *names: str) -> Path | None:
    for s in k.stages:
        if s.name in names or any(s.name.endswith(n) for n in names):
            return Path(s.path)
    return None


def _resident_blocks(k: KernelDump, waves_per_block: int, m: Machine) -> int | None:
    r = k.resources
    if is_amd(k.arch) and r.waves_per_simd:
        return max(1, r.waves_per_simd * amd_arch(k.arch).simds_per_cu // waves_per_block)
    if not is_amd(k.arch) and r.occupancy_warps_per_sm:
        return max(1, r.occupancy_warps_per_sm // waves_per_block)
    return None


def _executed_plan(executed: dict):
    """The CPU engine's loop executions (tools.check.compare.executed_loops) as a trip plan."""
    from tools.predict.trips import TtirLoop

    loops = [TtirLoop(lp["depth"], lp["executions"], lp["executions"], 0) for lp in executed["loops"]]
    detail = (
        f"executed on the CPU engine of check: {executed['workgroups']} workgroup(s), {executed['waves']} waves; "
        "loop back edges counted per wave (the mean is also used as the longest wave's)"
    )
    return loops, detail


def _scalars(k: KernelDump) -> dict[str, int]:
    """The launch's integer scalars by name and by position among the non-constexpr arguments (TTIR's order)."""
    scalars: dict[str, int] = {}
    pos = 0
    for a in k.launch.arguments if k.launch else []:
        if a.kind == "constexpr":
            continue
        if a.kind == "scalar" and isinstance(a.value, bool | int):
            scalars[a.name] = int(a.value)
            scalars[str(pos)] = int(a.value)
        pos += 1
    return scalars


def _tensor_values(k: KernelDump) -> dict[str, list[int]]:
    """The launch's recorded integer tensors' values by name and by position among the non-constexpr arguments."""
    out: dict[str, list[int]] = {}
    pos = 0
    for a in k.launch.arguments if k.launch else []:
        if a.kind == "constexpr":
            continue
        if a.kind == "tensor" and a.values:
            out[a.name] = a.values
            out[str(pos)] = a.values
        pos += 1
    return out


def _hottest(k: KernelDump) -> dict[str, tuple[int, dict[str, int]]]:
    """The launch's larger integer tensors' skew (LaunchArgument.hottest) with their elements, by argument name."""
    return {
        a.name: (math.prod(a.shape or [0]), a.hottest)
        for a in (k.launch.arguments if k.launch else [])
        if a.kind == "tensor" and a.hottest
    }


def _traffic(k: KernelDump, m: Machine, isa_text: str) -> tuple[float, str | None]:
    """DRAM bytes per requested byte: from the TTIR's offsets on the launch's scalars (Triton), else from the SASS
    address arithmetic (a CUDA kernel; AMD: 1, not modelled)."""
    ttir = _stage(k, "ttir")
    sector = int(m.value("memory_sector_bytes"))
    if ttir is not None and ttir.exists():
        if not k.launch or not k.launch.arguments:
            return 1.0, None
        from tools.predict.coalesce import traffic_factor

        return traffic_factor(ttir.read_text(), _scalars(k), sector)
    if is_amd(k.arch):
        return 1.0, None
    from tools.isa.sass import parse_sass
    from tools.predict.coalesce import sass_traffic_factor
    from tools.predict.nvidia import find_function

    try:
        f = find_function(parse_sass(isa_text), k.name)
    except LookupError:
        return 1.0, None
    return sass_traffic_factor(f.insts, sector, int(m.value("wave_size")))


def _l1_hits(k: KernelDump, m: Machine, ttir: str, grid: list[int], resident: int) -> tuple[float, str | None]:
    """The share of the launch's requested load bytes served by the SM's L1 (a program re-reading its own lines:
    ``tools.predict.reuse``), and the note that says so; (0, None) where none is found or the device file has no
    ``l1_bytes``."""
    from tools.predict.reuse import l1_hit_fraction, l1_reuse

    if "l1_bytes" not in m.figures:
        return 0.0, None
    sector = int(m.value("memory_sector_bytes"))
    reuse = l1_reuse(ttir, _scalars(k), grid, sector)
    if reuse is None or reuse.hit_fraction < 0.05:
        return 0.0, None
    hit = l1_hit_fraction(reuse, resident, m.value("l1_bytes"), k.resources.lds_bytes or 0)
    return hit, (
        f"L1 reuse: one program's loads request {reuse.requested_sectors:.0f} sectors, {reuse.distinct_sectors:.0f} "
        f"distinct ({reuse.footprint_bytes / 1024:.1f} KiB; re-reads of its own lines, e.g. a stencil's taps): "
        f"{hit:.0%} of the load bytes counted as L1 hits, not L2 traffic"
    )


def _trip_plan(k: KernelDump, grid: list[int] | None):
    """(source loops with trips, detail) from the loop bounds on the example arguments (Triton's TTIR, or FlyDSL's
    origin stage on the recorded @flyc.jit call), or (None, why not). A loop whose bounds are not known before the
    launch keeps trips None (``_assume_unknown`` states them)."""
    from tools.predict.trips import flydsl_loops, ttir_loops

    ttir = _stage(k, "ttir")
    origin = _stage(k, "origin") if k.frontend == "flydsl" else None
    if (ttir is None or not ttir.exists()) and (origin is None or not origin.exists()):
        return None, "no TTIR stage (not a Triton kernel) and no FlyDSL origin stage"
    if not k.launch or not k.launch.arguments:
        return None, "the launch's argument values were not recorded"
    if ttir is not None and ttir.exists():
        loops, detail = ttir_loops(ttir.read_text(), _scalars(k), grid, tensors=_tensor_values(k))
        ttgir = _stage(k, "ttgir")  # a flatten=True nest: the loops the compiler merged it into
        loops, detail = fused_loops(ttir.read_text(), ttgir, _scalars(k), grid, _tensor_values(k)) or (loops, detail)
    else:
        loops, detail = flydsl_loops(origin.read_text(errors="replace"), k.name, k.launch.arguments, grid)
        if loops is None:
            return None, detail
    if not loops:
        return [], "the kernel has no scf.for"
    if all(t.trips is None for t in loops):
        return None, "the scf.for bounds depend on values not known before the launch (loaded or loop-carried)"
    return loops, detail


def _assume_unknown(plan, assumed: float) -> tuple[list, list[str]]:
    """The plan with each loop whose bounds were not evaluated (loaded, thread-dependent or loop-carried) given
    ``assumed`` iterations per enclosing iteration, and a line per such loop naming the assumption."""
    from tools.predict.trips import TtirLoop

    out, lines = [], []
    around: dict[int, TtirLoop] = {}  # the latest loop of each depth: in program order, a loop's parent
    for i, t in enumerate(plan):
        if t.trips is None:
            parent = around.get(t.depth - 1)
            mean, peak = (parent.trips, parent.max_trips) if parent else (1.0, 1.0)
            t = dataclasses.replace(t, trips=mean * assumed, max_trips=peak * assumed)
            lines.append(
                f"scf.for #{i + 1} (depth {t.depth}): bounds not known before the launch (a loaded, thread-dependent "
                f"or loop-carried value): {assumed:g} iteration(s) per enclosing iteration assumed"
            )
        around[t.depth] = t
        out.append(t)
    return out, lines


def _hot_trips_assumed(k: KernelDump, text: str, m: Machine, plan_raw, work, waves_per_block: int, assumed: float):
    """Whether the hot loop's trips come from an assumed loop: they change when the assumption does (the ISA
    loops take their source loops' trips through the vendor module's mapping, so the dependence is asked of it)."""
    hot = next(lp for lp in work.loops if lp.hot)
    other, _ = _assume_unknown(plan_raw, assumed * 2 + 1)
    again, _, _ = _wave_work(k, text, m, other, assumed, waves_per_block)
    return next((lp.trips for lp in again.loops if lp.header == hot.header), None) != hot.trips


def _gated_programs(plan, k: KernelDump, programs: int) -> tuple[int, str] | None:
    """Programs that do the work when every loop sits in a branch whose condition reads a loaded value (a grouped
    GEMM's ``if start < end``, the offsets loaded): a correct kernel writes each output element once, so at most
    the output tensor's bytes / the tensor bytes the branch stores per program take it; the others exit at once and
    free their slot. (programs, the line saying so), or None when no such cap is below the grid."""
    loops = [t for t in plan or [] if t.trips]
    if not loops or not all(t.gate_stores for t in loops) or not (k.launch and k.launch.arguments):
        return None
    sizes = {a.name: a.nbytes for a in k.launch.arguments if a.kind == "tensor" and a.nbytes}
    caps = [(sizes[n] / b, n, b) for n, b in loops[0].gate_stores.items() if n in sizes and b]
    if not caps:
        return None
    most, name, b = min(caps)
    taken = max(1, math.ceil(most))
    if taken >= programs:
        return None
    line = (
        f"every loop runs under a branch whose condition reads a loaded value: at most {taken} of {programs} programs "
        f"take it ({name}'s {sizes[name]} B / the {b} B the branch stores per program, each output element written "
        "once, assumed); the others exit at once"
    )
    return taken, line


def _wave_work(k: KernelDump, text: str, m: Machine, plan, default: float, waves_per_block: int):
    if is_amd(k.arch):
        from tools.predict.amd import amd_wave_work

        return amd_wave_work(text, k.name, k.arch, m, plan, default, waves_per_block)
    from tools.predict.nvidia import nvidia_wave_work

    ttgir = _stage(k, "ttgir")
    ttgir_text = ttgir.read_text() if ttgir is not None and ttgir.exists() else None
    return nvidia_wave_work(text, k.name, m, plan, default, waves_per_block, ttgir_text)


def _undetermined(k: KernelDump, m: Machine, why: str, grid=None, programs=None, threads=None) -> LaunchPrediction:
    band = band_of(m)
    if band.status == "validated":
        band = Band(status="undetermined", source=band.source, note=band.note, rests_on=[f"no prediction: {why}"])
    return LaunchPrediction(
        name=k.name,
        arch=k.arch,
        device=m.name,
        grid=grid,
        programs=programs,
        block_threads=threads,
        predicted_us=None,
        bound=None,
        band=band,
        figures=LaunchFigures(),
        trips=TripEvidence(source="assumption", detail="not reached"),
        undetermined=why,
    )


def _launch_grid(k: KernelDump, notes: list[str]) -> tuple[list[int] | None, int | None]:
    """The launch's grid and block threads: as recorded, else (a FlyDSL kernel) read or computed from the host
    function's IR, with a note saying how; a grid of None where neither gives it."""
    grid = k.launch.grid if k.launch else None
    threads = k.launch.block_threads if k.launch else None
    if grid is None and k.frontend == "flydsl":
        found = flydsl_launch(k)
        how = "read from FlyDSL's gpu.launch_func (origin stage)"
        if not found and (found := flydsl_called_launch(k)):
            how = "computed by FlyDSL's host function (origin stage) from the recorded @flyc.jit call's arguments"
        if found:
            grid, threads = found
            notes.append(f"grid and block {how}")
    return grid, threads


@dataclasses.dataclass
class _TripPlan:
    """The source loops' trips for one launch and where they came from, before the ISA's loops take them."""

    loops: list | None  # every loop with trips (the unknown ones given ``default``); None: no loop's are known
    raw: list | None  # the same before that: a loop whose bounds are not known before the launch has trips None
    detail: str
    source: str  # "check" (the CPU engine's counts) or "loop-bounds"
    stated_lines: list[str]  # a line per loop whose trips were stated by name (--trips LINE=N)
    assumed: list[str]  # a line per loop given ``default`` trips
    trips: float | None  # the stated --trips N
    default: float  # the trips of a loop no evidence gives: ``trips``, else DEFAULT_TRIPS
    words: str  # how the evidence names that default


def _plan_trips(
    k: KernelDump,
    grid: list[int],
    trips: float | None,
    executed: dict | None,
    loop_trips: dict[str, float] | None,
    seen_loops: dict[str, tuple[list[str], str]] | None,
    notes: list[str],
) -> _TripPlan:
    """The trip plan from the evidence first (issue 22: the CPU engine's counts, then the loop bounds), the loops
    stated by name over it, and a stated --trips only where neither gives a loop's trips."""
    source = "loop-bounds"
    if executed and executed.get("loops"):
        plan, detail = _executed_plan(executed)
        source = "check"
    else:
        plan, detail = _trip_plan(k, grid)
        if executed and executed.get("skipped"):
            notes.append(executed["skipped"])
    plan, stated_lines = stated_plan(k.name, plan, loop_trips, seen_loops)  # --trips LINE=N over the evidence
    detail += "".join(f"; {line}" for line in stated_lines)
    default = float(trips) if trips else DEFAULT_TRIPS
    words = f"--trips {trips:g} (stated)" if trips else f"{default:g} iteration per loop assumed"
    assumed: list[str] = []
    raw = plan
    if plan:
        plan, assumed = _assume_unknown(plan, default)
    return _TripPlan(plan, raw, detail, source, stated_lines, assumed, trips, default, words)


def _trip_evidence(
    k: KernelDump, text: str, m: Machine, plan: _TripPlan, work, mean: float, peak: float, waves_per_block: int
) -> TripEvidence:
    """Where the hot loop's trips (``mean``, ``peak``) came from: no loop; an assumption (no plan, or the hot loop is
    one whose bounds are not known before the launch); else the plan's evidence, with the assumed loops named."""
    if not work.loops:
        return TripEvidence(source="no-loop", trips=1, max_trips=1, detail="the kernel has no loop")
    hint = "" if plan.trips else "; pass --trips N for the hot loop"
    if not plan.loops:
        detail = f"{plan.words} ({plan.detail}){hint}"
        return TripEvidence(source="assumption", trips=mean, max_trips=peak, detail=detail)
    if plan.assumed and _hot_trips_assumed(k, text, m, plan.raw, work, waves_per_block, plan.default):
        detail = (
            f"{plan.words} for the hot loop, whose bounds are not known before the launch ({'; '.join(plan.assumed)}); "
            f"the other loops from {plan.detail}{hint}"
        )
        return TripEvidence(source="assumption", trips=mean, max_trips=peak, detail=detail)
    detail = plan.detail + "".join(f"; {line}" for line in plan.assumed)
    return TripEvidence(source=plan.source, trips=mean, max_trips=peak, detail=detail)


@dataclasses.dataclass
class _Launch:
    """One launch as read for the timing model: its kernel and device, its geometry, its ISA and TTIR text, its trip
    plan, one wave's work and the trips' evidence, and the notes gathered so far."""

    k: KernelDump
    m: Machine
    grid: list[int]
    programs: int
    threads: int
    waves_per_block: int
    resident: int  # blocks per CU / SM
    text: str  # the final ISA
    ttir: str | None  # Triton's TTIR, where the kernel has one
    plan: _TripPlan
    work: WaveWork
    evidence: TripEvidence
    notes: list[str]


def _atomic_contention(launch: _Launch, sizes: dict[str, int]) -> Contention:
    """The launch's same-address atomics read from its TTIR (``tools.predict.atomics``); their notes, and one where
    the device's machine file cannot time them, added to the launch's."""
    from tools.predict.atomics import contention

    k, m, raw = launch.k, launch.m, launch.plan.raw
    atomics = contention(
        launch.ttir,
        list(launch.grid),
        m.table("same_address_atomic_ns"),
        sizes,
        loop_trips=[t.trips for t in raw] if raw else None,
        sector_bytes=int(m.value("memory_sector_bytes")) if "memory_sector_bytes" in m.figures else None,
        lanes=int(m.value("wave_size")) if "wave_size" in m.figures else None,
        hottest=_hottest(k),
    )
    launch.notes += atomics.notes
    if atomics.updates and atomics.us is None:
        launch.notes.append(
            f"global atomics: up to {atomics.updates:.0f} updates of one address; {m.name}'s machine file has no "
            "same_address_atomic_ns table, so their contention is not modelled (measure it)"
        )
    return atomics


def _launch_shape(launch: _Launch, sizes: dict[str, int], unique: int | None) -> tuple[LaunchShape, Contention | None]:
    """The launch's shape for the model: programs (those a loaded-value branch lets do the work), residency, DRAM
    bytes per requested byte, same-address atomics and L1 reuse, each noted where it changes the figures."""
    k, m = launch.k, launch.m
    factor, strided = _traffic(k, m, launch.text)
    if strided:
        launch.notes.append(strided)
    atomics = _atomic_contention(launch, sizes) if launch.ttir is not None else None
    working = launch.programs
    gated = _gated_programs(launch.plan.raw, k, launch.programs) if launch.plan.source == "loop-bounds" else None
    if gated:
        working = gated[0]
        launch.evidence.detail += f"; {gated[1]}"
    updates = atomics.updates if atomics else 0.0
    shape = LaunchShape(
        working, launch.waves_per_block, launch.resident, unique, factor, updates, atomics and atomics.us
    )
    shape.launched = launch.programs
    if launch.ttir is not None and k.launch and k.launch.arguments:
        shape.l1_hit_fraction, reuse_note = _l1_hits(k, m, launch.ttir, list(launch.grid), launch.resident)
        if reuse_note:
            launch.notes.append(reuse_note)
    return shape, atomics


def _no_reuse_us(launch: _Launch, shape: LaunchShape) -> float | None:
    """The launch's time with every load crossing the L2 (no L1 reuse): the band's top (``reuse_assumptions``);
    None where no L1 reuse was counted."""
    if not shape.l1_hit_fraction:
        return None
    no_reuse = dataclasses.replace(shape, l1_hit_fraction=0.0)
    ev = launch.evidence
    return predict(copy.deepcopy(launch.work), no_reuse, launch.m, ev.trips or 1.0, ev.max_trips or 1.0)[0]


def _model_assumptions(
    launch: _Launch, atomics: Contention | None, us: float, no_reuse_us: float | None
) -> list[Assumption]:
    """What the modelled time rests on, before the floors: assumed trips, atomics not counted, loops stated by name,
    the L1 reuse counted, unrolled loops, inline asm, histogram ops, and a CUDA kernel's atomics (from its SASS)."""
    k, m, ev, plan = launch.k, launch.m, launch.evidence, launch.plan
    hot_assumed = ev.source == "assumption"
    rests = trip_assumptions(ev.source, ev.detail, plan.trips if hot_assumed else None, plan.assumed)
    rests += atomic_assumptions(
        bool(atomics and atomics.data_dependent), atomics.updates if atomics and atomics.us is None else 0.0, m.name
    )
    rests += stated_assumptions(plan.stated_lines)
    rests += reuse_assumptions(us, no_reuse_us)
    rests += unroll_assumptions(launch.work.notes)
    rests += asm_assumptions(launch.ttir)
    rests += histogram_op_assumptions(launch.ttir)
    if atomics is None and not is_amd(k.arch):  # no TTIR (a CUDA kernel): its atomics are read from the SASS
        rests += sass_atomic_assumptions(launch.text, k.name)
    return rests


def _modelled(launch: _Launch, unique_bytes: int | None) -> LaunchPrediction:
    """The launch through the timing model (``model.predict``), raised to the device's floors where it came out
    below them, with the band of its kind widened by every assumption it rests on."""
    k, m, work, evidence, notes, plan = launch.k, launch.m, launch.work, launch.evidence, launch.notes, launch.plan
    sizes = {
        a.name: a.nbytes for a in (k.launch.arguments if k.launch else None) or [] if a.kind == "tensor" and a.nbytes
    }
    unique = sum(sizes.values()) or unique_bytes or None
    shape, atomics = _launch_shape(launch, sizes, unique)
    no_reuse_us = _no_reuse_us(launch, shape)
    us, bound, figures = predict(work, shape, m, evidence.trips or 1.0, evidence.max_trips or 1.0)
    rests = _model_assumptions(launch, atomics, us, no_reuse_us)
    kernel_time = us - (figures.launch_overhead_us or 0.0)
    working = shape.programs  # those a loaded-value branch lets do the work (_launch_shape)
    flops = matrix_flops(plan.loops, working)
    if launch.ttir is not None and k.launch:
        raised, floor_rests, floor_notes, unique = launch_floors(
            launch.ttir, plan.loops, plan.raw, list(launch.grid), working, k.launch.arguments, kernel_time, m, bound
        )
        rests, notes, flops = rests + floor_rests, notes + floor_notes, 0.0  # the tensor floor is judged there
        if raised:
            figures.floor_us = raised.us
            us, bound, kernel_time = raised.us + (figures.launch_overhead_us or 0.0), raised.bound, raised.us
    rests += floor_assumptions(kernel_time, m, flops, unique)
    kind = kind_of(bound, figures, evidence, {a.kind for a in rests if a.kind})
    rests += feature_assumptions(notes + work.notes, launch.ttir, sizes, bound, figures, m, kind)
    return LaunchPrediction(
        name=k.name,
        arch=k.arch,
        device=m.name,
        grid=list(launch.grid),
        programs=launch.programs,
        block_threads=launch.threads,
        predicted_us=round(us, 3),
        bound=bound,
        band=launch_band(kind_band(band_of(m), m.kind_bands, kind), rests),
        figures=figures,
        trips=evidence,
        loops=work.loops,
        notes=notes + work.notes,
    )


def predict_launch(
    k: KernelDump,
    *,
    device: str | None = None,
    trips: float | None = None,
    executed: dict | None = None,
    unique_bytes: int | None = None,
    loop_trips: dict[str, float] | None = None,
    seen_loops: dict[str, tuple[list[str], str]] | None = None,
) -> LaunchPrediction:
    """The predicted time of one compiled kernel's launch (its KernelDump.launch) on ``device`` (default: the
    architecture's usual device). Trips per loop from evidence, in order: ``executed`` (this launch's loop counts
    from the CPU engine, ``executed_trips``), the loop bounds on the example arguments (Triton) or on the recorded
    @flyc.jit call (FlyDSL); a loop neither gives runs ``trips`` times per enclosing iteration (stated), else once,
    and the evidence is an ``assumption`` when the hot loop is such a loop. ``unique_bytes``: the launch's tensors'
    bytes, stated, where its arguments were not recorded (a CUDA launch). ``loop_trips``: by loop name, stated trips;
    ``seen_loops``: one launch of several (``predict_kernels``), the names only this kernel has applied."""
    m = device_for(k.arch, device)
    notes: list[str] = []
    grid, threads = _launch_grid(k, notes)
    if not grid:
        why = "the launch grid is unknown: return example arguments with a 'grid'"
        if k.frontend == "flydsl":
            why = "the launch grid is computed by the host function at run time (not a constant in gpu.launch_func)"
        return _undetermined(k, m, why)
    programs = math.prod(grid)
    wave = int(m.value("wave_size"))
    threads = threads or (k.resources.max_flat_workgroup_size or 256)
    waves_per_block = max(1, math.ceil(threads / wave))
    resident = _resident_blocks(k, waves_per_block, m)
    if resident is None:
        return _undetermined(k, m, "occupancy unknown (no register figures)", grid, programs, threads)
    if not k.final_isa or not Path(k.final_isa).exists():
        return _undetermined(k, m, "no final ISA to read", grid, programs, threads)
    plan = _plan_trips(k, grid, trips, executed, loop_trips, seen_loops, notes)
    text = Path(k.final_isa).read_text(errors="replace")
    try:
        work, mean, peak = _wave_work(k, text, m, plan.loops, plan.default, waves_per_block)
    except LookupError as exc:
        p = _undetermined(k, m, str(exc), grid, programs, threads)
        if library_op(k.name):
            p.not_modelled = "a PyTorch (ATen) op: its ISA is in no artifact, so it is not modelled"
        return p
    evidence = _trip_evidence(k, text, m, plan, work, mean, peak, waves_per_block)
    ttir = _stage(k, "ttir")
    ttir_text = ttir.read_text() if ttir is not None and ttir.exists() else None
    launch = _Launch(
        k, m, grid, programs, threads, waves_per_block, resident, text, ttir_text, plan, work, evidence, notes
    )
    return _modelled(launch, unique_bytes)
