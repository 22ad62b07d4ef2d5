"""CI gate: every skill follows the Agent Skills spec and names only tools, commands, options and paths that exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_server import skills_check
from mcp_server.skills_check import REPO_ROOT, check_all, check_skill, server_tool_names, split_frontmatter

SKILLS = REPO_ROOT / "skills"
TOOLS = {"dump-ir", "vgpr-pressure", "read-artifact", "doctor"}


def test_every_skill_in_the_repository_passes_the_gate():
    problems = check_all(SKILLS)
    assert not problems, "\n".join(map(str, problems))


def test_every_user_facing_mcp_tool_has_a_skill():
    helpers = {"doctor", "read-artifact"}
    missing = [t for t in sorted(server_tool_names() - helpers) if not (SKILLS / t / "SKILL.md").exists()]
    assert not missing, f"tools without skills/<tool>/SKILL.md: {missing}"
    assert (SKILLS / "optimize-kernel" / "SKILL.md").exists()


def write_skill(tmp_path: Path, folder: str, front: str, body: str = "# x\n") -> Path:
    d = tmp_path / folder
    d.mkdir()
    (d / "SKILL.md").write_text(f"---\n{front}\n---\n{body}")
    return d / "SKILL.md"


def messages(skill_md: Path) -> list[str]:
    return [p.message for p in check_skill(skill_md, TOOLS)]


def test_a_good_skill_has_no_problems(tmp_path):
    body = (
        "Call `mcp__kernelpilot__dump-ir`, then:\n```\nkernelpilot dump-ir examples/triton/vector_add.py "
        "--arch gfx942 --json | jq .summary\nkernelpilot dump-ir --arch gfx942 --cmd python x.py --not-ours\n"
        "kernelpilot kernel-trace --top 5 -- python x.py --size 4\nkernelpilot-mcp --http --port 8765\n```\nSee `tools/dump_ir/__init__.py` and `tools.dump_ir.dump_ir`.\n"
    )
    assert messages(write_skill(tmp_path, "good", "name: good\ndescription: does x; use when y", body)) == []


@pytest.mark.parametrize(
    ("folder", "front", "expected"),
    [
        ("Bad_Name", "name: Bad_Name\ndescription: d", "name 'Bad_Name' must be 1-64 chars"),
        ("a--b", "name: a--b\ndescription: d", "name 'a--b' must be"),
        ("other", "name: mine\ndescription: d", "name 'mine' differs from its folder 'other'"),
        ("x", "name: x", "description is missing or empty"),
        ("x", "name: x\ndescription: " + "d" * 1025, "description is 1025 chars"),
        ("x", "name: x\ndescription: d\ntools: Bash", "frontmatter key 'tools' is neither in the Agent Skills spec"),
        ("x", "name: x\ndescription: d\nmetadata: {a: [1]}", "metadata must map strings to strings"),
        ("x", "name: x\ndescription: d\nallowed-tools: mcp__kernelpilot__dump_ir", "MCP tool 'dump_ir' does not"),
    ],
)
def test_frontmatter_problems_are_named(tmp_path, folder, front, expected):
    got = messages(write_skill(tmp_path, folder, front))
    assert any(m.startswith(expected) for m in got), got
    assert "argument-hint" in skills_check.CLAUDE_KEYS


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("`kernelpilot dump-ir k.py --arhc gfx942`", "'kernelpilot dump-ir' has no option --arhc"),
        ("```\nkernelpilot dumpir k.py\n```", "unknown command 'kernelpilot dumpir'"),
        ("`kernelpilot-mcp --https`", "'kernelpilot-mcp' has no option --https"),
        ("`mcp__kernelpilot__vgpr_pressure`", "MCP tool 'vgpr_pressure' does not exist"),
        ("`kernelpilot vgpr-pressure k.s --diff a.s b.s --topk 3`", "'kernelpilot vgpr-pressure' has no option --topk"),
        ("See `examples/triton/no_such.py`.", "path examples/triton/no_such.py does not exist"),
        ("Run `${CLAUDE_SKILL_DIR}/scripts/x.py`.", "${CLAUDE_SKILL_DIR}/scripts/x.py does not exist"),
        ("`tools.dump_ir.dump_everything`", "tools.dump_ir defines no 'dump_everything'"),
        ("See [the table](references/arch.md).", "link references/arch.md does not exist"),
        ("line\n" * 500, "body is 501 lines"),
    ],
)
def test_reference_problems_are_named(tmp_path, body, expected):
    got = messages(write_skill(tmp_path, "x", "name: x\ndescription: d", body))
    assert any(m.startswith(expected) for m in got), got


def test_prose_mentions_of_kernelpilot_are_not_commands(tmp_path):
    body = "kernelpilot caches results. `pip install kernelpilot` and `kernelpilot <command> --help` are fine.\n"
    assert messages(write_skill(tmp_path, "x", "name: x\ndescription: d", body)) == []


def test_frontmatter_split_keeps_the_body():
    meta, body = split_frontmatter("---\nname: a\ndescription: b\n---\n# Title\ntext\n")
    assert meta == {"name": "a", "description": "b"} and body == "# Title\ntext\n"


def test_command_line_gate_exits_nonzero_on_problems(tmp_path, capsys):
    write_skill(tmp_path, "x", "name: y\ndescription: d")
    assert skills_check.main([str(tmp_path)]) == 1
    assert "x/SKILL.md:1: name 'y' differs from its folder 'x'" in capsys.readouterr().out
