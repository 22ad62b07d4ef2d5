"""``kernelpilot check BEFORE AFTER``: exit 0 when the outputs agree, 1 when they differ, 2 on an error."""

from __future__ import annotations

import argparse

from tools.callspec import add_call_argument
from tools.errors import InputError
from tools.frontends.registry import add_frontend_argument
from tools.models.check import ENGINE_CHOICES

DEFAULT_MAX_MEMORY_GB = 8.0  # tools.check.compare's default (not imported here: the CLI starts without numpy)


def parse_shape(text: str) -> dict:
    """``k_tiles=8,n=128`` → {'k_tiles': 8, 'n': 128} (ints, then floats, else strings)."""
    out = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--shape '{text}': expected KEY=VALUE[,KEY=VALUE…]", hint="e.g. --shape k_tiles=8")
        for conv in (int, float):
            try:
                out[key.strip()] = conv(value)
                break
            except ValueError:
                continue
        else:
            out[key.strip()] = value
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("before", help="the kernel file as it was (FlyDSL or Triton, with kernelpilot_entry()), or a git "
                   "revision of it: HEAD:./kernel.py (path relative to AFTER's folder)")  # fmt: skip
    p.add_argument("after", help="the rewritten kernel file")
    p.add_argument("--engine", choices=ENGINE_CHOICES, default="auto",
                   help="llvm (auto): run the AMDGPU LLVM IR on the CPU (FlyDSL, Triton); interpreter: Triton's "
                   "interpreter")  # fmt: skip
    p.add_argument("--arch", default="gfx942",
                   help="AMD target whose LLVM IR is run (llvm engine); a Triton file asked for an NVIDIA target "
                   "(sm_90) is compiled for gfx942 to be checked, and the report says so")  # fmt: skip
    p.add_argument("--seed", type=int, action="append", help="input seed (repeatable; default 0)")
    p.add_argument("--shape", action="append", type=parse_shape,
                   help="KEY=VALUE,… passed to kernelpilot_inputs(seed, **shape) / kernelpilot_entry(**shape) "
                   "(repeatable: one input set per shape)")  # fmt: skip
    add_call_argument(p)
    p.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (default: bit for bit)")
    p.add_argument("--rtol", type=float, default=0.0, help="relative tolerance (default: bit for bit)")
    p.add_argument("--timeout", type=float, default=600,
                   help="seconds for the whole check (compiles, inputs, the kernels' run); past it: an error")  # fmt: skip
    p.add_argument("--max-memory", type=float, default=DEFAULT_MAX_MEMORY_GB, metavar="GB",
                   help="memory cap of the child that runs the kernels (default %(default)g GB): a launch estimated "
                   "to need more is refused before it starts")  # fmt: skip
    p.add_argument("--no-cache", action="store_true",
                   help="compile both files and build the inputs again, even if identical ones are cached")  # fmt: skip
    add_frontend_argument(p, "the language of BEFORE and AFTER, instead of detecting it (check runs flydsl and triton)")
    p.add_argument("--json", action="store_true", help="print the CheckReport as JSON")


def run(args: argparse.Namespace) -> int:
    from tools.check.compare import check, format_report

    report = check(args.before, args.after, engine=args.engine, arch=args.arch, seeds=args.seed, shapes=args.shape,
                   atol=args.atol, rtol=args.rtol, timeout=args.timeout, max_memory_gb=args.max_memory,
                   use_cache=not args.no_cache, frontend=args.frontend, call=args.call)  # fmt: skip
    print(report.model_dump_json(indent=2) if args.json else format_report(report))
    return {"same": 0, "different": 1}.get(report.verdict, 2 if report.verdict == "error" else 3)
