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

from tools import paths
from tools.errors import InputError
from tools.isa import arch as archmod
from tools.models.dump import Resources
from tools.models.prefetch import (
    GpuMeasurement,
    LoopReport,
    PrefetchReport,
    RegisterHeadroom,
    VerifyCheck,
    VerifyReport,
)

RUN_ENTRY = "kernelpilot_run"
SOURCE_SUFFIXES = {".py", ".cu", ".hip", ".cpp", ".cc", ".mojo"}
ISA_SUFFIXES = {".s", ".amdgcn", ".asm", ".isa"}
SASS_SUFFIXES = {".sass"}
MAX_LOOPS = 16


def _default_arch(path: Path) -> str:
    return "sm_90" if path.suffix == ".cu" else "gfx942"


def _is_sass(text: str) -> bool:
    return "/*0000*/" in text or ("\t.headerflags" in text and '@"EF_CUDA' in text) or "        /*00" in text


def _load_input(
    source: str | Path, arch: str | None, frontend: str | None = None, timeout: float = 600
) -> tuple[list[tuple[str, str, Resources | None]], str | None, str]:
    """[(isa_text, isa_path, resources)], arch, origin — compiling kernel sources through dump-ir."""
    if isinstance(source, str) and "\n" in source:
        return [(source, "<text>", None)], arch, "<text>"
    path = paths.guard(source, "input")
    if not path.exists():
        raise InputError(f"{path} does not exist", hint="give a kernel file, an ISA/SASS file or a dump directory")
    if path.is_dir():
        files = sorted(
            p
            for p in path.rglob("*")
            if p.is_file() and (p.name.endswith("final_isa.s") or p.suffix in {".sass", ".amdgcn"})
        )
        if not files:
            files = sorted(p for p in path.rglob("*.s") if p.is_file())
        if not files:
            raise InputError(
                f"{path} holds no final ISA (*final_isa.s, *.amdgcn, *.s) or SASS (*.sass)",
                hint="pass a directory written by `kernelpilot dump-ir --out DIR`, or the ISA file itself",
            )
        files = [paths.guard(p, f"ISA file in {path}") for p in files]
        return [(p.read_text(errors="replace"), str(p), None) for p in files], arch, str(path)
    if path.suffix in SOURCE_SUFFIXES:
        from tools.dump_ir import dump_ir

        arch = archmod.normalize_arch(arch) if arch else _default_arch(path)
        result = dump_ir(path, arch, frontend=frontend, timeout=timeout)
        out = []
        for k in result.kernels:
            if k.final_isa:
                out.append((Path(k.final_isa).read_text(errors="replace"), k.final_isa, k.resources))
        return out, arch, str(path)
    head = path.read_bytes()[:4096]
    if b"\x00" in head:
        raise InputError(
            f"{path} is binary; prefetch-data-load reads assembly text",
            hint="pass the .s / .sass text, or the kernel source (it is compiled with dump-ir)",
        )
    return [(path.read_text(errors="replace"), str(path), None)], arch, str(path)


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
        info = archmod.amd_arch(arch)
        proj = cur + add
        occ = archmod.waves_per_simd_from_vgprs(arch, cur)
        pocc = archmod.waves_per_simd_from_vgprs(arch, proj)
        threshold = (info.vgprs_per_lane // max(occ, 1)) // info.vgpr_granule * info.vgpr_granule if occ else None
        threshold = min(threshold, info.max_vgprs_per_wave) if threshold else threshold
        unit = "waves/SIMD"
        limit = info.max_vgprs_per_wave
    else:
        cur = res.registers_per_thread
        if cur is None:
            return RegisterHeadroom(
                arch=arch,
                prefetch_buffer_vgprs=buffer,
                verdict="unknown",
                note="no register count (cuobjdump missing?)",
            )
        threads = res.max_flat_workgroup_size or 256  # SASS does not state the block size
        proj = cur + add
        occ = archmod.nvidia_warps_per_sm(arch, cur, res.lds_bytes or 0, threads)
        pocc = archmod.nvidia_warps_per_sm(arch, proj, res.lds_bytes or 0, threads)
        threshold = None
        for r in range(255, cur - 1, -1):
            if archmod.nvidia_warps_per_sm(arch, r, res.lds_bytes or 0, threads) >= occ:
                threshold = r
                break
        unit = f"warps/SM ({threads}-thread blocks)"
        limit = 255
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
) -> PrefetchReport:
    """Analyse one kernel's loops for exposed load latency; the hot loop comes first.

    ``source_or_isa``: a kernel file (.py FlyDSL/Triton, .cu, .hip; compiled through dump-ir for ``arch``, default
    gfx942, sm_90 for .cu), an AMDGCN .s or SASS .sass file, a dump directory, or ISA text. ``kernel`` picks one
    kernel by (sub)name; otherwise the kernel whose hot loop does the most work is reported.
    """
    texts, arch, origin = _load_input(source_or_isa, arch, frontend, timeout)
    candidates = []
    for text, path, res in texts:
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
            summary += f" ({hot.loads_total} loads, {hot.bytes_per_lane_per_iteration} B/lane/iteration)"
        summary += f"; {len(loops)} loop(s): {desc}"
    headroom = _headroom(karch, res, hot)
    if headroom:
        summary += f"; registers: {headroom.verdict}"
    spills = None
    occ = headroom.current_occupancy if headroom else None
    if res is not None:
        spills = res.vgpr_spill_count if karch and archmod.is_amd(karch) else res.spill_store_bytes
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
        notes=notes,
        isa_path=path,
    )


