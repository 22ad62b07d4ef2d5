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


TRACE = FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_trace.csv"


async def test_prefetch_verify_takes_the_launch_from_a_trace():
    args = {"source": str(SPILL_ISA), "before": str(SPILL_ISA), "trace": str(TRACE)}
    async with Client(mcp) as c:
        r = await c.call_tool("prefetch-data-load", args | {"trace_kernel": "flash_attn_func_kernel_0"})
    assert not r.is_error, r.content[0].text
    launch = r.structured_content["verify"]["after"]["launch"]
    # 131072 work-items in 256-item workgroups: 512 workgroups, as rocprofv3 recorded the launch
    assert (launch["grid"], launch["block_threads"], launch["source"]) == ([512, 1, 1], 256, "trace")


async def test_prefetch_verify_names_the_kernels_a_trace_has_when_the_name_is_wrong():
    args = {"source": str(SPILL_ISA), "before": str(SPILL_ISA), "trace": str(TRACE), "trace_kernel": "no_such_kernel"}
    async with Client(mcp) as c:
        r = await c.call_tool("prefetch-data-load", args)
    assert r.is_error and "has no dispatch of 'no_such_kernel'; it has: __amd_rocclr_copyBuffer" in r.content[0].text
