"""kernel-trace: read a profiler output (or run the profiler on a GPU host) and report where the GPU time goes.

``kernelpilot kernel-trace --from OUTPUT`` reads rocprofv3 CSV/JSON/rocpd, an ATT directory or an ncu CSV export;
``kernelpilot kernel-trace [--att] -- COMMAND`` profiles COMMAND with rocprofv3 (AMD) or ncu (NVIDIA) first.
Orchestration only: readers live in tools/profilers/, analyses in tools/profilers/analysis.py.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from tools import paths
from tools.errors import InputError, ToolchainError
from tools.executors import Executor, fetch_tree
from tools.isa.metadata import detect_arch, read_resources
from tools.models.trace import Trace, TraceReport
from tools.profilers import analysis, att, ncu, rocprofv3
from tools.profilers.reading import guarded, read_text, regular_file

FORMATS_EXPECTED = (
    "rocprofv3 kernel_trace.csv / kernel_stats.csv, <pid>_results.json, a rocpd .db, an ATT "
    "ui_output_agent_<N>_dispatch_<M>/ directory (or its stats_*.csv), or an ncu --csv --page details|source|raw export"
)
HEADLINE_NCU_METRICS = (
    "Duration",
    "Memory Throughput",
    "DRAM Throughput",
    "Compute (SM) Throughput",
    "Registers Per Thread",
    "Achieved Occupancy",
    "Theoretical Occupancy",
    # raw-page names of the same figures
    "gpu__time_duration.sum",
    "launch__registers_per_thread",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__occupancy_limit_registers",
)


# --- reading ------------------------------------------------------------------------------------------------------


def _csv_header(path: Path) -> list[str]:
    with path.open(errors="replace") as f:
        for line in f:
            if line.strip() and not line.startswith("=="):
                return next(csv.reader([line]), [])
    return []


def _find_outputs(directory: Path) -> list[Path]:
    """Profiler outputs inside a rocprofv3 -d directory, best first (trace files before stats, then ATT)."""
    found: list[Path] = []
    for pattern in ("*kernel_trace.csv", "*results.db", "*results.json", "*kernel_stats.csv"):
        found += sorted(directory.rglob(pattern))
    found += sorted(p for p in directory.rglob("ui_output_agent_*") if att.is_att_dir(p))
    return found


def load_trace(path: str | Path) -> Trace:
    """Read any supported profiler output, detecting its format from the name and content.

    Any problem with the input (unreadable, wrong shape, a cell that is not a number) is an InputError naming the
    file and, where it can, the line and field; never another exception.
    """
    return _load_trace(paths.guard(path, "trace"))


@guarded("profiler output")
def _load_trace(p: Path) -> Trace:
    if not p.exists():
        raise InputError(f"{p} does not exist", hint=f"expected {FORMATS_EXPECTED}")
    if p.is_dir():
        if att.is_att_dir(p):
            return att.read_att_dir(paths.guard_tree(p, "ATT directory"))
        outputs = _find_outputs(p)
        if outputs:
            return _load_trace(paths.guard(outputs[0], "trace"))
        return att.read_att_dir(p)  # raises the "not an ATT directory" error with what was found
    suffix = p.suffix.lower()
    regular_file(p, "profiler output")
    if p.stat().st_size == 0:
        raise InputError(f"{p} is empty", hint=f"expected {FORMATS_EXPECTED}; did the profiler finish?")
    if suffix in (".db", ".sqlite", ".sqlite3", ".rpd"):
        return rocprofv3.read_rocpd(p)
    if suffix == ".json":
        if p.name == "code.json":
            return att.read_att_dir(paths.guard_tree(p.parent, "ATT directory"))
        return rocprofv3.read_results_json(p)
    if suffix == ".ncu-rep":
        raise InputError(
            f"{p} is a binary Nsight Compute report",
            hint=f"export it first: {' '.join(ncu.ncu_export_command(str(p), 'source'))} > source.csv "
            "(and --page details / raw)",
        )
    if suffix not in (".gz", ".tar", ".zip", ".pftrace", ".otf2"):
        header = set(_csv_header(p))
        if {"Kernel_Name", "Start_Timestamp"} <= header:
            return rocprofv3.read_kernel_trace_csv(p)
        if {"Name", "Calls", "TotalDurationNs"} <= header:
            return rocprofv3.read_kernel_stats_csv(p)
        if {"CodeObj", "Vaddr", "Instruction"} <= header:
            return att.read_att_stats_csv(p)
        page = ncu.sniff_ncu_page(p)
        if page == "details":
            return ncu.read_details(p)
        if page == "raw":
            return ncu.read_raw(p)
        if page == "source":
            return ncu.read_source(p)
        if suffix == ".csv":
            shown = ",".join(sorted(header)[:10])
            raise InputError(f"{p}: CSV header not recognised ({shown})", hint=f"expected {FORMATS_EXPECTED}")
    raise InputError(f"{p}: unrecognised profiler output", hint=f"expected {FORMATS_EXPECTED}")


# --- report -------------------------------------------------------------------------------------------------------


def _short(name: str, width: int = 70) -> str:
    return name if len(name) <= width else name[: width - 3] + "..."


def _filter(trace: Trace, pattern: re.Pattern | None) -> Trace:
    if pattern is None:
        return trace
    return trace.model_copy(
        update={
            "dispatches": [d for d in trace.dispatches if analysis.kernel_matches(d.name, d.symbol, pattern)],
            "stats": [s for s in trace.stats if pattern.search(s.name)],
            "instructions": [i for i in trace.instructions if not i.kernel or pattern.search(i.kernel)],
            "metrics": {k: v for k, v in trace.metrics.items() if pattern.search(k)},
            "rules": {k: v for k, v in trace.rules.items() if pattern.search(k)},
        }
    )


def build_report(
    trace: Trace,
    *,
    top_k: int = 10,
    kernel_regex: str | None = None,
    isa_text: str | None = None,
    compare_with: Trace | None = None,
    timeline: str | Path | None = None,
) -> TraceReport:
    """All analyses that the trace's content allows, lists bounded to ``top_k`` (hotspots: 2*top_k)."""
    try:
        pattern = re.compile(kernel_regex) if kernel_regex else None
    except re.error as exc:
        raise InputError(f"--kernel '{kernel_regex}' is not a valid regular expression ({exc})") from exc
    t = _filter(trace, pattern)
    if pattern and not (t.dispatches or t.stats or t.instructions or t.metrics):
        names = sorted({d.name for d in trace.dispatches} | {s.name for s in trace.stats} | set(trace.kernels))
        raise InputError(
            f"no kernel in {trace.path} matches '{kernel_regex}'",
            hint="kernels seen: " + "; ".join(_short(n, 60) for n in names[:5]),
        )
    warnings: list[str] = []
    table = analysis.kernel_table(t)
    total_ns = sum(s.total_ns for s in table)
    dispatch_count = len(t.dispatches) if t.dispatches else sum(s.calls for s in t.stats)
    instructions = t.instructions
    if instructions and t.format in ("att", "att-stats-csv"):
        kernel = analysis.hot_kernel(instructions)
        instructions = [i for i in instructions if i.kernel == kernel]
    hot = analysis.hotspots(instructions)
    lines = analysis.source_lines(instructions)
    n_hot = 2 * top_k
    report = TraceReport(
        summary="",
        path=t.path,
        format=t.format,
        generation=t.generation,
        arch=t.arch,
        device=t.device,
        kernel_filter=kernel_regex,
        total_gpu_ns=total_ns,
        dispatch_count=dispatch_count,
        kernel_count=len(table),
        top_kernels=table[:top_k],
        top_kernels_total=len(table),
        top_kernels_truncated=len(table) > top_k,
        hotspots=hot[:n_hot],
        hotspots_total=len(hot),
        hotspots_truncated=len(hot) > n_hot,
        source_lines=lines[:top_k],
        source_lines_total=len(lines),
        source_lines_truncated=len(lines) > top_k,
        stall_breakdown=analysis.stall_breakdown(instructions),
        wave_states=t.wave_states,
        loops=analysis.loops(instructions)[:top_k],
        notes=list(t.notes),
    )
    if t.metrics:
        key = next(iter(t.metrics))
        report.ncu_metrics = [m for m in t.metrics[key] if m.name in HEADLINE_NCU_METRICS]
        report.ncu_rules = [r for rules in t.rules.values() for r in rules if r.type in ("OPT", "WRN")][:top_k]
    has_regs = any(d.vgpr_count is not None for d in t.dispatches)
    if isa_text is not None:
        resources = read_resources(isa_text)
        if not resources:
            raise InputError(
                "the --isa file holds no AMDGCN kernel metadata", hint="pass the .s / .amdgcn of the kernel"
            )
        report.register_checks = analysis.register_checks(t.dispatches, resources, t.arch or detect_arch(isa_text))
        for check in report.register_checks:
            if not check.agrees:
                warnings.append(f"{_short(check.kernel, 50)}: {check.message}")
        if has_regs and not report.register_checks:
            warnings.append("no kernel of the --isa file matched a traced kernel: register counts not checked")
    elif has_regs:
        warnings.append(
            "register counts in this trace come from rocprofv3 and are unreliable (arch/accum split wrong on "
            "gfx90a/gfx942, halved on gfx950): take them from the ISA (--isa FILE, or kernelpilot vgpr-pressure)"
        )
    if compare_with is not None:
        report.comparison = analysis.compare_traces(compare_with, t)
    if timeline is not None:
        if not any(d.start_ns is not None for d in t.dispatches):
            raise InputError(
                f"{t.path} ({t.format}) has no dispatch timestamps for a timeline",
                hint="use a rocprofv3 kernel_trace.csv, results.json or rocpd .db",
            )
        try:
            n = analysis.write_timeline(t.dispatches, Path(timeline))
        except OSError as exc:
            raise InputError(
                f"cannot write the timeline to {timeline}: {exc.strerror or exc}",
                hint="name a writable file path for --timeline",
            ) from None
        report.timeline = str(timeline)
        report.notes.append(f"timeline: {n} dispatches written to {timeline} (open in ui.perfetto.dev)")
    report.warnings = warnings
    report.summary = _summary(report)
    return report


