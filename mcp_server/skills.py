"""Reading ``skills/<name>/SKILL.md``: the YAML frontmatter and the body (the playbook).

Shared by the server (one MCP prompt per skill) and the skills gate (``skills_check``), which checks the server:
living here, neither imports the other for it.
"""

from __future__ import annotations

import yaml


def split_frontmatter(text: str) -> tuple[object, str]:
    """``(frontmatter, body)``; frontmatter is None when the file does not start with a ``---`` block."""
    if not text.startswith("---"):
        return None, text
    end = text.find("\n---", 3)
    if end < 0:
        return None, text
    meta = yaml.safe_load(text[3:end]) or {}
    body = text[end + 4 :].split("\n", 1)[1] if "\n" in text[end + 4 :] else ""
    return meta, body
