"""Fixtures of the fault-injection tests: a private cache, and an MCP project with a directory of secrets beside it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def private_cache(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "kp-cache"
    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(root))
    return root


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An MCP project directory, and beside it (outside every root) a directory holding secrets."""
    proj, outside = tmp_path / "proj", tmp_path / "outside"
    proj.mkdir()
    outside.mkdir()
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(proj))
    monkeypatch.delenv("KERNELPILOT_ALLOWED_ROOTS", raising=False)
    monkeypatch.setenv("KERNELPILOT_MCP_HEARTBEAT_S", "0.2")
    return proj, outside


@pytest.fixture
def anyio_backend():
    return "asyncio"