def _summary(r: TraceReport) -> str:
    parts = [f"{r.format} ({r.generation})" if r.generation else r.format]
    if r.top_kernels:
        top = r.top_kernels[0]
        parts.append(
            f"{r.dispatch_count} dispatches of {r.kernel_count} kernels, {r.total_gpu_ns / 1e6:.3f} ms GPU time; "
            f"top: {_short(top.name)} x{top.calls}, {top.total_ns} ns ({100 * top.share:.1f}%)"
        )
    if r.hotspots:
        h = r.hotspots[0]
        unit = "samples" if r.format.startswith("ncu") else "cycles"
        parts.append(f"hottest instruction #{h.index} '{h.isa}' [{h.stall_class}] stall {h.stall} {unit}")
    if r.stall_breakdown:
        s = r.stall_breakdown[0]
        parts.append(f"largest stall class {s.stall_class} {100 * s.share:.1f}%")
    if r.loops:
        parts.append(f"{len(r.loops)} loop(s), hottest stalls {r.loops[0].stall}")
    if r.comparison:
        parts.append(r.comparison.summary)
    if r.warnings:
        parts.append(f"{len(r.warnings)} warning(s)")
    return "; ".join(parts)


def summarize_trace(
    path: str | Path,
    top_k: int = 10,
    kernel_regex: str | None = None,
    isa: str | Path | None = None,
    compare: str | Path | None = None,
    timeline: str | Path | None = None,
) -> TraceReport:
    """Read one profiler output and report top kernels, hotspots, stalls, loops and register warnings.

    ``compare`` is the BEFORE trace: the report (of ``path``, the after) then carries per-kernel speedups.
    """
    isa_text = read_text(paths.guard(isa, "ISA"), "AMDGCN ISA file (--isa)") if isa else None
    if timeline is not None and Path(timeline).is_dir():
        raise InputError(
            f"--timeline {timeline} is a directory", hint="name the JSON file to write, e.g. --timeline trace.json"
        )
    if timeline:
        paths.guard(timeline, "timeline")
    before = load_trace(compare) if compare else None
    return build_report(
        load_trace(path),
        top_k=top_k,
        kernel_regex=kernel_regex,
        isa_text=isa_text,
        compare_with=before,
        timeline=timeline,
    )


