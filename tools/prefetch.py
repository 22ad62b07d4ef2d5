"""prefetch-data-load: find exposed load latency in loops (hot loop first) and verify a prefetch rewrite.

Input: a kernel file (compiled with dump-ir), an ISA/SASS file, a dump directory, or ISA text. AMDGCN goes through
``tools.prefetch_amd`` (on the ISA model), SASS through ``tools.prefetch_sass``. ``analyze_prefetch`` and
``verify_prefetch`` are pure with respect to their inputs (compiles are cached by content) and return pydantic models.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from tools import inputs
from tools.errors import InputError
from tools.isa import arch as archmod
from tools.models.dump import LaunchInfo, Resources
from tools.models.prefetch import (
    BaselineComparison,
    GpuMeasurement,
    LoopReport,
    PrefetchReport,
    RegisterHeadroom,
    VerifyCheck,
    VerifyReport,
)

RUN_ENTRY = "kernelpilot_run"
SOURCE_SUFFIXES, ISA_SUFFIXES, SASS_SUFFIXES = inputs.SOURCE_SUFFIXES, inputs.ISA_SUFFIXES, inputs.SASS_SUFFIXES
MAX_LOOPS = 16


_REF_DIRS: list = []  # temporary directories holding files read from git refs; removed at exit


def resolve_source(source: str | Path, dest_dir: Path | None = None, cwd: Path | None = None) -> str | Path:
    """A path or ISA text as is; a git ref ``REV:path`` (``HEAD:kernel.py``) read with ``tools.gitref`` into a file of
    the same name under ``dest_dir`` (default: a temporary directory removed at exit), so a baseline needs no copy in
    the workspace. InputError (from ``tools.gitref``) when the ref names no commit or the path is not in it."""
    from tools.gitref import is_git_spec, read_git_file

    if not isinstance(source, str) or "\n" in source or not is_git_spec(source, cwd):
        return source
    if dest_dir is None:
        import atexit
        import tempfile

        if not _REF_DIRS:
            atexit.register(lambda: [d.cleanup() for d in _REF_DIRS])
        tmp = tempfile.TemporaryDirectory(prefix="kernelpilot-ref-")
        _REF_DIRS.append(tmp)
        dest_dir = Path(tmp.name)
    return read_git_file(source, dest_dir, cwd).local_path


def _is_sass(text: str) -> bool:
    return "/*0000*/" in text or ("\t.headerflags" in text and '@"EF_CUDA' in text) or "        /*00" in text


def _load_input(
    source: str | Path, arch: str | None, frontend: str | None = None, timeout: float = 600
) -> tuple[list[tuple[str, str, Resources | None, LaunchInfo | None]], str | None, str]:
    """[(isa_text, isa_path, resources, launch)], arch, origin — compiling kernel sources through dump-ir."""
    found = inputs.load_isa_inputs(source, arch, frontend=frontend, timeout=timeout, tool="prefetch-data-load")
    return [(i.text, i.path, i.resources, i.launch) for i in found.items], found.arch, found.origin


def _block_threads(arch: str, res: Resources, launch: LaunchInfo | None) -> int:
    """Threads per workgroup / block: the launch's, else the kernel's maximum, else 256 (SASS does not say)."""
    if launch is not None and launch.block_threads:
        return launch.block_threads
    return res.max_flat_workgroup_size or 256


def occupancy_with_registers(arch: str, res: Resources, registers: int) -> int:
    """Occupancy (waves/SIMD or warps/SM) if the kernel used ``registers`` and every other resource stayed as is.

    AMD: the VGPR limit of max(``registers``, what the descriptor reserves) against the kernel's other limits (SGPR,
    launch LDS, waves-per-eu, block size); NVIDIA: the CUDA occupancy calculation with its shared memory and block."""
    if archmod.is_amd(arch):
        reserved = max(registers, res.vgpr_reserved or 0)  # LLVM's padding (amdgpu-waves-per-eu) stays
        others = [v for k, v in res.occupancy_limits.items() if k != "vgpr"]
        return min([archmod.waves_per_simd_from_vgprs(arch, reserved), *others])
    threads = _block_threads(arch, res, None)
    return archmod.nvidia_occupancy(arch, registers, res.lds_bytes or 0, threads).value


def workgroups_per_cu(arch: str, occupancy: int, block_threads: int) -> int:
    """Workgroups (blocks) one CU (SM) holds at ``occupancy`` waves/SIMD (warps/SM)."""
    if archmod.is_amd(arch):
        info = archmod.amd_arch(arch)
        return occupancy * info.simds_per_cu // max(1, -(-block_threads // info.wavefront_size))
    return occupancy // max(1, -(-block_threads // 32))


def _headroom(arch: str | None, res: Resources | None, hot: LoopReport | None) -> RegisterHeadroom | None:
    if arch is None or res is None:
        return None
    buffer = (hot.bytes_per_lane_per_iteration + 3) // 4 if hot else 0
    already = hot is not None and hot.verdict == "prefetched"
    add = 0 if already else buffer
    if archmod.is_amd(arch):
        cur = res.vgpr_count
        if cur is None:
            return RegisterHeadroom(
                arch=arch, prefetch_buffer_vgprs=buffer, verdict="unknown", note="the ISA states no VGPR count"
            )
        unit = "waves/SIMD"
        limit = archmod.amd_arch(arch).max_vgprs_per_wave
    else:
        cur = res.registers_per_thread
        if cur is None:
            return RegisterHeadroom(
                arch=arch,
                prefetch_buffer_vgprs=buffer,
                verdict="unknown",
                note="no register count (cuobjdump missing?)",
            )
        unit = f"warps/SM ({_block_threads(arch, res, None)}-thread blocks)"
        limit = 255
    proj = cur + add
    occ = occupancy_with_registers(arch, res, cur)
    pocc = occupancy_with_registers(arch, res, proj)
    threshold = next((r for r in range(limit, cur - 1, -1) if occupancy_with_registers(arch, res, r) >= occ), None)
    what = "already holds its prefetch buffer" if already else f"needs {buffer} more for a one-iteration buffer"
    if proj > limit:
        verdict, note = "exceeds-register-file", f"{cur} registers + {add} > {limit}: the buffer would spill"
    elif pocc < occ:
        verdict = "costs-occupancy"
        note = f"{cur} registers, {what}: {proj} drops occupancy {occ} → {pocc} {unit} (threshold {threshold})"
    else:
        verdict = "fits"
        note = f"{cur} registers, {what}: {proj} keeps {occ} {unit} (up to {threshold} keeps it)"
    return RegisterHeadroom(
        arch=arch,
        current_vgprs=cur,
        prefetch_buffer_vgprs=buffer,
        projected_vgprs=proj,
        current_occupancy=occ,
        projected_occupancy=pocc,
        next_threshold_vgprs=threshold,
        verdict=verdict,
        note=note,
    )


def _analyze_text(text: str, path: str, arch: str | None, kernel: str | None, res: Resources | None):
    """[(kernel name, loops, prologue loads, has_loc, resources, arch)] for every kernel in one ISA text."""
    if _is_sass(text):
        from tools.prefetch_sass import analyze_sass

        return analyze_sass(text, arch, kernel, res)
    from tools.isa.amdgcn import parse_isa
    from tools.isa.metadata import resources_from_metadata
    from tools.prefetch_amd import analyze_kernel

    isa = parse_isa(text, path)
    arch = arch or isa.arch
    out = []
    for k in isa.kernels:
        if kernel and kernel != k.name and kernel not in k.name:
            continue
        loops, prologue = analyze_kernel(k, arch)
        has_loc = any(i.loc is not None for i in k.instructions)
        kres = res if res is not None and len(isa.kernels) == 1 else None
        if kres is None and k.metadata is not None:
            kres = resources_from_metadata(k.metadata, arch)
        out.append((k.name, loops, prologue, has_loc, kres, arch))
    return out


def analyze_prefetch(
    source_or_isa: str | Path,
    arch: str | None = None,
    kernel: str | None = None,
    frontend: str | None = None,
    timeout: float = 600,
    baseline: str | Path | None = None,
) -> PrefetchReport:
    """Analyse one kernel's loops for exposed load latency; the hot loop comes first.

    ``source_or_isa``: a kernel file (.py FlyDSL/Triton, .cu, .hip; compiled through dump-ir for ``arch``, default
    gfx942, sm_90 for .cu), an AMDGCN .s or SASS .sass file, a dump directory, ISA text, or a git ref
    (``HEAD:kernel.py``). ``kernel`` picks one kernel by (sub)name; otherwise the kernel whose hot loop does the most
    work is reported. ``baseline`` (a file or git ref) adds occupancy, register, copy and latency changes against it.
    """
    rep = _analyze_one(resolve_source(source_or_isa), arch, kernel, frontend, timeout)
    if baseline is not None:
        base = _analyze_one(resolve_source(baseline), rep.arch or arch, kernel, frontend, timeout)
        rep.baseline = compare_to_baseline(base, rep, str(baseline))
        change = "; ".join(rep.baseline.regressions) or "no regression"
        rep.summary += f"; vs {baseline}: {change}"
    return rep


def _analyze_one(
    source_or_isa: str | Path, arch: str | None, kernel: str | None, frontend: str | None, timeout: float
) -> PrefetchReport:
    texts, arch, origin = _load_input(source_or_isa, arch, frontend, timeout)
    candidates = []
    launches = {path: launch for _, path, _, launch in texts}
    for text, path, res, _ in texts:
        for name, loops, prologue, has_loc, kres, karch in _analyze_text(text, path, arch, kernel, res):
            candidates.append((name, loops, prologue, has_loc, kres, karch, path))
    if not candidates:
        if kernel:
            raise InputError(f"no kernel named '{kernel}' in {origin}", hint="omit --kernel to see the kernels there")
        raise InputError(f"no kernel found in {origin}", hint="pass the final ISA of a kernel")

    def weight(c):
        hot = next((lp for lp in c[1] if lp.is_hot), None)
        return (hot is not None, (hot.loads_total + hot.mfma_count) if hot else 0)

    name, loops, prologue, has_loc, res, karch, path = max(candidates, key=weight)
    hot = next((lp for lp in loops if lp.is_hot), None)
    notes = []
    if not has_loc:
        notes.append(
            "the ISA carries no .loc/line info: loads are located by instruction index only "
            "(FlyDSL: leave debug info on; hipcc/nvcc: add -g / -lineinfo)"
        )
    if len(candidates) > 1:
        notes.append(f"{len(candidates)} kernels found; reporting {name} (pass --kernel to pick another)")
    if not loops:
        summary = f"{name}: no loop in this kernel, so there is no iteration to prefetch across"
    else:
        counts: dict[str, int] = {}
        for lp in loops:
            counts[lp.verdict] = counts.get(lp.verdict, 0) + 1
        desc = ", ".join(f"{v} {k}" for k, v in counts.items())
        summary = f"{name}: hot loop {hot.header if hot else '?'} is {hot.verdict if hot else '?'}"
        if hot:
            summary += (
                f" ({hot.loads_next_iteration} of {hot.loads_total} loads consumed in the next iteration, "
                f"{hot.loads_exposed} exposed"
                + (f", {hot.loads_undetermined} undetermined" if hot.loads_undetermined else "")
                + f"; {hot.bytes_per_lane_per_iteration} B/lane/iteration"
                + (
                    f"; ~{hot.memory_latencies_per_iteration} memory latencies per iteration"
                    if hot.memory_latencies_per_iteration is not None
                    else ""
                )
                + ")"
            )
        summary += f"; {len(loops)} loop(s): {desc}"
    headroom = _headroom(karch, res, hot)
    if headroom:
        summary += f"; registers: {headroom.verdict}"
    spills = None
    occ = headroom.current_occupancy if headroom else None
    launch = launches.get(path)
    groups = None
    if res is not None:
        spills = res.vgpr_spill_count if karch and archmod.is_amd(karch) else res.spill_store_bytes
        occ = res.waves_per_simd if res.waves_per_simd is not None else res.occupancy_warps_per_sm
        occ = occ if occ is not None else (headroom.current_occupancy if headroom else None)
        if occ is not None and karch:
            groups = workgroups_per_cu(karch, occ, _block_threads(karch, res, launch))
    return PrefetchReport(
        summary=summary,
        source=origin,
        arch=karch,
        kernel=name,
        has_source_lines=has_loc,
        loops=loops[:MAX_LOOPS],
        loops_total=len(loops),
        headroom=headroom,
        prologue_loads=prologue,
        spill_count=spills,
        occupancy=occ,
        occupancy_limiter=res.occupancy_limiter if res is not None else None,
        workgroups_per_cu=groups,
        launch=launch,
        notes=notes,
        isa_path=path,
        registers=headroom.current_vgprs if headroom else None,
    )


def compare_to_baseline(base: PrefetchReport, rep: PrefetchReport, label: str) -> BaselineComparison:
    """What changed from ``base`` to ``rep``: occupancy, registers, spills, copies by kind, latencies per iteration;
    ``regressions`` names each change for the worse with its figures."""
    hb, ha = _hot(base), _hot(rep)
    cmp = BaselineComparison(
        baseline=label,
        verdict_before=hb.verdict if hb else None,
        occupancy_before=base.occupancy,
        occupancy_after=rep.occupancy,
        registers_before=base.registers,
        registers_after=rep.registers,
        spills_before=base.spill_count,
        spills_after=rep.spill_count,
        loaded_data_copies_before=hb.loaded_data_copies if hb else 0,
        loaded_data_copies_after=ha.loaded_data_copies if ha else 0,
        accumulator_copies_before=hb.accumulator_copies if hb else 0,
        accumulator_copies_after=ha.accumulator_copies if ha else 0,
        latencies_before=hb.memory_latencies_per_iteration if hb else None,
        latencies_after=ha.memory_latencies_per_iteration if ha else None,
    )
    unit = "waves/SIMD" if rep.arch and archmod.is_amd(rep.arch) else "warps/SM"
    if cmp.occupancy_before is not None and cmp.occupancy_after is not None:
        if cmp.occupancy_after < cmp.occupancy_before:
            cmp.regressions.append(
                f"occupancy {cmp.occupancy_before} → {cmp.occupancy_after} {unit} "
                f"(registers {cmp.registers_before} → {cmp.registers_after})"
            )
    if (cmp.spills_after or 0) > (cmp.spills_before or 0):
        cmp.regressions.append(f"spills {cmp.spills_before or 0} → {cmp.spills_after}")
    for kind in ("loaded_data", "accumulator"):
        b, a = getattr(cmp, f"{kind}_copies_before"), getattr(cmp, f"{kind}_copies_after")
        if a > b:
            cmp.regressions.append(f"{kind.replace('_', '-')} copies in the hot loop {b} → {a}")
    if cmp.latencies_before is not None and cmp.latencies_after is not None:
        if cmp.latencies_after > cmp.latencies_before:
            cmp.regressions.append(f"memory latencies per iteration ~{cmp.latencies_before} → ~{cmp.latencies_after}")
        else:
            cmp.notes.append(f"memory latencies per iteration ~{cmp.latencies_before} → ~{cmp.latencies_after}")
    if hb and ha:
        cmp.notes.append(f"hot loop {hb.verdict} → {ha.verdict}")
    return cmp


def hot_loop_of(isa: str | Path, arch: str | None, kernel: str) -> LoopReport | None:
    """The hot loop's report for the kernel named exactly ``kernel`` in an AMDGCN ISA file or text (None: no loop);
    the eval ISA checks read their load facts from here, so they and prefetch-data-load cannot disagree."""
    from tools.isa.amdgcn import find_kernel, load_isa_text, parse_isa
    from tools.prefetch_amd import analyze_kernel

    text = isa if isinstance(isa, str) and "\n" in isa else load_isa_text(isa)
    parsed = parse_isa(text, str(isa) if "\n" not in str(isa) else "<text>")
    loops, _ = analyze_kernel(find_kernel(parsed, kernel), arch or parsed.arch)
    return next((lp for lp in loops if lp.is_hot), None)


def _hot(rep: PrefetchReport) -> LoopReport | None:
    return next((lp for lp in rep.loops if lp.is_hot), None)


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
) -> VerifyReport:
    """Compile/analyse BEFORE and AFTER and check that AFTER really prefetches: prologue loads before the loop,
    in-loop loads feeding the next iteration, longer load-to-wait distance, no loop-invariant hoisting, no new
    spills, no occupancy drop beyond ``allow_occupancy_drop``; report the loop-carried register copies it costs.

    With ``gpu`` (default), ``measure_gpu`` also runs both files where they define ``kernelpilot_run`` and a GPU is
    present: wrong output or a slower AFTER fail the verification; otherwise ``gpu.note`` says why nothing ran.
    An occupancy drop is judged against the launch (``occupancy_check``); ``compute_units`` overrides the CU/SM
    count of the product assumed for the arch."""
    before, after = resolve_source(before), resolve_source(after)
    b = analyze_prefetch(before, arch, kernel, frontend, timeout)
    a = analyze_prefetch(after, arch or b.arch, kernel, frontend, timeout)
    if b.arch and a.arch and b.arch != a.arch:
        raise InputError(f"BEFORE is {b.arch} and AFTER is {a.arch}", hint="compare two builds for one --arch")
    hb, ha = _hot(b), _hot(a)
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
    measured = measure_gpu(before, after) if gpu else None
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
    grid = (a.launch or b.launch).grid if (a.launch or b.launch) else None
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
            "kernelpilot_entry() (or measure on a GPU) to decide",
        )
    programs = 1
    for g in grid:
        programs *= g
    needed, product = archmod.resident_groups_needed(programs, a.arch, compute_units)
    where = (
        f"{programs} workgroups on {product.name} ({product.compute_units} {cu}s) need {needed} per {cu} at once; "
        f"BEFORE holds {bg}, AFTER {ag}"
    )
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


def format_load(ld) -> str:
    """One load's line: where it waits and why, where its data is consumed, whether its latency is hidden."""
    wait = (
        f"wait [{ld.wait_index}] +{ld.load_to_wait_instructions} (~{ld.load_to_wait_cycles} cyc"
        + (f", iteration +{ld.wait_iteration}" if ld.wait_iteration else "")
        + f") {ld.wait_reason or ''}"
        if ld.wait_index is not None
        else "no wait in the loop"
    )
    use = f"use +{ld.load_to_use_distance}" if ld.load_to_use_distance is not None else "no use in the loop"
    state = {True: "hidden", False: "EXPOSED", None: "undetermined"}[ld.latency_hidden]
    kind = "s " if ld.memory == "scalar" else ""
    line = f"  [{ld.index}] {kind}{ld.text[:56]:<56} {ld.source or '':<22} {wait}; {use}; {ld.consumed}; {state}"
    if ld.wait_reason_detail and ld.latency_hidden is not True:
        line += f"\n        why: {ld.wait_reason_detail}"
    if ld.undetermined_reason:
        line += f"\n        undetermined: {ld.undetermined_reason}"
    return line


