"""``kernelpilot kernel-trace``: arguments, the text report, and the run (read an output or profile a command)."""

from __future__ import annotations

import argparse
import json
import re

from tools.errors import InputError
from tools.kernel_trace.profile import profile_command
from tools.kernel_trace.readers import FORMATS_EXPECTED
from tools.kernel_trace.report import shorten, summarize_trace
from tools.models.trace import TraceReport
from tools.profilers import PROFILERS

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
    parser.add_argument("--profiler", choices=PROFILERS, help="default: whichever the host has")
    parser.add_argument("--format", dest="output_format", default="csv", choices=["csv", "rocpd", "json"])
    parser.add_argument("--iterations", metavar="FIRST:COUNT", help="rocprofv3 --kernel-iteration-range")
    parser.add_argument("--launch-count", type=int, default=1, help="ncu: kernel launches to profile (default 1)")
    parser.add_argument(
        "--clock-control",
        choices=["base", "none"],
        default="base",
        help="ncu: base (its default) locks the GPU clocks while profiling, so durations run longer than event "
        "timing; none leaves the clocks to the GPU",
    )
    parser.add_argument("--output-dir", help="where profiler outputs go (default kernelpilot-out/trace-<time>)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds before the profiled command is killed")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "profiled_command", nargs=argparse.REMAINDER, metavar="-- COMMAND", help="a command to profile on a GPU host"
    )


def render(r: TraceReport) -> str:
    """The report as `kernelpilot kernel-trace` prints it (without --json)."""
    out: list[str] = []
    out.append(r.summary)
    if r.top_kernels:
        out.append(f"\n{'calls':>6} {'total ns':>12} {'avg ns':>11} {'min ns':>9} {'max ns':>9} {'share':>6}  kernel")
        for s in r.top_kernels:
            out.append(
                f"{s.calls:>6} {s.total_ns:>12} {s.avg_ns:>11.0f} {s.min_ns:>9} {s.max_ns:>9} "
                f"{100 * s.share:>5.1f}%  {shorten(s.name, 90)}"
            )
        if r.top_kernels_truncated:
            out.append(f"... {r.top_kernels_total - len(r.top_kernels)} more kernels")
    if r.hotspots:
        out.append(f"\n{'#':>5} {'stall':>9} {'latency':>9} {'hit':>6}  class / instruction / source")
        for h in r.hotspots:
            out.append(f"{h.index:>5} {h.stall:>9} {h.latency:>9} {h.hit:>6}  [{h.stall_class}] {h.isa}  {h.source}")
    if r.stall_breakdown:
        out.append("\nstall by class:")
        for s in r.stall_breakdown:
            out.append(f"  {100 * s.share:5.1f}%  {s.stall:>10}  {s.stall_class} ({s.instructions} instructions)")
    if r.source_lines:
        out.append("\nsource lines:")
        for s in r.source_lines:
            out.append(f"  {100 * s.stall_share:5.1f}%  {s.stall:>10}  {s.source} [{s.dominant_stall_class}]")
    for lp in r.loops:
        out.append(
            f"\nloop #{lp.header_index}..#{lp.branch_index} ({lp.instructions} instructions): stall {lp.stall} "
            f"({100 * lp.stall_share:.1f}%), mostly {lp.dominant_stall_class}; hottest {lp.hottest}"
        )
    for m in r.ncu_metrics:
        out.append(f"  {m.name}: {m.text} {m.unit}")
    for rule in r.ncu_rules:
        out.append(f"  [{rule.type}] {rule.rule}: {shorten(rule.description, 160)}")
    if r.comparison:
        out.append("\n" + r.comparison.summary)
        for d in r.comparison.kernels:
            sp = f"{d.speedup:.3f}x" if d.speedup else "-"
            out.append(f"  {sp:>8}  {d.before_total_ns} -> {d.after_total_ns} ns  {shorten(d.name, 80)}")
    for c in r.register_checks:
        out.append(f"registers: {c.message}")
    for w in r.warnings:
        out.append(f"warning: {w}")
    for n in r.notes:
        out.append(f"note: {n}")
    return "\n".join(out)


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
            clock_control=getattr(args, "clock_control", "base"),
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
        print(render(report))
    return 0
