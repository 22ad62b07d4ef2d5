"""prefetch-data-load analysis of one kernel: read or compile the input, analyse every loop of every kernel in it
(AMDGCN through ``tools.prefetch.amd``, SASS through ``tools.prefetch.nvidia``), pick the kernel whose hot loop does
the most work, and add register headroom, occupancy and the comparison against a baseline. Pure with respect to its
inputs (compiles are cached by content); returns pydantic models.
"""

from __future__ import annotations

from pathlib import Path

from tools import inputs
from tools.errors import InputError, KernelpilotError
from tools.isa import arch as archmod
from tools.models.dump import KernelDump, LaunchInfo, Resources
from tools.models.predict import LoopFigures
from tools.models.prefetch import BaselineComparison, LoopReport, PrefetchReport, RegisterHeadroom
from tools.prefetch.loops import KernelLoops

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
    source: str | Path, arch: str | None, frontend: str | None = None, timeout: float = 600, call: str | None = None
) -> tuple[list[tuple[str, str, Resources | None, LaunchInfo | None]], str | None, str, list[KernelDump]]:
    """[(isa_text, isa_path, resources, launch)], arch, origin, dump-ir's kernels — compiling kernel sources through
    dump-ir."""
    if call and not (isinstance(source, str | Path) and "\n" not in str(source) and inputs.is_source(source)):
        raise InputError("--call applies to a kernel file, not to ISA or a dump",
                         hint="pass the kernel file itself, or drop --call")  # fmt: skip
    found = inputs.load_isa_inputs(
        source, arch, frontend=frontend, timeout=timeout, tool="prefetch-data-load", call=call
    )
    items = [(i.text, i.path, i.resources, i.launch) for i in found.items]
    return items, found.arch, found.origin, list(found.kernels)


def _executed_loops(dump: KernelDump | None) -> tuple[dict[str, LoopFigures] | None, str]:
    """The predictor's loops of one compiled kernel by header (instructions x trips per wave) and the trips'
    evidence; (None, why) when there is no launch to predict or the trips would only be an assumption."""
    if dump is None:
        return None, "no compiled kernel with a launch (an ISA input)"
    try:
        from tools.predict import predict_launch
    except ImportError:
        return None, "this build has no predictor"
    try:
        p = predict_launch(dump)
    except KernelpilotError as exc:
        return None, exc.message
    if p.undetermined or not p.loops:
        return None, p.undetermined or "the predictor found no loop"
    if p.trips.source == "assumption":
        return None, p.trips.detail
    return {lp.header: lp for lp in p.loops}, f"{p.trips.source}: {p.trips.detail}"


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


def _prefetch_buffer(hot: LoopReport | None) -> tuple[int, int]:
    """(registers a one-iteration buffer of the hot loop's loads takes, how many of them the kernel does not hold
    yet). Loads already issued an iteration ahead hold their buffer; scalar loads fill SGPRs, not VGPRs. When the
    report lists every load these come from the loads themselves, otherwise from the loop's verdict."""
    if hot is None:
        return 0, 0
    if len(hot.loads) < hot.loads_total:
        buffer = (hot.bytes_per_lane_per_iteration + 3) // 4
        return buffer, 0 if hot.verdict == "prefetched" else buffer
    vector = [ld for ld in hot.loads if ld.memory == "vector"]
    held = sum(ld.bytes_per_lane for ld in vector if ld.carried or ld.consumed == "next-iteration")
    total = sum(ld.bytes_per_lane for ld in vector)
    return (total + 3) // 4, (total - held + 3) // 4


def _headroom(arch: str | None, res: Resources | None, hot: LoopReport | None) -> RegisterHeadroom | None:
    if arch is None or res is None:
        return None
    buffer, add = _prefetch_buffer(hot)
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
    if add == 0:
        what = "already holds its prefetch buffer"
    elif add < buffer:
        what = (
            f"holds {buffer - add} of its {buffer}-register prefetch buffer (loads already issued an iteration "
            f"ahead), needs {add} more"
        )
    else:
        what = f"needs {buffer} more for a one-iteration buffer"
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


def _analyze_text(
    text: str, path: str, arch: str | None, kernel: str | None, res: Resources | None, hot_header: str | None = None
) -> list[KernelLoops]:
    """Every (selected) kernel's loops in one ISA text, AMDGCN or SASS."""
    if _is_sass(text):
        from tools.prefetch.nvidia import analyze_sass

        return analyze_sass(text, arch, kernel, res)
    from tools.isa.amdgcn import parse_isa
    from tools.isa.metadata import resources_from_metadata
    from tools.prefetch.amd import analyze_kernel

    isa = parse_isa(text, path)
    arch = arch or isa.arch
    out = []
    for k in isa.kernels:
        if kernel and kernel != k.name and kernel not in k.name:
            continue
        loops, prologue = analyze_kernel(k, arch, hot_header if kernel == k.name else None)
        has_loc = any(i.loc is not None for i in k.instructions)
        kres = res if res is not None and len(isa.kernels) == 1 else None
        if kres is None and k.metadata is not None:
            kres = resources_from_metadata(k.metadata, arch)
        out.append(KernelLoops(k.name, loops, prologue, has_loc, kres, arch))
    return out


