"""vgpr-pressure, prefetch-data-load and kernel-trace through the MCP server, on the shared real-tool fixtures."""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest
from mcp import Client

from mcp_server.server import mcp
from tests.mcp_server.conftest import FIXTURES, needs_fixtures

pytestmark = [pytest.mark.anyio, needs_fixtures()]
BUDGET_CHARS = 32_000
SPILL_ISA = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"


async def call(name: str, args: dict) -> dict:
    if name == "prefetch-data-load":  # compiles in a job: wait for it, not the 45 s default (a loaded machine)
        args = {"wait_seconds": 300, **args}
    async with Client(mcp) as c:
        r = await c.call_tool(name, args)
    assert not r.is_error, r.content[0].text
    assert len(json.dumps(r.structured_content)) < BUDGET_CHARS, f"{name} result over budget"
    return r.structured_content


async def test_vgpr_pressure_finds_the_spills_and_links_per_instruction_liveness():
    out = await call("vgpr-pressure", {"isa": str(SPILL_ISA)})
    rep = out["report"]["reports"][0]
    metrics = {m["name"]: m["value"] for m in rep["metrics"]}
    # The metadata says 94 VGPR spills, 256 VGPRs, 2 waves/SIMD; shae reports a 204-VGPR live maximum.
    assert (metrics["vgpr_spill_count"], metrics["vgpr_count"], metrics["waves_per_simd"]) == (94, 256, 2)
    assert rep["critical_points"][0]["live_vgprs"] == 204
    assert rep["per_instruction"] is None and out["per_instruction_uri"].endswith("/liveness.tsv")
    async with Client(mcp) as c:
        page = await c.call_tool("read-artifact", {"uri": out["per_instruction_uri"], "pattern": r"\t204\t"})
    assert page.structured_content["lines"] >= 1 and "v_mfma" in page.structured_content["text"]


async def test_vgpr_pressure_diff_of_a_file_with_itself_is_not_a_regression():
    out = await call("vgpr-pressure", {"isa": str(SPILL_ISA), "before": str(SPILL_ISA)})
    assert out["diff"]["regression"] is False
    assert out["next_steps"][0] == "no regression vs before"


async def test_prefetch_data_load_flags_the_exposed_hot_loop():
    out = await call("prefetch-data-load", {"source": str(SPILL_ISA)})
    rep = out["report"]
    hot = next(lp for lp in rep["loops"] if lp["is_hot"])
    # 8 loads of 128 B/lane per iteration, waited on in the same iteration.
    assert (hot["header"], hot["verdict"], hot["loads_total"]) == (".LBB0_4", "exposed-latency", 8)
    assert any("before=" in s for s in out["next_steps"])


@pytest.mark.slow
async def test_prefetch_data_load_compiles_a_kernel_file_in_a_child():
    out = await call("prefetch-data-load", {"source": "examples/triton/vector_add.py", "arch": "gfx942"})
    assert out["status"] == "done"
    assert out["summary"].startswith("vector_add_kernel: no loop in this kernel, so there is no iteration to prefetch")


