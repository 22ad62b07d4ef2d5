"""The MCP server in process (``Client(mcp)``): tool surface, real compiles, artifacts, progress, cancellation."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_server.server import mcp
from tests.mcp_server.conftest import FIXTURES, REPO, SLOW_KERNEL, needs_fixtures

pytestmark = pytest.mark.anyio
BUDGET_CHARS = 32_000  # ~8k tokens: every default result must fit comfortably in a client's 25k-token cap


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped) counts as gone
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def wait_gone(pid: int, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return False


async def test_tools_have_schemas_led_by_summary_and_honest_annotations():
    async with Client(mcp) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert {"dump-ir", "read-artifact", "doctor"} <= set(tools)
    for t in tools.values():
        assert t.description, t.name
        props = list(t.output_schema["properties"])
        assert props[0] == "summary" and "next_steps" in props, t.name
    # dump-ir imports and runs the kernel file, so it is not read-only; the readers are.
    assert tools["dump-ir"].annotations.read_only_hint is False
    assert tools["doctor"].annotations.read_only_hint and tools["doctor"].annotations.idempotent_hint
    assert tools["read-artifact"].annotations.read_only_hint
    assert tools["vgpr-pressure"].annotations.read_only_hint
    assert tools["kernel-trace"].annotations.idempotent_hint is False  # every profile is a new run
    arch_schema = json.dumps(tools["dump-ir"].input_schema["properties"]["arch"])
    assert "gfx942" in arch_schema and "sm_90" in arch_schema


@pytest.mark.slow
async def test_dump_ir_compiles_the_triton_example_and_links_every_stage():
    async with Client(mcp) as c:
        r = await c.call_tool("dump-ir", {"source": "examples/triton/vector_add.py", "arch": "gfx942"})
        assert not r.is_error, r.content
        out = r.structured_content
        assert len(json.dumps(out)) < BUDGET_CHARS
        assert out["status"] == "done" and out["report"]["frontend"] == "triton" and out["kernels_total"] == 1
        k = out["report"]["kernels"][0]
        assert k["name"] == "vector_add_kernel"
        # Triton 3.9 for gfx942, BLOCK=1024, 4 warps, example arguments (aligned pointers: 16-byte buffer loads):
        # 9 VGPRs, no AGPRs or spills, so 8 waves/SIMD.
        assert (k["resources"]["vgpr_count"], k["resources"]["agpr_count"]) == (9, 0)
        assert (k["resources"]["vgpr_spill_count"], k["resources"]["waves_per_simd"]) == (0, 8)
        assert [s["name"] for s in k["stages"]] == ["ttir", "ttgir", "llir", "amdgcn", "hsaco"]
        isa_uri = f"kernelpilot://dump/{out['dump_id']}/vector_add_kernel/amdgcn"
        assert out["links"][0]["final_isa_uri"] == isa_uri
        assert any("vgpr-pressure" in s for s in out["next_steps"])

        # The metadata line the resources were read from, found by pattern, with its line number.
        page = (await c.call_tool("read-artifact", {"uri": isa_uri, "pattern": r"\.vgpr_count:"})).structured_content
        assert page["lines"] == 1 and page["text"].endswith(".vgpr_count:     9")
        text = (await c.read_resource(isa_uri + "?limit=5")).contents[0].text
        assert "next page: " + isa_uri + "?offset=5&limit=5" in text

        again = (
            await c.call_tool("dump-ir", {"source": str(REPO / "examples/triton/vector_add.py")})
        ).structured_content
        assert again["report"]["cache_hit"] and again["dump_id"] == out["dump_id"]


@pytest.mark.slow
async def test_dump_ir_reports_progress_while_compiling(monkeypatch):
    monkeypatch.setenv("KP_TEST_SLEEP_S", "1.5")
    messages = []

    async def on_progress(progress, total, message):
        messages.append((progress, message))

    async with Client(mcp) as c:
        r = await c.call_tool(
            "dump-ir", {"source": str(SLOW_KERNEL), "use_cache": False}, progress_callback=on_progress
        )
    assert not r.is_error, r.content
    assert r.structured_content["report"]["kernels"][0]["name"] == "slow_add_kernel"
    # Heartbeats every 0.2 s during a >1.5 s compile; progress is elapsed seconds, so it only grows.
    assert len(messages) >= 5
    assert all("compiling slow_vector_add.py for gfx942" in m for _, m in messages)
    assert [p for p, _ in messages] == sorted(p for p, _ in messages)


async def test_cancelled_call_kills_the_compiler_process_tree(monkeypatch, tmp_path):
    pid_file = tmp_path / "compiler.pid"
    monkeypatch.setenv("KP_TEST_SLEEP_S", "120")
    monkeypatch.setenv("KP_TEST_PID_FILE", str(pid_file))
    messages = []

    async def on_progress(progress, total, message):
        messages.append(message)

    async with Client(mcp) as c:
        async with anyio.create_task_group() as tg:
            tg.start_soon(
                lambda: c.call_tool(
                    "dump-ir", {"source": str(SLOW_KERNEL), "use_cache": False}, progress_callback=on_progress
                )
            )
            with anyio.fail_after(60):  # until the compiler is inside the kernel's entry, sleeping
                while not pid_file.exists() or not messages:
                    await anyio.sleep(0.05)
            tg.cancel_scope.cancel()  # the client cancels the call: notifications/cancelled
    worker_pid = int(re.search(r"pid (\d+)", messages[0]).group(1))
    compiler_pid = int(pid_file.read_text())
    # The worker (our child) and the compiler it started (in its own process group) are both gone.
    assert wait_gone(worker_pid), f"worker {worker_pid} still alive"
    assert wait_gone(compiler_pid), f"compiler {compiler_pid} still alive"


@pytest.mark.slow
async def test_long_compile_returns_a_job_id_and_resumes(monkeypatch):
    monkeypatch.setenv("KP_TEST_SLEEP_S", "2")
    async with Client(mcp) as c:
        first = await c.call_tool("dump-ir", {"source": str(SLOW_KERNEL), "use_cache": False, "wait_seconds": 0.3})
        started = first.structured_content
        assert started["status"] == "running" and started["report"] is None
        assert f"job_id='{started['job_id']}'" in started["next_steps"][0]
        done = await c.call_tool("dump-ir", {"job_id": started["job_id"], "wait_seconds": 120})
    assert done.structured_content["status"] == "done"
    assert done.structured_content["report"]["kernels"][0]["name"] == "slow_add_kernel"


@pytest.mark.parametrize("source", ["/etc/passwd", "../../../etc/passwd", "examples/no_such_kernel.py"])
async def test_paths_outside_the_allowed_roots_or_missing_are_tool_errors(source):
    async with Client(mcp) as c:
        r = await c.call_tool("dump-ir", {"source": source})
    assert r.is_error
    text = r.content[0].text
    if "no_such" in source:
        assert "kernel file not found" in text and f"project directory {REPO}" in text
    else:
        assert "outside the directories this server may read" in text
        assert "hint: " in text and "KERNELPILOT_ALLOWED_ROOTS" in text


async def test_engine_errors_reach_the_model_with_their_hint():
    async with Client(mcp) as c:
        r = await c.call_tool("dump-ir", {"source": "examples/cuda/vector_add.cu", "arch": "gfx942"})
    assert r.is_error
    # Raised inside the worker process and carried back: message and hint after the SDK's prefix, not a bare
    # "Error executing tool dump-ir" (what MCP 2.x shows for an unexpected exception).
    assert r.content[0].text.startswith("Error executing tool dump-ir: error: the cuda frontend cannot target gfx942")
    assert "hint: cuda targets: sm_80" in r.content[0].text


async def test_unknown_job_id_says_what_to_do():
    async with Client(mcp) as c:
        r = await c.call_tool("dump-ir", {"job_id": "nope"})
    assert r.is_error and "call dump-ir again without job_id" in r.content[0].text


async def test_doctor_reports_tools_and_where_the_server_looks():
    async with Client(mcp) as c:
        out = (await c.call_tool("doctor", {})).structured_content
    assert re.fullmatch(r"\d+/9 tools found", out["summary"]) and len(json.dumps(out)) < BUDGET_CHARS
    assert {t["name"] for t in out["report"]["tools"]} >= {"flydsl", "triton", "rocprofv3", "ncu"}
    assert out["project_dir"] == str(REPO)
    assert str(FIXTURES.resolve()) in out["allowed_roots"]


@needs_fixtures()
async def test_read_artifact_pages_a_large_file_within_budget():
    big = FIXTURES / "rga_livereg" / "gfx942_hipkittens_gemm_vgpr_spill94.livereg_vgpr.txt"  # 431,718 bytes
    async with Client(mcp) as c:
        first = (await c.call_tool("read-artifact", {"path": str(big)})).structured_content
        assert len(json.dumps(first)) < BUDGET_CHARS
        assert first["offset"] == 0 and first["next_offset"] == first["lines"] > 0
        assert first["total_lines"] > first["lines"]
        second = await c.call_tool("read-artifact", {"path": str(big), "offset": first["next_offset"]})
        assert second.structured_content["offset"] == first["next_offset"]
        # The hipkittens ISA has exactly 94 VGPR spills recorded in its metadata.
        isa = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"
        hit = (
            await c.call_tool("read-artifact", {"path": str(isa), "pattern": r"\.vgpr_spill_count"})
        ).structured_content
        assert hit["lines"] == 1 and hit["text"].endswith(".vgpr_spill_count: 94")


async def test_read_artifact_refuses_files_outside_the_roots():
    async with Client(mcp) as c:
        r = await c.call_tool("read-artifact", {"path": "/etc/hostname"})
        bad_uri = await c.call_tool("read-artifact", {"uri": "kernelpilot://dump/../../etc/x/y"})
    assert r.is_error and "outside the directories" in r.content[0].text
    assert bad_uri.is_error


async def test_playbooks_are_prompts():
    async with Client(mcp) as c:
        names = {p.name for p in (await c.list_prompts()).prompts}
        assert "dump-ir" in names and "optimize-kernel" in names
        got = await c.get_prompt("dump-ir", {"target": "examples/triton/vector_add.py", "arch": "gfx950"})
    text = got.messages[0].content.text
    assert text.startswith(
        "Follow the kernelpilot 'dump-ir' playbook below on examples/triton/vector_add.py for gfx950"
    )
    assert "mcp__kernelpilot__dump-ir" in text


async def test_a_client_timeout_also_kills_the_compiler(monkeypatch, tmp_path):
    pid_file = tmp_path / "compiler.pid"
    monkeypatch.setenv("KP_TEST_SLEEP_S", "120")
    monkeypatch.setenv("KP_TEST_PID_FILE", str(pid_file))
    messages = []

    async def on_progress(progress, total, message):
        messages.append(message)

    async with Client(mcp) as c:
        with pytest.raises(MCPError):
            await c.call_tool(
                "dump-ir",
                {"source": str(SLOW_KERNEL), "use_cache": False},
                read_timeout_seconds=5,
                progress_callback=on_progress,
            )
    worker_pid = int(re.search(r"pid (\d+)", messages[0]).group(1))
    assert wait_gone(worker_pid), f"worker {worker_pid} still alive"
    if pid_file.exists():  # on a slow machine the timeout may come before the compiler starts
        assert wait_gone(int(pid_file.read_text())), "compiler still alive"


async def test_a_missing_artifact_resource_is_an_error_that_says_what_to_do():
    async with Client(mcp) as c:
        with pytest.raises(MCPError, match="no dump 'nope' in the cache"):
            await c.read_resource("kernelpilot://dump/nope/k/final_isa")


def test_cli_words_in_an_error_become_the_tools_parameters_and_only_those():
    from mcp_server.app import mcp_terms

    check = ["before", "after", "shapes", "max_memory_gb", "timeout"]
    # tools/check/compare.py's hint for a launch too large for the memory cap
    said = "hint: use smaller shapes (`kernelpilot check … --shape KEY=VALUE`) or raise its --max-memory"
    assert mcp_terms(said, check) == "hint: use smaller shapes (the `shapes` parameter) or raise its max_memory_gb"
    assert mcp_terms("hint: raise `kernelpilot check --timeout`", check) == "hint: raise the `timeout` parameter"
    # an option the tool has no parameter for stays the CLI's, and so do other programs' options
    assert (
        mcp_terms("hint: omit --kernel to see the kernels there", check)
        == "hint: omit --kernel to see the kernels there"
    )
    assert mcp_terms("hint: use ncu --csv --page details", check) == "hint: use ncu --csv --page details"
    # kernel-trace's --kernel REGEX is its kernel_regex parameter
    assert (
        mcp_terms("(--kernel REGEX, --launch-count)", ["kernel_regex", "launch_count"])
        == "(kernel_regex REGEX, launch_count)"
    )
