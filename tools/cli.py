"""``kernelpilot <command> …``: a thin adapter over the tool modules.

Each command lives in its own module, which provides ``add_arguments(parser)`` and ``run(args) -> int``; the module
is imported only when its command runs, so ``kernelpilot --help`` stays fast. ``--json`` prints the pydantic model.
Expected failures (KernelpilotError) print ``error:``/``hint:`` lines and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from tools.errors import Interrupted, KernelpilotError

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


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def _install_signal_handlers() -> dict:
    """SIGTERM/SIGHUP clean up like Ctrl-C: compilers' process groups killed, staging renamed, exit 128+signum.
    Returns the previous handlers (main() restores them: a caller embedding the CLI keeps its own)."""
    return {sig: signal.signal(sig, _raise_interrupted) for sig in (signal.SIGTERM, signal.SIGHUP)}


def _stdout_closed() -> int:
    """The reader went away (``| head``): stop quietly; later flushes go to /dev/null, not a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141  # 128 + SIGPIPE, as a shell tool killed by it would


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    previous = _install_signal_handlers() if threading.current_thread() is threading.main_thread() else {}
    try:
        parser = build_parser(command if command in COMMANDS else None)
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return 0
        code = int(_load(COMMANDS[args.command][0]).run(args) or 0)
        sys.stdout.flush()  # inside the try: a reader that went away (| head) is handled below
        return code
    except KernelpilotError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Interrupted as exc:
        print(f"terminated by {signal.Signals(exc.signum).name}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return _stdout_closed()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


if __name__ == "__main__":
    sys.exit(main())