def compare_traces(before: str | Path, after: str | Path, top_k: int = 20):
    """Before/after comparison of two profiler outputs (any supported format)."""
    return analysis.compare_traces(load_trace(before), load_trace(after), limit=top_k)


# --- running a profiler -------------------------------------------------------------------------------------------

INSTALL_HINTS = {
    "rocprofv3": "install ROCm's rocprofiler-sdk (apt install rocprofiler-sdk; ships with ROCm >= 6.2) and put "
    "/opt/rocm/bin on PATH",
    "ncu": "install Nsight Compute (part of the CUDA toolkit, or apt install nsight-compute) and put its bin on PATH",
}


def detect_profiler(executor: Executor, timeout: float = 30) -> str:
    """'rocprofv3' or 'ncu', whichever the executor's host has; ToolchainError naming both when neither."""
    for tool in ("rocprofv3", "ncu"):
        if executor.run(["which", tool], timeout=timeout).ok:
            return tool
    where = "this machine" if executor.kind == "local" else f"{executor.kind}:{executor.target}"
    raise ToolchainError(
        f"neither rocprofv3 nor ncu is on PATH on {where}",
        hint=f"AMD: {INSTALL_HINTS['rocprofv3']}. NVIDIA: {INSTALL_HINTS['ncu']}.",
    )


