"""``kernelpilot <command> …``: a thin adapter over the tool modules.

Each command lives in its own module, which provides ``add_arguments(parser)`` and ``run(args) -> int``; the module
is imported only when its command runs, so ``kernelpilot --help`` stays fast. ``--json`` prints the pydantic model.
Commands from outside the engine (``kernelpilot eval``) are not named here: they register in the
``kernelpilot.commands`` entry-point group (pyproject.toml), read from the installed metadata or, for a source tree
whose install predates the group, from pyproject.toml itself (``plugin_commands``).
Expected failures (KernelpilotError) print ``error:``/``hint:`` lines and exit 2, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import math
import os
import signal
import sys
import threading
from importlib import metadata
from pathlib import Path

from tools import __version__, limits
from tools.errors import Interrupted, KernelpilotError, bounded, from_os_error

# command -> (module, one-line help). Modules are imported lazily. Commands from outside the engine join through the
# "kernelpilot.commands" entry-point group (see plugin_commands); the engine names none of them.
BUILTIN_COMMANDS: dict[str, tuple[str, str]] = {
    "quickstart": ("tools.quickstart", "compile the bundled example for gfx942 and gfx950 and print its resources"),
    "dump-ir": ("tools.dump_ir.cli", "compile a kernel and keep every IR stage, the final ISA and the binary"),
    "vgpr-pressure": ("tools.vgpr_pressure.cli", "register use, exact liveness, peak points and what to cut"),
    "prefetch-data-load": ("tools.prefetch.cli", "find exposed load latency in hot loops; verify a prefetch rewrite"),
    "schedule": (
        "tools.schedule.cli",
        "a hot loop's barrier-delimited clusters: what each issues and waits for, pipe cycles, ATT beside",
    ),
    "predict": ("tools.predict.cli", "predict each launch's time on a GPU from its ISA and launch, and what bounds it"),
    "check": ("tools.check.cli", "run BEFORE and AFTER on the same inputs on the CPU and compare what they write"),
    "kernel-trace": (
        "tools.kernel_trace.cli",
        "read or run profilers (rocprofv3, ATT, Nsight Compute) into one model",
    ),
    "doctor": ("tools.doctor", "show which compilers, linkers and profilers this machine has"),
}
PLUGIN_GROUP = "kernelpilot.commands"
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _declared_plugins() -> dict[str, str]:
    """command -> module of the ``kernelpilot.commands`` entry points of the installed distribution; when its
    metadata lacks the group (an editable install made before the group existed, or a bare source tree on
    PYTHONPATH), the group as this source tree's pyproject.toml declares it."""
    found = {ep.name: ep.value.split(":")[0] for ep in metadata.entry_points(group=PLUGIN_GROUP)}
    if found or not PYPROJECT.is_file():
        return found
    import tomllib  # only on this fallback path

    try:
        project = tomllib.loads(PYPROJECT.read_text()).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return {k: str(v).split(":")[0] for k, v in project.get("entry-points", {}).get(PLUGIN_GROUP, {}).items()}


def plugin_commands() -> dict[str, tuple[str, str]]:
    """command -> (module, help) for every command registered from outside the engine. A plugin module provides
    ``add_arguments``/``run`` like ours and a one-line ``HELP``; it is imported here for that line (keep its top
    level light). One that cannot be imported is still listed, and says why when run."""
    out = {}
    for name, module in sorted(_declared_plugins().items()):
        if name in BUILTIN_COMMANDS:
            continue  # a plugin never shadows an engine command
        try:
            help_text = getattr(importlib.import_module(module), "HELP", "")
        except Exception as exc:  # a broken plugin must not take the engine's commands down with it
            help_text = f"(from {module}, which cannot be imported here: {type(exc).__name__})"
        out[name] = (module, help_text)
    return out


COMMANDS: dict[str, tuple[str, str]] = {**BUILTIN_COMMANDS, **plugin_commands()}


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors read like ours: ``error:`` + ``hint:`` on stderr, exit 2, message bounded."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(
            2, f"error: {bounded(message, 2000)}\nhint: '{self.prog} --help' lists the options and their values\n"
        )


