"""Shared set-up for the MCP server tests: a private cache, the repo as project, the shared fixtures allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_server.jobs import HEARTBEAT_ENV

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO.parent / "shared" / "fixtures"
SLOW_KERNEL = Path(__file__).resolve().parent / "data" / "slow_vector_add.py"


@pytest.fixture(scope="session", autouse=True)
def mcp_env(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path_factory.mktemp("kp-cache")))
        mp.setenv("KERNELPILOT_PROJECT_DIR", str(REPO))
        mp.setenv("KERNELPILOT_ALLOWED_ROOTS", str(FIXTURES))
        mp.setenv(HEARTBEAT_ENV, "0.2")
        yield


@pytest.fixture
def anyio_backend():
    return "asyncio"


def needs_fixtures():
    return pytest.mark.skipif(not FIXTURES.is_dir(), reason=f"shared fixtures not found at {FIXTURES}")