def _check_run(result, what: str, timeout: float) -> None:
    if result.timed_out:
        raise ToolchainError(
            f"{what} timed out after {timeout:.0f} s and was killed",
            hint="profile fewer launches (--kernel REGEX, --launch-count) or raise --timeout",
            details=result.stderr[-3000:],
        )
    if result.returncode != 0:
        raise ToolchainError(
            f"{what} failed with exit code {result.returncode}: {' '.join(result.argv[:6])} ...",
            hint="run the command without the profiler first; the profiler's and the program's stderr follow",
            details=(result.stderr or result.stdout)[-3000:],
        )


def profile_command(
    command: Sequence[str],
    *,
    executor: str | Executor = "local",
    profiler: str | None = None,
    att_trace: bool = False,
    kernel_regex: str | None = None,
    iterations: tuple[int, int] | None = None,
    output_format: str = "csv",
    output_dir: str | Path | None = None,
    launch_count: int = 1,
    top_k: int = 10,
    timeout: float = 600,
) -> TraceReport:
    """Profile ``command`` with rocprofv3 (AMD) or ncu (NVIDIA) where ``executor`` runs it, then summarize."""
    ex = executor if isinstance(executor, Executor) else Executor.parse(executor)
    tool = profiler or detect_profiler(ex)
    stamp = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
    local_dir = Path(output_dir) if output_dir else Path("kernelpilot-out") / f"trace-{stamp}"
    local_dir.mkdir(parents=True, exist_ok=True)
    remote_dir = str(local_dir.resolve()) if ex.kind == "local" else f"/tmp/kernelpilot-trace-{stamp}"
    if ex.kind != "local":
        ex.run(["mkdir", "-p", remote_dir], timeout=60)
    try:
        if tool == "ncu":
            return _profile_ncu(command, ex, remote_dir, local_dir, kernel_regex, launch_count, top_k, timeout)
        argv = rocprofv3.rocprofv3_command(
            command,
            remote_dir,
            output_format=output_format,
            kernel_regex=kernel_regex,
            iterations=iterations,
            att=att_trace,
        )
        env = rocprofv3.DEBUG_INFO_ENV if att_trace else None
        _check_run(ex.run(argv, timeout=timeout, env=env), "rocprofv3", timeout)
        got = fetch_tree(ex, remote_dir, local_dir, timeout=timeout)
    finally:
        if ex.kind != "local":
            ex.run(["rm", "-rf", remote_dir], timeout=60)
    outputs = _find_outputs(got)
    if not outputs:
        raise ToolchainError(
            f"rocprofv3 ran but wrote no kernel trace under {got}", hint="did any kernel run on the GPU?"
        )
    report = build_report(load_trace(outputs[0]), top_k=top_k, kernel_regex=None)
    att_dirs = [p for p in outputs if p.is_dir()]
    if att_dirs:
        att_report = build_report(att.read_att_dir(att_dirs[0]), top_k=top_k)
        for field in ("hotspots", "hotspots_total", "hotspots_truncated", "source_lines", "source_lines_total"):
            setattr(report, field, getattr(att_report, field))
        report.stall_breakdown, report.loops, report.wave_states = (
            att_report.stall_breakdown,
            att_report.loops,
            att_report.wave_states,
        )
        report.notes += [f"ATT: {p}" for p in att_dirs]
        report.summary = _summary(report)
    return report


