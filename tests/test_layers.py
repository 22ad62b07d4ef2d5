"""The layers of README "Layout", checked on the source: no private name crosses a module boundary, no engine module
grows past 600 lines without saying why, and the import-linter contracts of pyproject.toml hold."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("tools", "mcp_server", "evals")
MAX_LINES = 600


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")


def _sources() -> list[Path]:
    # evals/tasks/*/workspace holds the tasks' kernels (data an agent edits), not harness code
    return sorted(p for d in PACKAGES for p in (REPO / d).rglob("*.py") if "workspace" not in p.relative_to(REPO).parts)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for an attribute chain on a plain name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def private_uses(path: Path, me: str | None = None) -> list[tuple[int, str]]:
    """(line, ``module._name``) for every private name of another project module that ``path`` (module ``me``,
    by default its name in the repository) imports or reads through a module path (``tools.x._name``)."""
    me = me or _module_name(path)
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in PACKAGES and node.module != me:
                found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            owner = _dotted(node.value)
            if owner and owner.split(".")[0] in PACKAGES and owner != me:
                found.append((node.lineno, f"{owner}.{node.attr}"))
    return found


def test_private_names_stay_in_their_module():
    wrong = []
    for path in _sources():
        for line, name in private_uses(path):
            wrong.append(f"{path.relative_to(REPO)}:{line}: imports {name}; make it public or move it")
    assert wrong == []


def test_the_private_import_check_sees_both_spellings(tmp_path):
    # the checker itself: a from-import and an attribute path are caught; an underscore alias of a public name, a
    # dunder, and the module's own private names are not
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import tools.cache\nfrom tools.dump_ir import check_source as _c, __all__\n"
        "from tools.cli import _load\nx = tools.cache._private_thing\nfrom tools.probe import _mine\n"
    )
    assert private_uses(probe, "tools.probe") == [(3, "tools.cli._load"), (4, "tools.cache._private_thing")]


def test_engine_modules_stay_under_600_lines_or_say_why():
    wrong = []
    for path in sorted((REPO / "tools").rglob("*.py")):
        rel = str(path.relative_to(REPO))
        lines = len(path.read_text().splitlines())
        if lines <= MAX_LINES:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if "Long because" not in doc.split("\n", 1)[0]:
            wrong.append(f"{rel}: {lines} lines; split it, or start its docstring with 'Long because <reason>'")
    assert wrong == []


def test_a_long_because_reason_is_only_on_a_module_over_the_limit():
    # the one exception to the size rule is a module's own "Long because" line: one that was split below the limit
    # drops it, so the reason never outlives the length it explains
    stale = []
    for path in sorted((REPO / "tools").rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if "Long because" in doc.split("\n", 1)[0] and len(path.read_text().splitlines()) <= MAX_LINES:
            stale.append(str(path.relative_to(REPO)))
    assert stale == []


def test_import_linter_contracts_hold():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("lint-imports (import-linter, in the dev extra) is not installed")
    proc = subprocess.run([exe, "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_the_engine_names_no_adapter_module_even_in_a_string():
    # import-linter sees imports; a module path in a string (importlib.import_module("evals.cli")) would slip past
    # it, so the CLI's table of commands must not hold one: `kernelpilot eval` comes from the entry-point group
    named = re.compile(r"""["'](?:evals|mcp_server)(?:\.\w+)+["']""")
    wrong = [
        f"{p.relative_to(REPO)}:{n}: {line.strip()}"
        for p in sorted((REPO / "tools").rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if named.search(line)
    ]
    assert wrong == []


def test_eval_joins_the_cli_through_the_entry_point_group():
    from tools.cli import BUILTIN_COMMANDS, COMMANDS, PLUGIN_GROUP, plugin_commands

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"][PLUGIN_GROUP]
    assert declared == {"eval": "evals.cli"} and "eval" not in BUILTIN_COMMANDS
    # found from the installed metadata, or from this tree's pyproject.toml when the install predates the group
    assert plugin_commands() == {"eval": ("evals.cli", "run agents on the benchmark tasks and build the leaderboard")}
    assert COMMANDS["eval"][0] == "evals.cli"
    help_text = subprocess.run(
        [sys.executable, "-m", "tools.cli", "--help"], cwd=REPO, capture_output=True, text=True, timeout=120
    ).stdout
    assert re.search(r"^    eval\s+run agents on the benchmark tasks", help_text, re.M)