def _hot(rep: PrefetchReport) -> LoopReport | None:
    return next((lp for lp in rep.loops if lp.is_hot), None)


def verify_prefetch(
    before: str | Path,
    after: str | Path,
    arch: str | None = None,
    kernel: str | None = None,
    allow_occupancy_drop: int = 0,
    gpu: bool = True,
    frontend: str | None = None,
    timeout: float = 600,
) -> VerifyReport:
    """Compile/analyse BEFORE and AFTER and check that AFTER really prefetches: prologue loads before the loop,
    in-loop loads feeding the next iteration, longer load-to-wait distance, no loop-invariant hoisting, no new
    spills, no occupancy drop beyond ``allow_occupancy_drop``; report the loop-carried register copies it costs.

    With ``gpu`` (default), ``measure_gpu`` also runs both files where they define ``kernelpilot_run`` and a GPU is
    present: wrong output or a slower AFTER fail the verification; otherwise ``gpu.note`` says why nothing ran."""
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
    carried = sum(1 for ld in ha.loads if ld.consumed == "next-iteration")
    checks.append(
        VerifyCheck(
            name="loads-feed-next-iteration",
            ok=ha.verdict == "prefetched" and (carried > 0 or in_loop > 0),
            detail=f"{carried} of {in_loop} in-loop load(s) are consumed in the next iteration; hot loop is {ha.verdict}",
        )
    )

    def dist(lp: LoopReport) -> int:
        vals = [ld.load_to_wait_cycles for ld in lp.loads if ld.load_to_wait_cycles is not None]
        return min(vals) if vals else 0

    db, da = dist(hb), dist(ha)
    checks.append(
        VerifyCheck(
            name="load-to-wait-distance-grew",
            ok=da > db,
            detail=f"closest load-to-wait ~{db} → ~{da} estimated cycles",
        )
    )
    sb, sa = b.spill_count or 0, a.spill_count or 0
    checks.append(VerifyCheck(name="no-new-spills", ok=sa <= sb, detail=f"spills {sb} → {sa}"))
    if b.occupancy is not None and a.occupancy is not None:
        drop = b.occupancy - a.occupancy
        checks.append(
            VerifyCheck(
                name="occupancy",
                ok=drop <= allow_occupancy_drop,
                detail=f"occupancy {b.occupancy} → {a.occupancy}" + (f" (drop {drop})" if drop > 0 else ""),
            )
        )
    copies = ha.head_copies
    checks.append(
        VerifyCheck(
            name="loop-carried-copies",
            ok=True,
            detail=f"{copies} register copy instruction(s) of loaded data in the loop"
            + (
                " (the loop-carried form costs these every iteration: raise LLVM's rotation-max-header-size, e.g. "
                "llvm_options {'rotation-max-header-size': 64}, or use a two-buffer ping-pong)"
                if copies
                else ""
            ),
        )
    )
    measured = measure_gpu(before, after) if gpu else None
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
    if measured is not None and measured.comparison is not None:
        summary += f"; GPU speedup {measured.comparison.speedup:.2f}x ({measured.comparison.verdict})"
    return VerifyReport(summary=summary, ok=ok, before=b, after=a, checks=checks, gpu=measured)


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
    "shape": str}."""
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
    return GpuMeasurement(measured=True, note=f"{name}, {shape}: {cmp.summary}", comparison=cmp, **common)


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
            f"  {lp.loads_total} load(s), {lp.bytes_per_lane_per_iteration} B/lane/iter, {lp.mfma_count} MFMA/MMA, "
            f"{lp.valu_count} VALU, ~{lp.compute_cycles} compute cycles, {lp.head_copies} copies of loaded data"
        )
        for ld in lp.loads:
            lines.append(
                f"  [{ld.index}] {ld.text[:60]:<60} {ld.source or '':<22} wait +{ld.load_to_wait_instructions} "
                f"(~{ld.load_to_wait_cycles} cyc) use +{ld.load_to_use_distance} {ld.consumed}"
            )
        for br in lp.barriers:
            lines.append(f"  barrier [{br.index}] {br.source or ''}: {br.note}")
    if rep.headroom:
        lines.append(f"\nregisters: {rep.headroom.verdict}: {rep.headroom.note}")
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
    p.add_argument("--verify", nargs=2, metavar=("BEFORE", "AFTER"), help="check that AFTER prefetches BEFORE's loop")
    p.add_argument("--allow-occupancy-drop", type=int, default=0, help="--verify: waves/warps AFTER may lose")
    p.add_argument("--no-gpu", action="store_true", help="--verify: skip the GPU correctness and timing run")
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
            frontend=args.frontend,
            timeout=args.timeout,
        )
        if args.json:
            print(rep.model_dump_json(indent=2))
        else:
            print(rep.summary)
            for c in rep.checks:
                print(f"  [{'ok' if c.ok else 'FAIL'}] {c.name}: {c.detail}")
            print(f"  gpu: {rep.gpu.note if rep.gpu else 'not measured (--no-gpu)'}")
        return 0 if rep.ok else 1
    if not args.source:
        raise InputError(
            "give a kernel file, ISA or dump directory, or --verify BEFORE AFTER",
            hint="kernelpilot prefetch-data-load k.py --arch gfx942",
        )
    rep = analyze_prefetch(args.source, args.arch, args.kernel, args.frontend, args.timeout)
    print(rep.model_dump_json(indent=2) if args.json else format_report(rep))
    return 0
