"""``kernelpilot vgpr-pressure``: arguments, the text rendering of the report, and the command."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from tools import inputs
from tools.callspec import add_call_argument
from tools.errors import InputError
from tools.frontends.registry import add_frontend_argument
from tools.isa.machines import machine_names
from tools.models.vgpr import VgprReports
from tools.vgpr_pressure.analyze import analyze_spec
from tools.vgpr_pressure.diff import PEAK_REGRESSION_THRESHOLD, attach_baseline, diff_reports, judge_outcome


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input",
        nargs="?",
        help="kernel file (compiled with dump-ir), ISA file (.s/.amdgcn), cubin, or dump directory; a git "
        "reference such as HEAD:kernel.py reads the committed version",
    )
    parser.add_argument(
        "--baseline",
        metavar="BASE",
        help="judge the input against BASE (same kinds of input, e.g. HEAD:kernel.py): occupancy, spills and peak "
        "changes in the report; exit 1 on a regression",
    )
    add_call_argument(parser)
    parser.add_argument("--kernel", help="kernel name (exact or unique substring); default: every kernel")
    parser.add_argument("--arch", help="override the target (gfx942, gfx950, gfx1100, sm_90 …)")
    parser.add_argument("--source", help="kernel source file, to print the source lines named by .loc")
    add_frontend_argument(parser, "kernel files (also --baseline/--diff): the language, instead of detecting it")
    parser.add_argument(
        "--launch-lds",
        type=int,
        metavar="BYTES",
        help="LDS / shared memory the launch allocates beyond what the binary declares (Triton's metadata 'shared'), "
        "for the input (not --baseline/--diff); default: Triton's <kernel>.json or metadata.json beside the ISA, or "
        "what dump-ir counted for a kernel file",
    )
    parser.add_argument("--json", action="store_true", help="print the pydantic model as JSON")
    parser.add_argument("--per-instruction", action="store_true", help="list every instruction with live counts")
    parser.add_argument("--top", type=int, default=8, help="entries per list in the report (default 8)")
    parser.add_argument(
        "--diff",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="compare two inputs (paths or git references: --diff HEAD:kernel.py kernel.py); exit 1 on a regression",
    )
    parser.add_argument(
        "--max-vgprs",
        type=int,
        help="--baseline/--diff: your budget: most VGPRs (registers/thread) the input may use; more fails",
    )
    parser.add_argument(
        "--min-waves",
        type=int,
        help="--baseline/--diff: your budget: fewest waves/SIMD (warps/SM) the input may hold; fewer fails",
    )
    parser.add_argument(
        "--no-check",
        action="store_true",
        help="--baseline/--diff: skip the CPU output comparison (kernelpilot check) of the two versions",
    )
    parser.add_argument(
        "--device",
        choices=machine_names(),
        help="--baseline/--diff: the device model the predicted speed uses (default per arch: gfx942 mi300x, sm_90 h100)",
    )
    parser.add_argument(
        "--peak-threshold",
        type=int,
        default=PEAK_REGRESSION_THRESHOLD,
        help="live-VGPR rise that counts as a regression in --diff",
    )


def _source_line(source: Path | None, ref: str | None) -> str:
    if not source or not ref:
        return ""
    m = re.search(r"[\w./-]+:(\d+)", ref)  # the user's line comes first in an attributed source
    if not m:
        return ""
    try:
        line_no = int(m.group(1))
        lines = source.read_text(errors="replace").splitlines()
        return f"    {line_no}: {lines[line_no - 1].strip()}" if 0 < line_no <= len(lines) else ""
    except (ValueError, IndexError, OSError):
        return ""


def render(reports: VgprReports, source: Path | None = None) -> str:
    out = []
    for r in reports.reports:
        out.append(r.summary)
        out.append(
            "  metrics: "
            + ", ".join(
                f"{m.name}={'unknown' if m.value is None else m.value}{'' if m.status == 'ok' else ' [' + m.status + ']'}"
                for m in r.metrics
            )
        )
        for m in r.metrics:  # every warn/bad says why, with its threshold
            if m.status != "ok" or (m.name == "waves_per_simd" and m.note):
                out.append(f"    {m.name}={m.value} [{m.status}: {m.note.removeprefix(m.status + ': ')}]")
        if r.hot_loop:
            h = r.hot_loop
            out.append(f"  hot loop {h.header_label} #{h.first_index}-#{h.last_index}: {h.reason}")
            out.append(
                "    "
                + ", ".join(f"{k}={v}" for k, v in h.distribution.items() if v)
                + f", scratch share {h.scratch_share_of_memory_ops:.0%}, loop-carried {h.loop_carried_vgprs}"
            )
        regs = "GPRs" if r.vendor == "nvidia" else "VGPRs"
        for p in r.critical_points:
            out.append(
                f"  peak {p.live_vgprs} {regs} at #{p.instruction.index} (line {p.instruction.line}) "
                f"`{p.instruction.text}` {p.instruction.source or ''}"
            )
            for g in p.by_definition:
                out.append(f"    {g.count:4d} {g.kind:18s} {g.registers}")
            for s in p.by_source[:5]:
                out.append(f"    {s.count:4d} from {s.source}" + _source_line(source, s.source))
        if r.spills:
            out.append(f"  spills: {r.spills.root_cause}")
            for kind, n in sorted(r.spills.by_kind.items(), key=lambda kv: -kv[1]):
                if kind in r.spills.by_kind_detail:
                    out.append(f"    {n:4d} {kind}: {r.spills.by_kind_detail[kind]}")
        for s in r.suggestions:
            out.append(f"  suggest [{s.id}] {s.title}: ~{s.estimated_vgpr_savings} {regs} — {s.evidence}")
            out.append(f"      do: {s.action}")
        if r.baseline is not None:
            b = r.baseline
            moved = [c for c in b.changes if c.delta]
            desc = ", ".join(f"{c.name} {c.before}→{c.after}" for c in moved) or "no change"
            out.append(f"  against the baseline: {'REGRESSION' if b.regression else 'ok'} ({desc})")
            for c in b.changes:
                if c.regression:
                    out.append(f"    regression: {c.why}")
                elif c.warning:
                    out.append(f"    warning (explains a time; the speed decides): {c.why}")
        for t in r.triton:
            out.append(f"  triton: {t}")
        for n in r.notes:
            out.append(f"  note: {n}")
        if r.per_instruction:
            if r.vendor == "nvidia":
                out.append("  index  addr    gpr pred ugpr  instruction")
                for i in r.per_instruction:
                    out.append(
                        f"  {i.index:5d} {i.line:5x}  {i.live_gprs or 0:4d} {i.live_predicates or 0:4d} "
                        f"{i.live_ugprs or 0:4d}  {i.text}"
                    )
            else:
                out.append("  index  line   vgpr agpr sgpr  instruction")
                for i in r.per_instruction:
                    out.append(
                        f"  {i.index:5d} {i.line:5d}  {i.live_vgprs:4d} {i.live_agprs:4d} {i.live_sgprs:4d}  {i.text}"
                    )
    for e in reports.errors:
        out.append(f"error in {e.kernel}: {e.error}" + (f" (hint: {e.hint})" if e.hint else ""))
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    if args.diff:
        before = analyze_spec(args.diff[0], args.kernel, args.arch, frontend=args.frontend, call=args.call)
        after = analyze_spec(args.diff[1], args.kernel, args.arch, frontend=args.frontend, call=args.call)
        d = diff_reports(before, after, args.peak_threshold, **_budgets(args))
        d = judge_outcome(d, args.diff[0], args.diff[1], args.arch, **_outcome_options(args))
        print(d.model_dump_json(indent=1) if args.json else render_outcome(d))
        return 1 if d.regression else 0
    if not args.input:
        raise InputError(
            "no input given",
            hint="kernelpilot vgpr-pressure <kernel file | ISA file | cubin | dump dir> [--baseline HEAD:<file>]",
        )
    reports = analyze_spec(
        args.input,
        args.kernel,
        args.arch,
        per_instruction=args.per_instruction,
        top_k=args.top,
        launch_lds=getattr(args, "launch_lds", None),
        frontend=args.frontend,
        call=args.call,
    )
    regression = False
    outcome = None
    if getattr(args, "baseline", None):
        base = analyze_spec(args.baseline, args.kernel, args.arch, top_k=args.top, frontend=args.frontend,
                            call=args.call)  # fmt: skip
        d = attach_baseline(reports, base, args.peak_threshold, **_budgets(args))
        outcome = judge_outcome(d, args.baseline, args.input, args.arch, **_outcome_options(args))
        regression = outcome.regression
    if args.json:
        print(json.dumps(reports.model_dump(exclude_none=True), indent=1))
    else:
        print(render(reports, Path(args.source) if args.source else _source_of(args.input)))
        if outcome is not None:
            print("\n".join(render_outcome(outcome).splitlines()[1:]))
    return 1 if regression else 0


def _outcome_options(args: argparse.Namespace) -> dict:
    return {"check": not getattr(args, "no_check", False), "device": getattr(args, "device", None), "call": args.call}


def _budgets(args: argparse.Namespace) -> dict:
    return {"max_vgprs": getattr(args, "max_vgprs", None), "min_waves": getattr(args, "min_waves", None)}


def render_outcome(d) -> str:
    """A comparison's summary, then its correctness and speed (predicted, with its band, or why there is none)."""
    lines = [d.summary]
    if d.correctness is not None:
        lines.append(f"  correctness: {d.correctness.note}")
    if d.speed is not None:
        lines.append(f"  speed ({d.speed.source}): {d.speed.note}")
    return "\n".join(lines)


def _source_of(spec: str) -> Path | None:
    """The kernel file itself, when the input is one on disk (its lines are printed beside the peak groups)."""
    return Path(spec) if inputs.is_source(spec) else None


if __name__ == "__main__":  # pragma: no cover
    from tools.cli import main

    sys.exit(main(["vgpr-pressure", *sys.argv[1:]]))