# Numeric options and their ranges, by dest. argparse's int/float accept -5, nan and inf; every numeric option of
# every command is checked here (one place), so an option added later without a rule still refuses nan/inf and
# negatives. (low, low_inclusive, high): the value must be > low, or >= low when inclusive, and <= high (None: no
# upper bound beyond being finite); the engine's own bounds come from tools.limits.
NUMBER_RANGES: dict[str, tuple[float, bool, float | None]] = {
    "timeout": (0, False, limits.MAX_TIMEOUT_S),
    "time_limit": (0, False, limits.MAX_TIMEOUT_S),
    "score_timeout": (0, False, limits.MAX_TIMEOUT_S),
    "score_memory_gb": (0, False, limits.MAX_MEMORY_GB),
    "top": (1, True, None),
    "launch_count": (1, True, None),
    "jobs": (1, True, None),
    "peak_threshold": (0, True, None),
    "launch_lds": (0, True, None),  # bytes of LDS a launch allocates: 0 is a real answer
    "allow_occupancy_drop": (0, True, None),
    "compute_units": (1, True, None),
    "atol": (0, True, None),
    "rtol": (0, True, None),
    "max_memory": (limits.MIN_MEMORY_GB, True, limits.MAX_MEMORY_GB),
    "seed": (0, True, 2**63 - 1),
    "slurm_gpus_per_node": (1, True, None),
    "slurm_jobs": (1, True, None),
    # predict: hot-loop iterations per program; 0 would predict a loop that never runs
    "trips": (0, False, limits.MAX_TRIPS),
}


def _checked(convert, dest: str):
    low, inclusive, high = NUMBER_RANGES.get(dest, (0, True, None))

    def parse(text: str):
        try:
            value = convert(text)
        except (ValueError, OverflowError):
            kind = "an integer" if convert is int else "a number"
            raise argparse.ArgumentTypeError(f"must be {kind}, got '{bounded(text, 40)}'") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got '{bounded(text, 40)}'")
        if value < low or (value == low and not inclusive):
            raise argparse.ArgumentTypeError(f"must be {'>=' if inclusive else '>'} {low:g}, got {bounded(text, 40)}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be <= {high:g}, got {bounded(text, 40)}")
        return value

    parse.__name__ = convert.__name__  # argparse names the type in its messages
    return parse


def check_numbers(parser: argparse.ArgumentParser) -> None:
    """Give every int/float option of ``parser`` a range check (see NUMBER_RANGES)."""
    for action in parser._actions:
        if action.type in (int, float):
            action.type = _checked(action.type, action.dest)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                check_numbers(sub)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = Parser(prog="kernelpilot", description="GPU kernel optimization tools for AI agents.")
    parser.add_argument("--version", action="version", version=f"kernelpilot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name == only:
            _load(module).add_arguments(p)
            check_numbers(p)
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


def _safe_streams() -> None:
    """Output that never fails for its characters: an ascii or latin-1 terminal gets '?' for '—', not a traceback."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):  # a stream already closed
                pass


def _stdout_gone() -> int:
    """stdout closed by the reader (``| head``) or full: stop quietly, as a well-behaved filter does."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the interpreter's final flush does not fail again
    except (OSError, ValueError, AttributeError):
        pass
    return 141  # 128 + SIGPIPE, what the shell reports for a writer whose reader went away


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    previous = _install_signal_handlers() if threading.current_thread() is threading.main_thread() else {}
    _safe_streams()
    try:
        parser = build_parser(command if command in COMMANDS else None)
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version, a usage error (already printed): its status, not an exit
            return exc.code if isinstance(exc.code, int) else 0
        if not args.command:
            parser.print_help()
            return 0
        code = int(_load(COMMANDS[args.command][0]).run(args) or 0)
        if sys.stdout is not None:
            sys.stdout.flush()  # inside the try: a closed pipe is reported here, not at interpreter exit
        return code
    except KernelpilotError as exc:
        print(bounded(exc.render()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Interrupted as exc:
        print(f"terminated by {signal.Signals(exc.signum).name}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return _stdout_gone()
    except OSError as exc:
        if exc.filename is not None:  # a file we could not open or write: name it, no traceback
            print(bounded(from_os_error(exc).render()), file=sys.stderr)
            return 2
        if exc.errno in (errno.ENOSPC, errno.EBADF, errno.EIO):
            print(f"error: cannot write the output: {exc.strerror}", file=sys.stderr)
            return _stdout_gone()
        return _internal_error(exc)
    except Exception as exc:
        return _internal_error(exc)

    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _internal_error(exc: Exception) -> int:
    """An exception we did not expect is our bug: say so in one bounded message; the traceback only on request."""
    if os.environ.get("KERNELPILOT_TRACEBACK"):
        raise exc
    text = f"error: kernelpilot internal error: {type(exc).__name__}: {exc}"
    print(bounded(text), file=sys.stderr)
    print(
        "hint: this is a kernelpilot bug, not your input's fault; KERNELPILOT_TRACEBACK=1 shows where", file=sys.stderr
    )
    return 70  # EX_SOFTWARE


if __name__ == "__main__":
    sys.exit(main())
