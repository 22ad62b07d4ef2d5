"""kernel-trace's report: top kernels, hotspots, stalls, loops and register checks from a Trace; comparisons.

Orchestration only: the formats are read in tools/profilers/ (dispatched by ``readers.py``), the analyses live in
tools/profilers/analysis.py; ``profile.py`` runs the profilers, ``cli.py`` prints.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools import paths
from tools.errors import InputError
from tools.isa.metadata import detect_arch, read_resources
from tools.kernel_trace.readers import load_trace, ncu_exports
from tools.models.trace import Trace, TraceReport
from tools.profilers import analysis
from tools.profilers.reading import read_text

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


# Kernels PyTorch launches for its own work (random inputs, fills, copies): when they are all that ncu profiled, the
# user's kernel was not among the launches it took.
SETUP_KERNEL_MARKERS = ("at::native::", "at::cuda::", "at_cuda_detail", "distribution_elementwise", "philox", "curand")
NCU_CLOCK_NOTE = (
    "ncu locks the GPU clocks to base while it profiles (--clock-control base, its default): its durations are "
    "longer than event-timed runs at the clocks the GPU picks (one H100 kernel: 3.21 ms under ncu, 2.92 ms "
    "event-timed); profile with --clock-control none to measure at the GPU's own clocks"
)


def is_setup_kernel(name: str) -> bool:
    """A PyTorch-internal kernel (ATen elementwise, random number generation), not one the user wrote."""
    return any(m in name for m in SETUP_KERNEL_MARKERS)


def add_ncu_context(report: TraceReport, exports: dict[str, Path], kernel_regex: str | None, clock: str | None):
    """What an ncu profile covered: its headline raw metrics, which kernels it profiled (a warning when they are all
    PyTorch's set-up kernels, i.e. the user's kernel was missed) and the clock setting it ran under."""
    if "raw" in exports:
        from tools.profilers import ncu

        raw = ncu.read_raw(paths.guard(exports["raw"], "ncu export"))
        report.ncu_metrics += [m for m in next(iter(raw.metrics.values()), []) if m.name in HEADLINE_NCU_METRICS]
    names = [k.name for k in report.top_kernels]
    if names:
        report.notes.append(
            f"ncu profiled {report.dispatch_count} launch(es) of {report.kernel_count} kernel(s): "
            + "; ".join(shorten(n, 80) for n in names)
        )
    if names and not kernel_regex and all(is_setup_kernel(n) for n in names):
        report.warnings.append(
            "every profiled launch is a PyTorch-internal kernel (input set-up such as torch.randn or a fill), not "
            "yours: ncu takes the first launches (-c, --launch-count) of any kernel unless --kernel REGEX names "
            "yours; rerun with --kernel <your kernel's name>"
        )
    if clock == "none":
        report.notes.append("ncu ran with --clock-control none: durations are at the clocks the GPU picked")
    elif clock == "base":
        report.notes.append(NCU_CLOCK_NOTE)
    else:  # read from a directory: how ncu ran is not recorded there
        report.notes.append(
            NCU_CLOCK_NOTE.replace("while it profiles", "while it profiles, unless it ran with --clock-control none", 1)
        )


# --- report -------------------------------------------------------------------------------------------------------


def shorten(name: str, width: int = 70) -> str:
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
            hint="kernels seen: " + "; ".join(shorten(n, 60) for n in names[:5]),
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
                warnings.append(f"{shorten(check.kernel, 50)}: {check.message}")
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
    report.summary = report_summary(report)
    return report


def report_summary(r: TraceReport) -> str:
    parts = [f"{r.format} ({r.generation})" if r.generation else r.format]
    if r.top_kernels:
        top = r.top_kernels[0]
        parts.append(
            f"{r.dispatch_count} dispatches of {r.kernel_count} kernels, {r.total_gpu_ns / 1e6:.3f} ms GPU time; "
            f"top: {shorten(top.name)} x{top.calls}, {top.total_ns} ns ({100 * top.share:.1f}%)"
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
    report = build_report(
        load_trace(path),
        top_k=top_k,
        kernel_regex=kernel_regex,
        isa_text=isa_text,
        compare_with=before,
        timeline=timeline,
    )
    exports = ncu_exports(Path(path)) if Path(path).is_dir() else {}
    if "details" in exports:  # a kernel-trace --profiler ncu output directory
        add_ncu_context(report, exports, kernel_regex, clock=None)
    return report


def compare_traces(before: str | Path, after: str | Path, top_k: int = 20):
    """Before/after comparison of two profiler outputs (any supported format)."""
    return analysis.compare_traces(load_trace(before), load_trace(after), limit=top_k)


# --- running a profiler -------------------------------------------------------------------------------------------
