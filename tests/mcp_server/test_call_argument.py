"""The `call` argument of the compiling MCP tools: the user's kernel file as it is, its host function as the entry."""

from __future__ import annotations

import pytest
from mcp import Client

from mcp_server.server import mcp

pytestmark = [pytest.mark.anyio]

GEMV = "tests/data/call/w8a16.py"  # a Triton kernel + host function w8a16_gemv, no kernelpilot_entry()
CALL = "w8a16_gemv(a=bf16[64], w=int8[64,64], scale=fp32[64])"


async def tool(name: str, args: dict):
    async with Client(mcp) as c:
        return await c.call_tool(name, args)


@pytest.mark.slow
async def test_dump_ir_tool_compiles_the_host_functions_launch():
    r = await tool("dump-ir", {"source": GEMV, "arch": "gfx942", "call": CALL, "wait_seconds": 300})
    assert not r.is_error, r.content[0].text
    (k,) = r.structured_content["report"]["kernels"]
    # 64 columns / 32 per program: the launch w8a16_gemv makes, recorded as a call's launch
    assert k["name"] == "w8a16_gemv_kernel" and k["launch"]["source"] == "call" and k["launch"]["grid"] == [2]


async def test_a_bad_call_is_an_error_with_a_hint_naming_the_options():
    r = await tool("dump-ir", {"source": GEMV, "arch": "gfx942", "call": "w8a16_gemv(a=bf16[64], w=int4[64,64])"})
    assert r.is_error
    text = r.content[0].text
    assert "call 'w8a16_gemv(a=bf16[64], w=int4[64,64])': unknown dtype 'int4' for w" in text
    assert "hint: dtypes: bf16 fp16 fp32" in text


async def test_every_compiling_tool_takes_call():
    async with Client(mcp) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    for name in ("dump-ir", "check", "predict", "prefetch-data-load"):
        assert (
            "'FN(NAME=DTYPE[SHAPE], ..., NAME=VALUE)'" in tools[name].input_schema["properties"]["call"]["description"]
        )