def format_report(rep: PrefetchReport) -> str:
    lines = [rep.summary]
    for note in rep.notes:
        lines.append(f"note: {note}")
    for lp in rep.loops:
        tag = "HOT " if lp.is_hot else ""
        lines.append(
            f"\n{tag}loop {lp.header} [{lp.first_instruction}..{lp.last_instruction}] depth {lp.depth}: "
            f"{lp.verdict} — {lp.reason}"
        )
        lines.append(
            f"  {lp.loads_total} load(s) ({lp.scalar_loads} scalar): {lp.loads_next_iteration} consumed in the next "
            f"iteration, {lp.loads_exposed} exposed, {lp.loads_undetermined} undetermined; "
            f"{lp.bytes_per_lane_per_iteration} B/lane/iter, {lp.mfma_count} MFMA/MMA, {lp.valu_count} VALU, "
            f"~{lp.compute_cycles} compute cycles"
        )
        if lp.memory_latencies_per_iteration is not None:
            lines.append(
                f"  ~{lp.memory_latencies_per_iteration} memory latencies exposed per iteration (iteration "
                f"~{lp.iteration_cycles} cycles; {lp.latency_note})"
            )
        lines.append(
            f"  copies: {lp.loaded_data_copies} of loaded data, {lp.accumulator_copies} of accumulators, "
            f"{lp.other_copies} other" + ("" if lp.rotated is not False else "; the loop is unrotated")
        )
        shown = set()
        for c in lp.copies:
            if c.kind != "other" and (c.kind, c.cause) not in shown:
                shown.add((c.kind, c.cause))
                lines.append(f"    {c.kind} `{c.text}` [{c.index}, {c.place}]: {c.cause}")
        for ld in lp.loads:
            lines.append(format_load(ld))
        if lp.loads_total > len(lp.loads):
            lines.append(f"  … {lp.loads_total - len(lp.loads)} more load(s) (counted above)")
        for br in lp.barriers:
            lines.append(f"  barrier [{br.index}] {br.source or ''}: {br.note}")
    if rep.headroom:
        lines.append(f"\nregisters: {rep.headroom.verdict}: {rep.headroom.note}")
    if rep.baseline:
        cmp = rep.baseline
        lines.append(f"\nvs {cmp.baseline}: " + ("; ".join(cmp.regressions) or "no regression"))
        lines.append(
            f"  occupancy {cmp.occupancy_before} → {cmp.occupancy_after}, registers {cmp.registers_before} → "
            f"{cmp.registers_after}, spills {cmp.spills_before} → {cmp.spills_after}, loaded-data copies "
            f"{cmp.loaded_data_copies_before} → {cmp.loaded_data_copies_after}, accumulator copies "
            f"{cmp.accumulator_copies_before} → {cmp.accumulator_copies_after}"
        )
        for note in cmp.notes:
            lines.append(f"  {note}")
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", nargs="?", help="kernel file, ISA (.s/.amdgcn), SASS (.sass) or dump directory")
    p.add_argument("--arch", help="target when compiling a kernel file (default gfx942; sm_90 for .cu)")
    p.add_argument("--kernel", help="kernel name (or unique substring) when the input holds several")
    p.add_argument(
        "--frontend",
        choices=["flydsl", "triton", "cuda", "hip", "mojo"],
        help="kernel files: override language detection",
    )
    p.add_argument("--timeout", type=float, default=600, help="kernel files: seconds before a compile is stopped")
    p.add_argument(
        "--verify",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="check that AFTER prefetches BEFORE's loop (each a file or a git ref such as HEAD:kernel.py)",
    )
    p.add_argument(
        "--baseline",
        metavar="BASE",
        help="also report occupancy, register, copy and latency changes against BASE (a file or git ref HEAD:k.py)",
    )
    p.add_argument("--allow-occupancy-drop", type=int, default=0, help="--verify: waves/warps AFTER may lose")
    p.add_argument("--no-gpu", action="store_true", help="--verify: skip the GPU correctness and timing run")
    p.add_argument(
        "--compute-units",
        type=int,
        help="--verify: CUs/SMs of the GPU the launch runs on (default: MI300X 304, MI355X 256, H100 132, A100 108)",
    )
    p.add_argument("--json", action="store_true", help="print the report model as JSON")


def run(args: argparse.Namespace) -> int:
    if args.verify:
        rep = verify_prefetch(
            args.verify[0],
            args.verify[1],
            args.arch,
            args.kernel,
            args.allow_occupancy_drop,
            gpu=not args.no_gpu,
            compute_units=args.compute_units,
            frontend=args.frontend,
            timeout=args.timeout,
        )
        if args.json:
            print(rep.model_dump_json(indent=2))
        else:
            print(rep.summary)
            for c in rep.checks:
                tag = "FAIL" if not c.ok else {"note": "note", "warning": "warn"}.get(c.severity or "", "ok")
                print(f"  [{tag}] {c.name}: {c.detail}")
            print(f"  gpu: {rep.gpu.note if rep.gpu else 'not measured (--no-gpu)'}")
        return 0 if rep.ok else 1
    if not args.source:
        raise InputError(
            "give a kernel file, ISA or dump directory, or --verify BEFORE AFTER",
            hint="kernelpilot prefetch-data-load k.py --arch gfx942",
        )
    rep = analyze_prefetch(
        args.source, args.arch, args.kernel, args.frontend, args.timeout, baseline=getattr(args, "baseline", None)
    )
    print(rep.model_dump_json(indent=2) if args.json else format_report(rep))
    return 0
