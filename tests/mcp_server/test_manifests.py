"""The agents' manifests are generated from one source and agree with each other and with pyproject.toml."""

from __future__ import annotations

import json
import tomllib

from mcp_server import manifests
from tests.mcp_server.conftest import REPO


def load(rel: str) -> dict:
    return json.loads((REPO / rel).read_text())


def test_manifests_are_in_sync_with_their_generator():
    assert manifests.main(["--check"]) == 0, manifests.out_of_sync()


def test_every_host_launches_the_same_entry_point():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["kernelpilot-mcp"] == "mcp_server.server:main"
    for rel, key in [(".mcp.json", "mcpServers"), (".cursor/mcp.json", "mcpServers"), (".vscode/mcp.json", "servers")]:
        assert load(rel)[key]["kernelpilot"]["command"] == "kernelpilot-mcp", rel
    assert load(".vscode/mcp.json")["servers"]["kernelpilot"]["type"] == "stdio"  # VS Code requires it
    assert load("gemini-extension.json")["mcpServers"]["kernelpilot"]["command"] == "kernelpilot-mcp"


def test_plugins_and_marketplaces_name_the_same_plugin_and_version():
    claude = load(".claude-plugin/plugin.json")
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert claude["name"] == "kernelpilot" and claude["version"] == version
    assert load(".claude-plugin/marketplace.json")["plugins"][0]["name"] == claude["name"]
    assert load(".claude-plugin/marketplace.json")["plugins"][0]["source"] == "./"
    codex = load(".codex-plugin/plugin.json")
    assert (codex["name"], codex["version"], codex["skills"]) == (claude["name"], version, "./skills/")
    assert load(".agents/plugins/marketplace.json")["plugins"][0]["source"] == {"source": "local", "path": "./"}
    assert load("gemini-extension.json")["version"] == version
