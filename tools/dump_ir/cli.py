"""``kernelpilot dump-ir``: arguments, the resource table a person reads (``format_table``), and the run."""

from __future__ import annotations

import argparse
from pathlib import Path

from tools.callspec import add_call_argument
from tools.dump_ir.dump import dump_ir, dump_ir_command
from tools.errors import InputError
from tools.frontends.registry import add_frontend_argument
from tools.models.dump import DumpResult


def format_table(results: list[DumpResult]) -> str:
    """A resource table a person can read at a glance."""
    head = (
        f"{'kernel':<34} {'arch':<7} {'vgpr':>5} {'agpr':>5} {'acc_off':>7} {'sgpr':>5} {'spill':>5} {'scratch':>7} "
        f"{'lds':>6} {'waves':>5} {'limit':<12}"
    )
    lines = [head, "-" * len(head)]
    for res in results:
        for k in res.kernels:
            r = k.resources
            if r.registers_per_thread is not None:
                lines.append(
                    f"{k.name[:34]:<34} {k.arch:<7} {r.registers_per_thread:>5} {'-':>5} {'-':>7} {'-':>5} "
                    f"{r.spill_store_bytes if r.spill_store_bytes is not None else '-':>5} {r.scratch_bytes or 0:>7} "
                    f"{r.lds_bytes or 0:>6} {str(r.occupancy_warps_per_sm) + 'w':>5} {r.occupancy_limiter or '-':<12}"
                )
                continue

            def f(v):
                return "-" if v is None else v

            lines.append(
                f"{k.name[:34]:<34} {k.arch:<7} {f(r.vgpr_count):>5} {f(r.agpr_count):>5} {f(r.accum_offset):>7} "
                f"{f(r.sgpr_count):>5} {f(r.vgpr_spill_count):>5} {f(r.scratch_bytes):>7} {f(r.lds_bytes):>6} "
                f"{f(r.waves_per_simd):>5} {r.occupancy_limiter or '-':<12}"
            )
    lines.append("")
    for res in results:
        for k in res.kernels:
            r = k.resources
            if r.occupancy_reason:
                lines.append(f"{k.name} {k.arch} occupancy: {r.occupancy_reason}")
            if r.lds_bytes and r.static_lds_bytes is not None and r.lds_bytes != r.static_lds_bytes:
                lines.append(
                    f"  LDS {r.lds_bytes} B per workgroup at launch (the binary declares {r.static_lds_bytes} B; "
                    "the rest is allocated by the launch)"
                )
            if k.launch and k.launch.grid:
                spec = ", ".join(f"{a}: {v}" for a, v in k.launch.specialization.items() if v)
                lines.append(
                    f"  launch: grid {tuple(k.launch.grid)} = {k.launch.programs} workgroups of "
                    f"{k.launch.block_threads} threads" + (f"; specialised {spec}" if spec else "")
                )
            for note in k.notes:
                lines.append(f"  note: {note}")
    lines.append("")
    for res in results:
        when = (
            f"cache hit (compiled earlier in {res.compile_seconds:.2f}s)"
            if res.cache_hit
            else f"compiled in {res.compile_seconds:.2f}s"
        )
        lines.append(f"{res.arch}: {when} → {res.out_dir}")
        for k in res.kernels:
            lines.append(f"  {k.name}: final ISA {k.final_isa}")
            if k.binary:
                lines.append(f"  {' ' * len(k.name)}  binary    {k.binary}")
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "source", nargs="?", help="kernel file (.py FlyDSL/Triton with kernelpilot_entry(), .cu, .hip, .mojo)"
    )
    p.add_argument("--arch", action="append", required=True, help="gfx90a|gfx942|gfx950|sm_80|sm_90 (repeatable)")
    add_frontend_argument(p, "the kernel's language, instead of detecting it (file and command mode)")
    add_call_argument(p)
    p.add_argument("--out", help="also copy the artifacts here (one subdirectory per arch when several)")
    p.add_argument("--no-cache", action="store_true", help="compile even if an identical dump is cached")
    p.add_argument("--no-debug-info", action="store_true", help="FlyDSL: leave out .loc source lines")
    p.add_argument("--flag", action="append", default=[], help="extra compiler flag (nvcc/hipcc), repeatable")
    p.add_argument("--timeout", type=float, default=600, help="seconds before a compile is stopped")
    p.add_argument("--json", action="store_true", help="print the result model as JSON")
    p.add_argument("--cmd", nargs=argparse.REMAINDER, help="command mode: run this command and collect its kernels")


def run(args: argparse.Namespace) -> int:
    if args.cmd is None and not args.source:
        raise InputError(
            "give a kernel file, or --cmd followed by a command", hint="kernelpilot dump-ir k.py --arch gfx942"
        )
    if args.cmd is not None and getattr(args, "call", None):
        raise InputError(
            "--call applies to a kernel file, not to --cmd", hint="kernelpilot dump-ir k.py --call 'fn(x=fp32[1024])'"
        )
    results = []
    for arch in args.arch:
        out = args.out if len(args.arch) == 1 or not args.out else str(Path(args.out) / arch)
        if args.cmd is not None:
            argv = ([args.source] if args.source else []) + args.cmd
            results.append(
                dump_ir_command(
                    argv, arch, frontend=args.frontend or "auto", out=out, debug_info=not args.no_debug_info
                )
            )
        else:
            results.append(
                dump_ir(
                    args.source,
                    arch,
                    frontend=args.frontend,
                    out=out,
                    use_cache=not args.no_cache,
                    debug_info=not args.no_debug_info,
                    flags=args.flag,
                    timeout=args.timeout,
                    call=args.call,
                )
            )
    if args.json:
        if len(results) == 1:
            print(results[0].model_dump_json(indent=2))
        else:
            print("[" + ",\n".join(r.model_dump_json(indent=2) for r in results) + "]")
    else:
        print(format_table(results))
    return 0
