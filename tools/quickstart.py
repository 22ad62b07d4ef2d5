"""quickstart: compile the bundled FlyDSL example for gfx942 and gfx950 (no GPU needed) and print its resources."""

from __future__ import annotations

import argparse
from pathlib import Path

from tools.dump_ir import dump_ir, format_table

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEFAULT_EXAMPLE = EXAMPLES / "flydsl" / "saxpy.py"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--example", default=str(DEFAULT_EXAMPLE), help="kernel file to compile (default: FlyDSL saxpy)")
    p.add_argument("--arch", action="append", help="targets (default: gfx942 and gfx950)")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    archs = args.arch or ["gfx942", "gfx950"]
    print(f"kernelpilot quickstart: compiling {Path(args.example).name} for {', '.join(archs)} (compile-only, no GPU)")
    results = [dump_ir(args.example, arch) for arch in archs]
    if args.json:
        print("[" + ",\n".join(r.model_dump_json(indent=2) for r in results) + "]")
        return 0
    print(format_table(results))
    print("\nEvery IR stage is kept next to the final ISA; try:")
    print(f"  kernelpilot dump-ir {args.example} --arch gfx950 --json")
    return 0
