"""Every ``hint=`` in the engine, the harness and the server names only options that exist on the command that
prints it (or names the other program whose option it is)."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

from tests.conftest import REPO

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
NAMED_COMMAND = re.compile(r"kernelpilot ([a-z-]+)")


# Options of other programs that hints tell the user to pass to THAT program (which the hint names).
EXTERNAL = {
    "--att": "rocprofv3",
    "--kernel-trace": "rocprofv3",
    "--sys-trace": "rocprofv3",
    "--kernel-include-regex": "rocprofv3",
    "--csv": "ncu",
    "--page": "ncu",
    "--import": "ncu",
    "--print-source": "ncu",
    "--section": "ncu",
    "--save-temps": "hipcc",
    "--index-url": "pip",
    "--protocol": "dask scheduler",
}


# The commands a user runs whose errors carry hints from the modules they import (eval reports tool errors as task
# reasons, not as CLI hints, so only evals/ hints count for it; quickstart and doctor take no user kernel).
USER_COMMANDS = {
    "dump-ir": "tools.dump_ir",
    "vgpr-pressure": "tools.vgpr_pressure",
    "prefetch-data-load": "tools.prefetch",
    "kernel-trace": "tools.kernel_trace",
    "eval": "evals.cli",
}


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    """Project modules ``path`` imports anywhere (top level or lazily inside functions)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.split(".")[0] in ("tools", "evals", "mcp_server")}


def _hints() -> list[tuple[str, int, str, str]]:
    """(module, line, text, source) of every ``hint=`` argument in the engine, the harness and the server: the
    text is its string parts; the source its code (an f-string's expressions may name the program)."""
    found = []
    for path in sorted(p for d in ("tools", "evals", "mcp_server") for p in (REPO / d).rglob("*.py")):
        code = path.read_text()
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "hint":
                        text = "".join(
                            n.value
                            for n in ast.walk(kw.value)
                            if isinstance(n, ast.Constant) and isinstance(n.value, str)
                        )
                        found.append((_module_of(path), node.lineno, text, ast.get_source_segment(code, kw.value)))
    return found


def _options_of(command: str) -> set[str]:
    from tools.cli import build_parser

    sub = next(a for a in build_parser(command)._actions if isinstance(a, argparse._SubParsersAction))
    opts: set[str] = {"--help"}

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            opts.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                for p in action.choices.values():
                    walk(p)

    walk(sub.choices[command])
    return opts


def test_every_hint_names_options_that_exist():
    modules = {_module_of(p): p for d in ("tools", "evals", "mcp_server") for p in (REPO / d).rglob("*.py")}
    closure: dict[str, set[str]] = {}
    for command, root in USER_COMMANDS.items():
        seen, todo = set(), [root]
        while todo:
            m = todo.pop()
            if m in seen or m not in modules:
                continue
            seen.add(m)
            todo += [i for i in _imports(modules[m]) if command != "eval" or i.startswith("evals")]
        closure[command] = seen
    options = {c: _options_of(c) for c in USER_COMMANDS}
    wrong = []
    for module, line, text, source in _hints():
        for m in OPTION.finditer(text):
            opt = m.group()
            named = NAMED_COMMAND.findall(text[: m.start()])
            if named:  # "kernelpilot dump-ir --out DIR": an option of that command
                if opt not in _options_of(named[-1]):
                    wrong.append(f"{module}:{line}: {opt} is not an option of kernelpilot {named[-1]}")
            elif opt in EXTERNAL:
                if EXTERNAL[opt] not in source:
                    wrong.append(f"{module}:{line}: {opt} ({EXTERNAL[opt]}'s) without naming {EXTERNAL[opt]}")
            else:
                wrong += [
                    f"{module}:{line}: hint names {opt}, which `kernelpilot {c}` lacks"
                    for c, mods in closure.items()
                    if module in mods and module != "mcp_server.server" and opt not in options[c]
                ]
                if module.startswith("mcp_server"):  # the MCP server names its parameters, not CLI options
                    wrong.append(f"{module}:{line}: MCP hint names the CLI option {opt}")
    assert wrong == [], "\n".join(wrong)