def analyze_prefetch(
    source_or_isa: str | Path,
    arch: str | None = None,
    kernel: str | None = None,
    frontend: str | None = None,
    timeout: float = 600,
    baseline: str | Path | None = None,
    call: str | None = None,
) -> PrefetchReport:
    """Analyse one kernel's loops for exposed load latency; the hot loop comes first.

    ``source_or_isa``: a kernel file (.py FlyDSL/Triton, .cu, .hip; compiled through dump-ir for ``arch``, default
    gfx942, sm_90 for .cu), an AMDGCN .s or SASS .sass file, a dump directory, ISA text, or a git ref
    (``HEAD:kernel.py``). ``kernel`` picks one kernel by (sub)name; otherwise the kernel whose hot loop does the most
    work is reported. ``baseline`` (a file or git ref) adds occupancy, register, copy and latency changes against it.
    ``call``: the host function a kernel file (and the baseline) runs, tools.callspec.
    """
    rep = _analyze_one(resolve_source(source_or_isa), arch, kernel, frontend, timeout, call)
    if baseline is not None:
        base = _analyze_one(resolve_source(baseline), rep.arch or arch, kernel, frontend, timeout, call)
        rep.baseline = compare_to_baseline(base, rep, str(baseline))
        change = "; ".join(rep.baseline.regressions) or "no regression"
        rep.summary += f"; vs {baseline}: {change}"
    return rep


def _hot_by_execution(best: KernelLoops, texts, dumps: list[KernelDump]) -> tuple[list[LoopReport], int, str]:
    """``best``'s loops with the hot loop re-picked as the one with the most executed instructions (the predictor's
    instructions x trips) where trip counts come from evidence, each loop given its trips; otherwise the static pick,
    with the assumption stated. A fallback loop that the example launch never enters is then not "the" hot loop."""
    loops, prologue = best.loops, best.prologue_loads
    figures, evidence = _executed_loops(next((k for k in dumps if k.name == best.name), None))
    static = f"the static pick (most MFMA + memory instructions), assuming every loop runs equally often: {evidence}"
    if not figures or not loops:
        return loops, prologue, static
    for lp in loops:
        f = figures.get(lp.header)
        lp.trips, lp.executed_instructions = (f.trips, f.executed_instructions) if f else (None, None)
    ranked = [lp for lp in loops if lp.executed_instructions is not None]
    top = max(ranked, key=lambda lp: lp.executed_instructions, default=None)
    if top is None:
        return loops, prologue, static
    basis = f"the loop with the most executed instructions (instructions x trips per wave; trips from {evidence})"
    if top.is_hot:
        return loops, prologue, basis
    text, path, res = next((t, p, r) for t, p, r, _ in texts if p == best.path)
    if _is_sass(text):
        return loops, prologue, f"{static}; by executed instructions it would be {top.header} (SASS: not re-picked)"
    redo = next(c for c in _analyze_text(text, path, best.arch, best.name, res, top.header) if c.name == best.name)
    for lp in redo.loops:
        lp.trips, lp.executed_instructions = next(
            ((o.trips, o.executed_instructions) for o in loops if o.header == lp.header), (None, None)
        )
    return redo.loops, redo.prologue_loads, basis


def _analyze_one(
    source_or_isa: str | Path,
    arch: str | None,
    kernel: str | None,
    frontend: str | None,
    timeout: float,
    call: str | None = None,
) -> PrefetchReport:
    texts, arch, origin, dumps = _load_input(source_or_isa, arch, frontend, timeout, call)
    candidates = []
    launches = {path: launch for _, path, _, launch in texts}
    for text, path, res, _ in texts:
        for found in _analyze_text(text, path, arch, kernel, res):
            found.path = path
            candidates.append(found)
    if not candidates:
        if kernel:
            raise InputError(f"no kernel named '{kernel}' in {origin}", hint="omit --kernel to see the kernels there")
        raise InputError(f"no kernel found in {origin}", hint="pass the final ISA of a kernel")

    def weight(c: KernelLoops):
        hot = next((lp for lp in c.loops if lp.is_hot), None)
        return (hot is not None, (hot.loads_total + hot.mfma_count) if hot else 0)

    best = max(candidates, key=weight)
    name, loops, prologue, has_loc, res, karch, path = (
        best.name, best.loops, best.prologue_loads, best.has_source_lines, best.resources, best.arch, best.path
    )  # fmt: skip
    loops, prologue, basis = _hot_by_execution(best, texts, dumps)
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
        hot_loop_basis=basis if loops else None,
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
    hb, ha = hot_loop_report(base), hot_loop_report(rep)
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
    from tools.prefetch.amd import analyze_kernel

    text = isa if isinstance(isa, str) and "\n" in isa else load_isa_text(isa)
    parsed = parse_isa(text, str(isa) if "\n" not in str(isa) else "<text>")
    loops, _ = analyze_kernel(find_kernel(parsed, kernel), arch or parsed.arch)
    return next((lp for lp in loops if lp.is_hot), None)


def hot_loop_report(rep: PrefetchReport) -> LoopReport | None:
    """The hot loop of a report (None: the kernel has no loop)."""
    return next((lp for lp in rep.loops if lp.is_hot), None)
