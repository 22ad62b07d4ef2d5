"""The skills gate: every ``skills/<name>/SKILL.md`` follows the Agent Skills spec and names only real things.

Checked per skill:
- frontmatter: YAML mapping; keys from the spec (name, description, license, compatibility, metadata,
  allowed-tools) plus the Claude Code extensions in ``CLAUDE_KEYS``; ``name`` is 1-64 chars of ``[a-z0-9-]`` without
  leading, trailing or double hyphens and equals the folder; ``description`` 1-1024 chars; ``compatibility`` ≤ 500;
  ``metadata`` maps strings to strings; the body is under 500 lines.
- references, in code spans and code blocks: MCP tools (``mcp__kernelpilot__<tool>``) exist on the server;
  ``kernelpilot <command> --option`` and ``kernelpilot-mcp --option`` exist in the real argparse parsers; repository
  paths (``tools/…``, ``examples/…``, …) and ``${CLAUDE_SKILL_DIR}/…`` files exist; dotted names ``tools.x.y`` name a
  module and a top-level definition in it. Relative Markdown links resolve inside the skill folder.

``python -m mcp_server.skills_check [SKILLS_DIR]`` prints one ``file:line: problem`` per line and exits 1 on any.
"""

from __future__ import annotations

import argparse
import ast
import re
import shlex
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from mcp_server.skills import split_frontmatter

REPO_ROOT = Path(__file__).resolve().parents[1]
SPEC_KEYS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
# Claude Code extensions we allow (others fail the gate, as they would fail `agentskills validate`).
CLAUDE_KEYS = {"argument-hint", "disable-model-invocation", "user-invocable", "model"}
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_BODY_LINES = 500
REPO_DIRS = ("tools", "mcp_server", "skills", "examples", "tests", "docs", "benchmarks", "evals")
REPO_DIRS += (".claude-plugin", ".codex-plugin", ".agents", ".ci")

_FENCE = re.compile(r"^(\s*)(```|~~~)")
_SPAN = re.compile(r"(`+)(.+?)\1")
_TOOL_REF = re.compile(r"mcp__(?:plugin_kernelpilot_)?kernelpilot__([A-Za-z0-9_*-]+)")
_CLI_REF = re.compile(r"(?<![\w./$-])(kernelpilot(?:-mcp)?)(?=\s|$)")
_REPO_DIRS_RE = "|".join(re.escape(d) for d in REPO_DIRS)
_PATH_REF = re.compile(r"(?<![\w./$}-])((?:" + _REPO_DIRS_RE + r")/[\w./-]*\w)")
_SKILL_DIR_REF = re.compile(r"\$\{?CLAUDE_SKILL_DIR\}?/([\w./-]*\w)")
_DOTTED_REF = re.compile(r"(?<![\w./-])((?:tools|mcp_server)(?:\.[A-Za-z_]\w*)+)(?![\w/])")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_SHELL_STOP = re.compile(r"\s(?:\||;|&&|\|\||#|>|2>)")


@dataclass
class Problem:
    file: Path
    line: int
    message: str

    def __str__(self) -> str:
        try:
            shown = self.file.relative_to(REPO_ROOT)
        except ValueError:
            shown = self.file
        return f"{shown}:{self.line}: {self.message}"


def _code_fragments(text: str) -> list[tuple[int, str]]:
    """(line number, text) of every code-block line and inline code span."""
    out, in_fence = [], False
    for no, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            out.append((no, line))
        else:
            out += [(no, m.group(2)) for m in _SPAN.finditer(line)]
    return out


@cache
def _parser_options(prog: str, command: str | None) -> tuple[frozenset[str], frozenset[str]] | str:
    """Option strings of ``kernelpilot <command>`` (or kernelpilot-mcp), and those that swallow the rest."""
    if prog == "kernelpilot-mcp":
        from mcp_server.server import build_arg_parser

        parser = build_arg_parser()
    else:
        from tools.cli import COMMANDS, build_parser
        from tools.errors import KernelpilotError

        if command not in COMMANDS:
            return f"unknown command 'kernelpilot {command}' (commands: {', '.join(COMMANDS)})"
        try:
            top = build_parser(command)
        except KernelpilotError as exc:
            return f"'kernelpilot {command}' cannot load: {exc.message}"
        parser = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    opts, rest = set(), set()
    for action in parser._actions:
        opts.update(action.option_strings)
        if action.nargs == argparse.REMAINDER:
            rest.update(action.option_strings)
    return frozenset(opts), frozenset(rest)


def _check_cli(fragment: str) -> list[str]:
    problems = []
    for m in _CLI_REF.finditer(fragment):
        rest = fragment[m.end() :]
        stop = _SHELL_STOP.search(rest)
        rest = rest[: stop.start()] if stop else rest
        try:
            words = shlex.split(rest)
        except ValueError:
            words = rest.split()
        prog = m.group(1)
        command = None
        if prog == "kernelpilot":
            if not words or not re.fullmatch(r"[a-z][a-z-]*", words[0]):
                continue  # a placeholder (<command>) or prose
            command, words = words[0], words[1:]
        found = _parser_options(prog, command)
        if isinstance(found, str):
            problems.append(found)
            continue
        opts, rest_opts = found
        for w in words:
            if w == "--":
                break  # the rest belongs to the profiled program
            if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", w):
                name = w.split("=", 1)[0]
                if name not in opts:
                    problems.append(f"'{prog}{' ' + command if command else ''}' has no option {name}")
                if name in rest_opts:
                    break
    return problems


