"""The check tool through the MCP server (in-process client): a job in the worker, the CheckReport back."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from mcp_server.server import mcp

pytestmark = [pytest.mark.anyio]
EX = "examples/prefetch/flydsl_mfma/"


async def call(args: dict):
    async with Client(mcp) as c:
        return await c.call_tool("check", args)


@pytest.mark.slow
async def test_check_tool_passes_the_prefetch_pair_and_fails_the_hoisted_rewrite():
    good = await call({"before": EX + "baseline.py", "after": EX + "prefetched.py", "shapes": [{"k_tiles": 2}],
                       "wait_seconds": 300})  # fmt: skip
    assert not good.is_error, good.content[0].text
    out = good.structured_content
    assert out["status"] == "done" and out["report"]["verdict"] == "same"
    assert len(json.dumps(out)) < 32_000
    bad = await call({"before": EX + "baseline.py", "after": EX + "hoisted_wrong.py", "shapes": [{"k_tiles": 3}],
                      "wait_seconds": 300})  # fmt: skip
    rep = bad.structured_content["report"]
    assert rep["verdict"] == "different" and rep["cases"][0]["buffers"][0]["mismatches"] == 1024


async def test_check_tool_without_files_is_an_error_with_a_hint():
    r = await call({})
    assert r.is_error and "give before and after" in r.content[0].text and "hint:" in r.content[0].text


@pytest.mark.slow
async def test_check_tool_takes_sm_90_for_a_triton_file_and_says_the_ir_ran_for_gfx942():
    src = "tests/data/check/triton_host_out.py"
    r = await call({"before": src, "after": src, "arch": "sm_90", "call": "scale(x=fp32[300])", "wait_seconds": 300})
    assert not r.is_error, r.content[0].text
    rep = r.structured_content["report"]
    assert rep["verdict"] == "same" and rep["arch"] == "gfx942"
    assert rep["target_note"].startswith("Triton kernels are checked by the llvm engine whatever their target: asked")
