"""Shared set-up for the MCP server tests: a private cache, the repo as project, the shared fixtures allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_server.jobs import HEARTBEAT_ENV

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO.parent / "shared" / "fixtures"
SLOW_KERNEL = Path(__file__).resolve().parent / "data" / "slow_vector_add.py"


@pytest.fixture(scope="session")
def mcp_cache_dir(tmp_path_factory):
    """One private cache for the MCP tests, so a dump compiled by one test is a cache hit in the next."""
    return tmp_path_factory.mktemp("kp-cache")


@pytest.fixture(autouse=True)
def mcp_env(monkeypatch, mcp_cache_dir):
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(mcp_cache_dir))
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(REPO))
    monkeypatch.setenv("KERNELPILOT_ALLOWED_ROOTS", str(FIXTURES))
    monkeypatch.setenv(HEARTBEAT_ENV, "0.2")
    monkeypatch.setenv("KERNELPILOT_ALLOW_COMMANDS", "1")  # command mode is opt-in; tests of the refusal unset it


@pytest.fixture
def anyio_backend():
    return "asyncio"


def needs_fixtures():
    return pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"shared fixtures not found at {FIXTURES}")
