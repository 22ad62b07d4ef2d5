"""The schedule tool through the MCP server, on the shared fixtures."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from mcp_server.server import mcp
from tests.mcp_server.conftest import FIXTURES, needs_fixtures

pytestmark = [pytest.mark.anyio, needs_fixtures()]
BUDGET_CHARS = 32_000
SPILL_ISA = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"


async def test_schedule_returns_the_clusters_within_budget():
    async with Client(mcp) as c:
        r = await c.call_tool("schedule", {"isa": str(SPILL_ISA)})
    assert not r.is_error, r.content[0].text
    out = r.structured_content
    assert len(json.dumps(out)) < BUDGET_CHARS
    rep = out["report"]
    # HipKittens' loop is cut at its s_barriers and sched_barrier markers; the hot loop is .LBB0_4
    assert rep["hot_loop"] == ".LBB0_4" and rep["split_at"] == ["s_barrier", "sched_barrier"]
    assert any(cl["region"] == "loop" and cl["counts"].get("mfma") for cl in rep["clusters"])
    assert any("trace=" in s for s in out["next_steps"])


async def test_schedule_refuses_a_kernel_source():
    async with Client(mcp) as c:
        r = await c.call_tool("schedule", {"isa": "examples/triton/vector_add.py"})
    assert r.is_error and "dump-ir" in r.content[0].text
