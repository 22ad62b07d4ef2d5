"""One MCP prompt per skill (``skills/<name>/SKILL.md``), so hosts without Agent Skills still get the playbooks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver.prompts import Prompt
from pydantic import Field

from mcp_server.app import mcp
from mcp_server.skills import split_frontmatter

SKILLS_DIR = Path(__file__).resolve().parents[1] / "skills"


# ---------------------------------------------------------------------------------------------------- prompts


def _skill_prompt(skill_md: Path, name: str, description: str) -> Prompt:
    def playbook(
        target: Annotated[str, Field(description="kernel file, ISA file, trace, or command to work on")],
        arch: Annotated[str, Field(description="target architecture, e.g. gfx942")] = "",
    ) -> str:
        _, body = split_frontmatter(skill_md.read_text())
        on = f" for {arch}" if arch else ""
        return f"Follow the kernelpilot '{name}' playbook below on {target}{on}.\n\n{body.strip()}\n"

    return Prompt.from_function(playbook, name=name, title=name, description=description)


def _register_prompts() -> None:
    """One MCP prompt per skill, so hosts without Agent Skills still get the playbooks (as slash commands)."""
    for skill_md in sorted(SKILLS_DIR.glob("*/SKILL.md")):
        meta, _ = split_frontmatter(skill_md.read_text())
        if isinstance(meta, dict) and meta.get("name") and meta.get("description"):
            mcp.add_prompt(_skill_prompt(skill_md, str(meta["name"]), str(meta["description"])))


_register_prompts()
