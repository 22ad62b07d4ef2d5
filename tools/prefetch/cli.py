"""``kernelpilot prefetch-data-load``: arguments, the text rendering of a report, and the command."""

from __future__ import annotations

import argparse

from tools.callspec import add_call_argument
from tools.errors import InputError
from tools.frontends.registry import add_frontend_argument
from tools.isa.machines import machine_names
from tools.models.prefetch import PrefetchReport, VerifyReport
from tools.prefetch.analysis import analyze_prefetch
from tools.prefetch.verify import verify_prefetch


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
    if ld.waited_too_soon is False and ld.exposed_cycles:  # placed late enough, yet the model stalls on it
        how = "carried" if ld.carried else "waited late"
        state = f"{how}, still ~{ld.exposed_cycles} stall cycles in the model"
    kind = "s " if ld.memory == "scalar" else ""
    line = f"  [{ld.index}] {kind}{ld.text[:56]:<56} {ld.source or '':<22} {wait}; {use}; {ld.consumed}; {state}"
    if ld.wait_reason_detail and ld.waited_too_soon is not False:
        line += f"\n        why: {ld.wait_reason_detail}"
    if ld.undetermined_reason:
        line += f"\n        undetermined: {ld.undetermined_reason}"
    return line


def format_report(rep: PrefetchReport) -> str:
    lines = [rep.summary]
    for note in rep.notes:
        lines.append(f"note: {note}")
    if rep.hot_loop_basis:
        lines.append(f"hot loop: {rep.hot_loop_basis}")
    for lp in rep.loops:
        tag = "HOT " if lp.is_hot else ""
        runs = ""
        if lp.executed_instructions is not None:
            runs = f" ({lp.trips:g} trips, {lp.executed_instructions:.0f} executed instructions per wave)"
        lines.append(
            f"\n{tag}loop {lp.header} [{lp.first_instruction}..{lp.last_instruction}] depth {lp.depth}{runs}: "
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
        for w in lp.warnings:
            lines.append(f"  [warn] {w}")
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


VERIFY_EXIT = {"pass": 0, "fail": 1, "undetermined": 3}  # 2 is an input error


def format_verify(rep: VerifyReport) -> str:
    """--verify as text: the verdict line, correctness, speed (measured or predicted with its band), then each check:
    [FAIL] decides the verdict, [note] / [warn] explain the time."""
    lines = [rep.summary]
    if rep.correctness is not None:
        lines.append(f"  correctness: {rep.correctness.note}")
    if rep.speed is not None:
        lines.append(f"  speed ({rep.speed.source}): {rep.speed.note}")
    for c in rep.checks:
        tag = "FAIL" if not c.ok else {"note": "note", "warning": "warn"}.get(c.severity or "", "ok")
        lines.append(f"  [{tag}] {c.name}: {c.detail}")
    lines.append(f"  gpu: {rep.gpu.note if rep.gpu else 'not measured (--no-gpu)'}")
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", nargs="?", help="kernel file, ISA (.s/.amdgcn), SASS (.sass) or dump directory")
    p.add_argument("--arch", help="target when compiling a kernel file (default gfx942; sm_90 for .cu)")
    p.add_argument("--kernel", help="kernel name (or unique substring) when the input holds several")
    add_frontend_argument(p)
    p.add_argument("--timeout", type=float, default=600, help="kernel files: seconds before a compile is stopped")
    add_call_argument(p)
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
    p.add_argument(
        "--allow-occupancy-drop",
        type=int,
        help="--verify: your budget: waves/SIMD (warps/SM) AFTER may lose; losing more fails (default: no budget, a "
        "drop is a warning that explains the time)",
    )
    p.add_argument("--max-vgprs", type=int, help="--verify: your budget: most VGPRs (registers/thread) AFTER may use")
    p.add_argument("--min-waves", type=int, help="--verify: your budget: fewest waves/SIMD (warps/SM) AFTER may hold")
    p.add_argument(
        "--device",
        choices=machine_names(),
        help="--verify without a GPU run: the device model the predicted speed uses (default per arch: gfx942 "
        "mi300x, sm_90 h100)",
    )
    p.add_argument(
        "--no-gpu",
        action="store_true",
        help="--verify: skip the GPU correctness and timing run; speed is then predicted (with its band)",
    )
    p.add_argument(
        "--no-check", action="store_true", help="--verify: without a GPU run, skip the CPU output comparison (check)"
    )
    p.add_argument(
        "--compute-units",
        type=int,
        help="--verify: CUs/SMs of the GPU the launch runs on (default: MI300X 304, MI355X 256, H100 132, A100 108)",
    )
    p.add_argument(
        "--trace",
        metavar="FILE",
        help="--verify: a kernel trace of the launch (rocprofv3 kernel_trace.csv, ncu --page details CSV...): its "
        "grid decides whether an occupancy drop is felt, as example arguments' grid does",
    )
    p.add_argument(
        "--trace-kernel",
        metavar="NAME",
        help="--trace: the kernel's name in the trace, or a unique part of it (default: AFTER's kernel name)",
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
            trace=getattr(args, "trace", None),
            trace_kernel=getattr(args, "trace_kernel", None),
            check=not getattr(args, "no_check", False),
            max_vgprs=getattr(args, "max_vgprs", None),
            min_waves=getattr(args, "min_waves", None),
            device=getattr(args, "device", None),
            call=args.call,
        )
        print(rep.model_dump_json(indent=2) if args.json else format_verify(rep))
        return VERIFY_EXIT[rep.verdict]
    if getattr(args, "trace", None) or getattr(args, "trace_kernel", None):
        raise InputError(
            "--trace and --trace-kernel apply to --verify BEFORE AFTER",
            hint="kernelpilot prefetch-data-load --verify BEFORE AFTER --trace kernel_trace.csv",
        )
    if not args.source:
        raise InputError(
            "give a kernel file, ISA or dump directory, or --verify BEFORE AFTER",
            hint="kernelpilot prefetch-data-load k.py --arch gfx942",
        )
    rep = analyze_prefetch(
        args.source,
        args.arch,
        args.kernel,
        args.frontend,
        args.timeout,
        baseline=getattr(args, "baseline", None),
        call=args.call,
    )
    print(rep.model_dump_json(indent=2) if args.json else format_report(rep))
    return 0