def _profile_ncu(command, ex, remote_dir, local_dir, kernel_regex, launch_count, top_k, timeout) -> TraceReport:
    rep = f"{remote_dir}/profile"
    argv = ncu.ncu_profile_command(command, rep, kernel_regex=kernel_regex, launch_count=launch_count)
    _check_run(ex.run(argv, timeout=timeout), "ncu", timeout)
    files = {}
    for page in ("details", "source", "raw"):
        res = ex.run(ncu.ncu_export_command(rep + ".ncu-rep", page), timeout=timeout)
        _check_run(res, f"ncu --page {page} export", timeout)
        files[page] = local_dir / f"ncu_{page}.csv"
        files[page].write_text(res.stdout)
    details = ncu.read_details(files["details"])
    source = ncu.read_source(files["source"])
    merged = details.model_copy(
        update={"instructions": source.instructions, "kernels": source.kernels, "notes": details.notes + source.notes}
    )
    report = build_report(merged, top_k=top_k)
    raw = ncu.read_raw(files["raw"])
    report.ncu_metrics += [m for m in next(iter(raw.metrics.values()), []) if m.name in HEADLINE_NCU_METRICS]
    if not any(i.source for i in source.instructions):
        report.notes.append(ncu.LINEINFO_HINT)
    report.notes += [f"ncu exports: {', '.join(str(f) for f in files.values())}"]
    return report


# --- CLI ----------------------------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="source", metavar="OUTPUT", help=f"read a profiler output: {FORMATS_EXPECTED}")
    parser.add_argument("--top", type=int, default=10, metavar="K", help="kernels / lines / loops to list (default 10)")
    parser.add_argument("--kernel", metavar="REGEX", help="only kernels whose name matches")
    parser.add_argument("--isa", metavar="FILE", help="AMDGCN .s of the kernel: check the trace's register counts")
    parser.add_argument("--compare", metavar="BEFORE", help="a trace taken before a change: report per-kernel speedups")
    parser.add_argument("--timeline", metavar="OUT.json", help="write dispatches as Chrome/Perfetto trace events")
    parser.add_argument("--att", action="store_true", help="with a command: also take an ATT thread trace (AMD)")
    parser.add_argument("--executor", default="local", help="local | ssh:HOST | docker:CONTAINER | ssh+docker:H:C")
    parser.add_argument("--profiler", choices=["rocprofv3", "ncu"], help="default: whichever the host has")
    parser.add_argument("--format", dest="output_format", default="csv", choices=["csv", "rocpd", "json"])
    parser.add_argument("--iterations", metavar="FIRST:COUNT", help="rocprofv3 --kernel-iteration-range")
    parser.add_argument("--launch-count", type=int, default=1, help="ncu: kernel launches to profile (default 1)")
    parser.add_argument("--output-dir", help="where profiler outputs go (default kernelpilot-out/trace-<time>)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before the profiled command is killed")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "profiled_command", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="a command to profile on a GPU host"
    )