async def test_kernel_trace_reads_a_rocprofv3_kernel_trace():
    out = await call("kernel-trace", {"trace": str(FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_trace.csv")})
    rep = out["report"]
    assert (rep["dispatch_count"], rep["kernel_count"]) == (45, 19)
    assert rep["top_kernels_total"] == 19 and len(rep["top_kernels"]) == 10 and rep["top_kernels_truncated"]


async def test_kernel_trace_reads_a_rocpd_database():
    out = await call("kernel-trace", {"trace": str(FIXTURES / "rocprofv3" / "gfx942_ck_bmm_results.db"), "top_k": 3})
    assert (out["report"]["dispatch_count"], out["report"]["kernel_count"]) == (151, 2)


@pytest.mark.skipif(bool(shutil.which("rocprofv3") or shutil.which("ncu")), reason="a profiler is installed")
async def test_kernel_trace_without_a_profiler_says_what_to_install():
    async with Client(mcp) as c:
        r = await c.call_tool("kernel-trace", {"command": ["true"]})
    assert r.is_error
    text = r.content[0].text
    assert "neither rocprofv3 nor ncu is on PATH on this machine" in text and "hint: AMD: install" in text


@pytest.mark.slow
async def test_prefetch_verify_catches_the_hoisted_rewrite_through_a_child():
    ex = "examples/prefetch/flydsl_mfma/"
    out = await call(
        "prefetch-data-load", {"source": ex + "hoisted_wrong.py", "before": ex + "baseline.py", "arch": "gfx942"}
    )
    assert out["summary"].startswith("FAIL") and out["verify"]["ok"] is False
    # It fails on its outcome (check on the CPU: every element of C differs), named first; the shape
    # warning that explains it follows: LLVM hoisted the loop-invariant loads out of the loop.
    steps = out["next_steps"]
    assert steps[0].startswith("fix: outputs-correct: ") and "1024 element(s) differ in C" in steps[0]
    assert not any(s.startswith("fix: loads-stay-in-loop") for s in steps)  # shape never fails a verdict
    hoisted = next(s for s in steps if s.startswith("look at: loads-stay-in-loop: "))
    assert "hoisted out as loop-invariant" in hoisted


FAKE_ROCPROFV3 = """#!{python}
# Stands in for rocprofv3 on a slow GPU host: waits, then leaves a real kernel trace where -d points.
import shutil, sys, time
time.sleep({sleep})
out = sys.argv[sys.argv.index("-d") + 1]
shutil.copy({fixture!r}, out + "/kp_kernel_trace.csv")
"""


async def test_a_slow_profile_returns_a_job_id_then_the_report(monkeypatch, tmp_path):
    fixture = str(FIXTURES / "rocprofv3" / "gfx950_flash_attn_kernel_trace.csv")
    fake = tmp_path / "bin" / "rocprofv3"
    fake.parent.mkdir()
    fake.write_text(FAKE_ROCPROFV3.format(python=sys.executable, sleep=1.5, fixture=fixture))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(tmp_path))  # profiler outputs go under the project
    async with Client(mcp) as c:
        first = await c.call_tool("kernel-trace", {"command": ["true"], "wait_seconds": 0.2})
        assert first.structured_content["status"] == "running", first.content
        job_id = first.structured_content["job_id"]
        done = await c.call_tool("kernel-trace", {"job_id": job_id, "wait_seconds": 60})
    assert not done.is_error, done.content[0].text
    rep = done.structured_content["report"]
    assert (rep["dispatch_count"], rep["kernel_count"]) == (45, 19)
    assert rep["path"].startswith(str(tmp_path / "kernelpilot-out" / "trace-"))


async def test_prefetch_verify_sets_an_occupancy_budget_only_when_given():
    # rowdot and its prefetch as compiled for gfx942 (kernelpilot dump-ir of tests/data/triton_occupancy/*_full_grid.py):
    # 4 -> 3 waves/SIMD, limited by VGPRs. The default used to be allow_occupancy_drop=0, a budget the user never set,
    # so the drop failed the verify; unset, it is a warning that explains the time (no grid in an ISA file).
    occupancy = "tests/data/triton_occupancy/"
    pair = {
        "source": occupancy + "rowdot_prefetched_full_grid.gfx942.s",
        "before": occupancy + "rowdot_full_grid.gfx942.s",
    }
    out = await call("prefetch-data-load", pair)
    occ = next(c for c in out["verify"]["checks"] if c["name"] == "occupancy")
    assert occ["ok"] and occ["severity"] == "warning" and occ["detail"].startswith("occupancy 4 → 3 waves/SIMD")
    assert out["verify"]["verdict"] != "fail" and not any(s.startswith("fix: occupancy") for s in out["next_steps"])
    out = await call("prefetch-data-load", {**pair, "allow_occupancy_drop": 0})
    occ = next(c for c in out["verify"]["checks"] if c["name"] == "occupancy")
    assert not occ["ok"] and occ["detail"].endswith("more than the 0 waves/SIMD your budget allows")
    assert out["verify"]["verdict"] == "fail" and "fix: occupancy: " + occ["detail"] in out["next_steps"]
