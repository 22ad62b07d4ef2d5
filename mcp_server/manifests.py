"""Every agent's plugin/extension manifest and MCP config, generated from one description of the server.

``python -m mcp_server.manifests --write`` rewrites them; ``--check`` exits 1 naming any file that is out of sync
(the tests run it). Name, version, description and license come from pyproject.toml.
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SERVER = "kernelpilot"
COMMAND = "kernelpilot-mcp"  # the [project.scripts] entry point: mcp_server.server:main
AUTHOR = {"name": "kernelpilot contributors"}
KEYWORDS = ["gpu", "kernel", "rocm", "amdgpu", "cuda", "triton", "flydsl", "profiling", "mcp"]
# Hosts without a project-dir variable of their own get the workspace folder this way.
WORKSPACE_ENV = {"KERNELPILOT_PROJECT_DIR": "${workspaceFolder}"}


def _project() -> dict:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]


def manifests() -> dict[str, dict]:
    """Relative path → JSON content of every manifest."""
    p = _project()
    name, version, description = p["name"], p["version"], p["description"]
    license_ = p["license"]["text"] if isinstance(p.get("license"), dict) else p.get("license", "")
    stdio = {"command": COMMAND, "args": []}
    return {
        # Claude Code: plugin + marketplace (skills/ and .mcp.json are picked up from the plugin root).
        ".claude-plugin/plugin.json": {
            "name": name,
            "version": version,
            "description": description,
            "author": AUTHOR,
            "license": license_,
            "keywords": KEYWORDS,
        },
        ".claude-plugin/marketplace.json": {
            "name": name,
            "owner": AUTHOR,
            "plugins": [
                {
                    "name": name,
                    "source": "./",
                    "description": description,
                    "version": version,
                    "category": "development",
                    "keywords": KEYWORDS,
                }
            ],
        },
        # Claude Code (plugin and project scope) and Codex plugins read this one.
        ".mcp.json": {"mcpServers": {SERVER: stdio}},
        ".codex-plugin/plugin.json": {
            "name": name,
            "version": version,
            "description": description,
            "author": AUTHOR,
            "license": license_,
            "keywords": KEYWORDS,
            "skills": "./skills/",
            "mcpServers": "./.mcp.json",
            "interface": {"displayName": name, "shortDescription": description, "category": "Coding"},
        },
        ".agents/plugins/marketplace.json": {
            "name": name,
            "interface": {"displayName": name},
            "plugins": [
                {
                    "name": name,
                    "source": {"source": "local", "path": "./"},
                    "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                    "category": "Coding",
                }
            ],
        },
        # Gemini CLI: the default tool timeout is 10 min; say so explicitly, profiles can be long.
        "gemini-extension.json": {
            "name": name,
            "version": version,
            "description": description,
            "mcpServers": {SERVER: {**stdio, "timeout": 600_000}},
        },
        ".cursor/mcp.json": {"mcpServers": {SERVER: {**stdio, "env": WORKSPACE_ENV}}},
        ".vscode/mcp.json": {"servers": {SERVER: {"type": "stdio", **stdio, "env": WORKSPACE_ENV}}},
    }


def render(content: dict) -> str:
    return json.dumps(content, indent=2) + "\n"


def out_of_sync(root: Path = REPO_ROOT) -> list[str]:
    return [
        rel
        for rel, content in manifests().items()
        if not (root / rel).exists() or (root / rel).read_text() != render(content)
    ]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--write"]:
        for rel, content in manifests().items():
            (REPO_ROOT / rel).parent.mkdir(parents=True, exist_ok=True)
            (REPO_ROOT / rel).write_text(render(content))
        return 0
    if args == ["--check"]:
        stale = out_of_sync()
        for rel in stale:
            print(f"{rel} is out of sync: run python -m mcp_server.manifests --write", file=sys.stderr)
        return 1 if stale else 0
    print("usage: python -m mcp_server.manifests --check | --write", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
