"""``kernelpilot <command> …``: a thin adapter over the tool modules.

Each command lives in its own module, which provides ``add_arguments(parser)`` and ``run(args) -> int``; the module
is imported only when its command runs, so ``kernelpilot --help`` stays fast. ``--json`` prints the pydantic model.
Expected failures (KernelpilotError) print ``error:``/``hint:`` lines and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tools.errors import KernelpilotError

# command -> (module, one-line help). Modules are imported lazily.
COMMANDS: dict[str, tuple[str, str]] = {
    "quickstart": ("tools.quickstart", "compile the bundled example for gfx942 and gfx950 and print its resources"),
    "dump-ir": ("tools.dump_ir", "compile a kernel and keep every IR stage, the final ISA and the binary"),
    "vgpr-pressure": ("tools.vgpr_pressure", "register use, exact liveness, peak points and what to cut"),
    "prefetch-data-load": ("tools.prefetch", "find exposed load latency in hot loops; verify a prefetch rewrite"),
    "check": ("tools.check.cli", "run BEFORE and AFTER on the same inputs on the CPU and compare what they write"),
    "kernel-trace": ("tools.kernel_trace", "read or run profilers (rocprofv3, ATT, Nsight Compute) into one model"),
    "eval": ("evals.cli", "run agents on the benchmark tasks and build the leaderboard"),
    "doctor": ("tools.doctor", "show which compilers, linkers and profilers this machine has"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kernelpilot", description="GPU kernel optimization tools for AI agents.")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == only:
            _load(module).add_arguments(p)
    return parser


def _load(module: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise KernelpilotError(f"command module {module} is not installed", hint="reinstall kernelpilot") from exc
        raise


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    try:
        parser = build_parser(command if command in COMMANDS else None)
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return 0
        return int(_load(COMMANDS[args.command][0]).run(args) or 0)
    except KernelpilotError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