def _print_report(r: TraceReport) -> None:
    print(r.summary)
    if r.top_kernels:
        print(f"\n{'calls':>6} {'total ns':>12} {'avg ns':>11} {'min ns':>9} {'max ns':>9} {'share':>6}  kernel")
        for s in r.top_kernels:
            print(
                f"{s.calls:>6} {s.total_ns:>12} {s.avg_ns:>11.0f} {s.min_ns:>9} {s.max_ns:>9} "
                f"{100 * s.share:>5.1f}%  {_short(s.name, 90)}"
            )
        if r.top_kernels_truncated:
            print(f"... {r.top_kernels_total - len(r.top_kernels)} more kernels")
    if r.hotspots:
        print(f"\n{'#':>5} {'stall':>9} {'latency':>9} {'hit':>6}  class / instruction / source")
        for h in r.hotspots:
            print(f"{h.index:>5} {h.stall:>9} {h.latency:>9} {h.hit:>6}  [{h.stall_class}] {h.isa}  {h.source}")
    if r.stall_breakdown:
        print("\nstall by class:")
        for s in r.stall_breakdown:
            print(f"  {100 * s.share:5.1f}%  {s.stall:>10}  {s.stall_class} ({s.instructions} instructions)")
    if r.source_lines:
        print("\nsource lines:")
        for s in r.source_lines:
            print(f"  {100 * s.stall_share:5.1f}%  {s.stall:>10}  {s.source} [{s.dominant_stall_class}]")
    for lp in r.loops:
        print(
            f"\nloop #{lp.header_index}..#{lp.branch_index} ({lp.instructions} instructions): stall {lp.stall} "
            f"({100 * lp.stall_share:.1f}%), mostly {lp.dominant_stall_class}; hottest {lp.hottest}"
        )
    for m in r.ncu_metrics:
        print(f"  {m.name}: {m.text} {m.unit}")
    for rule in r.ncu_rules:
        print(f"  [{rule.type}] {rule.rule}: {_short(rule.description, 160)}")
    if r.comparison:
        print("\n" + r.comparison.summary)
        for d in r.comparison.kernels:
            sp = f"{d.speedup:.3f}x" if d.speedup else "-"
            print(f"  {sp:>8}  {d.before_total_ns} -> {d.after_total_ns} ns  {_short(d.name, 80)}")
    for c in r.register_checks:
        print(f"registers: {c.message}")
    for w in r.warnings:
        print(f"warning: {w}")
    for n in r.notes:
        print(f"note: {n}")


def _iterations(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    m = re.fullmatch(r"(\d+):(\d+)", text)
    if not m:
        raise InputError(f"--iterations '{text}' is not FIRST:COUNT", hint="e.g. --iterations 5:10")
    first, count = int(m.group(1)), int(m.group(2))
    if first < 1 or count < 1:
        raise InputError(
            f"--iterations {text}: FIRST and COUNT must be >= 1 (iterations are numbered from 1)",
            hint="e.g. --iterations 5:10 profiles iterations 5 to 14",
        )
    return first, count


def run(args: argparse.Namespace) -> int:
    command = list(args.profiled_command or [])
    if command and command[0] == "--":
        command = command[1:]
    if args.source and command:
        raise InputError("give either --from OUTPUT or -- COMMAND, not both")
    if args.source:
        report = summarize_trace(
            args.source,
            top_k=args.top,
            kernel_regex=args.kernel,
            isa=args.isa,
            compare=args.compare,
            timeline=args.timeline,
        )
    elif command:
        report = profile_command(
            command,
            executor=args.executor,
            profiler=args.profiler,
            att_trace=args.att,
            kernel_regex=args.kernel,
            iterations=_iterations(args.iterations),
            output_format=args.output_format,
            output_dir=args.output_dir,
            launch_count=args.launch_count,
            top_k=args.top,
            timeout=args.timeout,
        )
    else:
        raise InputError(
            "nothing to do", hint="kernelpilot kernel-trace --from OUTPUT, or kernelpilot kernel-trace -- CMD"
        )
    if args.json:
        print(json.dumps(report.model_dump(mode="json"), indent=1))
    else:
        _print_report(report)
    return 0


__all__ = ["compare_traces", "load_trace", "profile_command", "summarize_trace"]