@cache
def _top_level_names(module_file: Path) -> frozenset[str]:
    tree = ast.parse(module_file.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


def _check_dotted(ref: str, repo: Path) -> str | None:
    parts = ref.split(".")
    for i in range(len(parts), 0, -1):
        base = repo.joinpath(*parts[:i])
        module_file = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
        if module_file.exists():
            if i < len(parts) and parts[i] not in _top_level_names(module_file):
                if not (base / parts[i]).exists() and not (base / f"{parts[i]}.py").exists():
                    return f"{'.'.join(parts[:i])} defines no '{parts[i]}' (from {ref})"
            return None
    return f"no module for {ref}"


def check_skill(skill_md: Path, tool_names: set[str], repo: Path = REPO_ROOT) -> list[Problem]:
    """Every problem with one SKILL.md."""
    text = skill_md.read_text()
    folder = skill_md.parent.name
    problems: list[Problem] = []

    def bad(line: int, message: str) -> None:
        problems.append(Problem(skill_md, line, message))

    try:
        meta, body = split_frontmatter(text)
    except yaml.YAMLError as exc:
        bad(1, f"frontmatter is not valid YAML: {exc}")
        return problems
    if not isinstance(meta, dict):
        bad(1, "no YAML frontmatter: the file must start with '---', name and description, then '---'")
        return problems
    for key in sorted(set(meta) - SPEC_KEYS - CLAUDE_KEYS, key=str):
        bad(1, f"frontmatter key '{key}' is neither in the Agent Skills spec nor an allowed Claude extension")
    name = meta.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 64 or not NAME_RE.match(name):
        bad(1, f"name {name!r} must be 1-64 chars of a-z, 0-9 and single inner hyphens")
    elif name != folder:
        bad(1, f"name '{name}' differs from its folder '{folder}'")
    desc = meta.get("description")
    if not isinstance(desc, str) or not desc.strip():
        bad(1, "description is missing or empty")
    elif len(desc) > 1024:
        bad(1, f"description is {len(desc)} chars (the spec allows 1024)")
    if "compatibility" in meta and (not isinstance(meta["compatibility"], str) or len(meta["compatibility"]) > 500):
        bad(1, "compatibility must be a string of at most 500 chars")
    if "metadata" in meta and not (
        isinstance(meta["metadata"], dict) and all(isinstance(v, str) for v in meta["metadata"].values())
    ):
        bad(1, "metadata must map strings to strings")
    body_lines = body.count("\n") + 1
    if body_lines >= MAX_BODY_LINES:
        bad(1, f"body is {body_lines} lines (keep it under {MAX_BODY_LINES}; move detail into references/)")

    allowed = meta.get("allowed-tools", "")
    allowed_text = " ".join(allowed) if isinstance(allowed, list) else str(allowed)
    fragments = [(1, allowed_text)] + _code_fragments(text)
    for no, frag in fragments:
        for m in _TOOL_REF.finditer(frag):
            if m.group(1) != "*" and m.group(1) not in tool_names:
                bad(no, f"MCP tool '{m.group(1)}' does not exist (server tools: {', '.join(sorted(tool_names))})")
        for message in _check_cli(frag):
            bad(no, message)
        for m in _PATH_REF.finditer(frag):
            if "*" not in m.group(1) and not (repo / m.group(1)).exists():
                bad(no, f"path {m.group(1)} does not exist in the repository")
        for m in _SKILL_DIR_REF.finditer(frag):
            if not (skill_md.parent / m.group(1)).exists():
                bad(no, f"{m.group(0)} does not exist in the skill folder")
        for m in _DOTTED_REF.finditer(frag):
            if message := _check_dotted(m.group(1), repo):
                bad(no, message)
    for no, line in enumerate(text.splitlines(), 1):
        for m in _LINK.finditer(line):
            target = m.group(1).split("#")[0]
            if target and not re.match(r"^[a-z]+:", target) and not (skill_md.parent / target).exists():
                bad(no, f"link {target} does not exist (relative to {folder}/)")
    return problems


def server_tool_names() -> set[str]:
    import anyio

    from mcp_server.server import mcp

    return {t.name for t in anyio.run(mcp.list_tools)}


def check_all(skills_dir: Path = REPO_ROOT / "skills", tool_names: set[str] | None = None) -> list[Problem]:
    names = server_tool_names() if tool_names is None else tool_names
    problems: list[Problem] = []
    for folder in sorted(p for p in skills_dir.iterdir() if p.is_dir()):
        skill_md = folder / "SKILL.md"
        if not skill_md.exists():
            problems.append(Problem(folder, 0, "skill folder without SKILL.md"))
            continue
        problems += check_skill(skill_md, names)
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    skills_dir = Path(args[0]) if args else REPO_ROOT / "skills"
    problems = check_all(skills_dir)
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s) in {skills_dir}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
