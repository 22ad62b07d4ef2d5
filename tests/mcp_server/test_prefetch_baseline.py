"""prefetch-data-load's baseline argument through the MCP server, on the shared real-tool fixture."""

from __future__ import annotations

import pytest
from mcp import Client

from mcp_server.server import mcp
from tests.mcp_server.conftest import FIXTURES, needs_fixtures

pytestmark = [pytest.mark.anyio, needs_fixtures()]
SPILL_ISA = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"


async def test_prefetch_data_load_with_a_baseline_reports_the_comparison():
    async with Client(mcp) as c:
        r = await c.call_tool("prefetch-data-load", {"source": str(SPILL_ISA), "baseline": str(SPILL_ISA)})
    assert not r.is_error, r.content[0].text
    rep = r.structured_content["report"]
    # the same ISA on both sides: 256 VGPRs and 2 waves/SIMD each, nothing got worse
    cmp = rep["baseline"]
    assert (cmp["registers_before"], cmp["registers_after"], cmp["occupancy_after"]) == (256, 256, 2)
    assert cmp["regressions"] == [] and rep["summary"].endswith(f"{SPILL_ISA.name}: no regression")


async def test_prefetch_data_load_rejects_an_unreadable_git_ref():
    async with Client(mcp) as c:
        r = await c.call_tool("prefetch-data-load", {"source": str(SPILL_ISA), "baseline": "HEAD:no/such/file.s"})
    assert r.is_error and "'no/such/file.s' does not exist at HEAD" in r.content[0].text
