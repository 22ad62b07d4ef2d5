"""The predict tool through the MCP server (in-process client): a job in the worker, the PredictResult back."""

from __future__ import annotations

import json
import time

import pytest
from mcp import Client

from mcp_server.server import mcp
from tests.test_predict_variant_files import SECRET, unpack_variant

pytestmark = [pytest.mark.anyio]


async def call(args: dict):
    async with Client(mcp) as c:
        return await c.call_tool("predict", args)


@pytest.mark.slow
async def test_predict_tool_returns_each_launch_of_a_call_with_next_steps():
    r = await call({"source": "tests/data/predict/split_sum_call.py", "arch": "sm_90", "wait_seconds": 300})
    assert not r.is_error, r.content[0].text
    out = r.structured_content
    assert out["status"] == "done" and len(json.dumps(out)) < 32_000
    rep = out["report"]
    assert [lp["name"] for lp in rep["launches"]] == ["partial_sum_kernel", "merge_kernel"]
    # the band is the prediction's own (its kind's residuals in h100.yaml, or the device-wide fallback, `assumed`, when
    # its kind has too few): the summary prints it and the next steps say what it allows
    b = rep["band"]
    assert rep["device"] == "h100" and b["status"] in ("validated", "assumed") and 0 < b["low"] < 1 < b["high"]
    assert out["summary"].startswith(f"{rep['predicted_us']:.1f} us predicted on h100 (2 launches)")
    assert f"band {b['status']}" in out["summary"] and f"x{b['low']:g}-x{b['high']:g}" in out["summary"]
    if b["status"] == "validated":
        assert any(s.startswith(f"band: the measured time lies within x{b['low']:g}-x{b['high']:g}") for s in
                   out["next_steps"])  # fmt: skip
    else:
        assert any(s.startswith("the band is assumed: the prediction rests on") for s in out["next_steps"])


async def test_predict_tool_without_source_is_an_error_with_a_hint():
    r = await call({})
    assert r.is_error and "give source" in r.content[0].text and "hint:" in r.content[0].text


async def test_predict_tool_is_listed_as_running_code():
    async with Client(mcp) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert tools["predict"].annotations.read_only_hint is False
    assert list(tools["predict"].output_schema["properties"])[0] == "summary"


async def test_predict_tool_on_a_forged_variant_folder_reads_nothing_outside_and_quotes_nothing(tmp_path, monkeypatch):
    folder, outside = unpack_variant(tmp_path)
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(folder.parents[1]))  # the folder is inside the roots
    rel = json.loads((folder / "meta.json").read_text())["launches"][0]["files"]["json"]
    (folder / rel).unlink()
    (folder / rel).symlink_to(outside / "secret.json")  # its target arch was quoted back: 'sm_TOPSECRET-api-...'
    r = await call({"source": str(folder), "wait_seconds": 120})
    text = r.content[0].text
    assert r.is_error and "launches[0].files.json" in text and "leads outside the folder" in text, text
    assert SECRET not in text and "hint: " in text


# ---------------------------------------------------------------------------------------------- hints in MCP words


async def test_predict_tool_without_arch_for_a_kernel_file_names_the_arch_parameter():
    r = await call({"source": "tests/data/predict/split_sum_call.py", "wait_seconds": 120})
    text = r.content[0].text
    assert r.is_error and "error: arch is needed to compile a kernel file" in text, text
    assert "hint: e.g. the `arch` parameter" in text and "--arch" not in text


async def test_predict_tool_on_a_variant_naming_no_target_says_pass_arch(tmp_path, monkeypatch):
    folder, _ = unpack_variant(tmp_path)
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(folder.parents[1]))
    meta = json.loads((folder / "meta.json").read_text())
    del meta["launches"][0]["files"]["json"]  # Triton's metadata named the target (sm_90); without it, nothing does
    (folder / "meta.json").write_text(json.dumps(meta))
    r = await call({"source": str(folder), "wait_seconds": 120})
    text = r.content[0].text
    assert r.is_error and "no Triton metadata names the target" in text and "hint: pass arch" in text, text


async def test_predict_tool_on_a_file_of_no_known_language_names_its_frontend_parameter(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(tmp_path))
    (tmp_path / "k.py").write_text("def kernelpilot_entry(:\n")  # a syntax error: the language cannot be read
    r = await call({"source": "k.py", "arch": "sm_90", "wait_seconds": 120})
    text = r.content[0].text
    assert r.is_error and "or pass frontend" in text and "--frontend" not in text, text
    # the parameter it names exists: the same file with frontend given gets past detection to the compile
    r = await call({"source": "k.py", "arch": "sm_90", "frontend": "triton", "wait_seconds": 120})
    assert r.is_error and "pass frontend" not in r.content[0].text, r.content[0].text


@pytest.mark.slow
async def test_predict_of_three_nested_runtime_loops_finishes_within_its_timeout(tmp_path, monkeypatch):
    from tests.test_predict_bounds import NEST, THREE

    # 256 programs x 64**3 iterations: the trip evaluator walked them all (minutes) and held a job slot for
    # 2 x timeout + 60 s; now it samples them, and the job's deadline is the call's timeout + 60 s
    monkeypatch.setenv("KERNELPILOT_ALLOWED_ROOTS", str(tmp_path))
    (tmp_path / "nest3.py").write_text(NEST.replace("INNER", THREE).replace("GRID", "256"))
    t0 = time.monotonic()
    r = await call({"source": str(tmp_path / "nest3.py"), "arch": "gfx942", "timeout": 40, "wait_seconds": 100})
    assert not r.is_error, r.content[0].text
    assert r.structured_content["status"] == "done" and time.monotonic() - t0 < 40
    assert "nested runtime loops" in r.structured_content["report"]["launches"][0]["trips"]["detail"]


def _committed_kernel(tmp_path, monkeypatch):
    """tests/data/check/triton_host_out.py committed in a fresh repository under the roots, then edited (ALPHA)."""
    import subprocess

    from tests.conftest import REPO

    repo = tmp_path / "proj"
    repo.mkdir()
    kernel = repo / "kernel.py"
    kernel.write_text((REPO / "tests" / "data" / "check" / "triton_host_out.py").read_text())
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "kernel.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "kernel"], check=True)
    kernel.write_text(kernel.read_text().replace("ALPHA = 2.0", "ALPHA = 3.0"))
    monkeypatch.setenv("KERNELPILOT_PROJECT_DIR", str(repo))
    return kernel


@pytest.mark.slow
async def test_predict_tool_takes_a_git_revision_as_baseline_as_the_cli_does(tmp_path, monkeypatch):
    kernel = _committed_kernel(tmp_path, monkeypatch)
    r = await call({"source": str(kernel), "baseline": "HEAD:./kernel.py", "arch": "sm_90",
                    "call": "scale(x=fp32[65536])", "wait_seconds": 300})  # fmt: skip
    assert not r.is_error, r.content[0].text
    rep = r.structured_content["report"]
    assert rep["baseline"].endswith("kernel.py") and rep["baseline"] != str(kernel)  # the committed copy
    assert [lp["name"] for lp in rep["baseline_launches"]] == ["scale_kernel"]
    assert rep["predicted_speedup"] == pytest.approx(1.0, rel=0.05)  # the same loads and stores, another scalar


async def test_predict_tool_baseline_naming_no_revision_is_an_error_with_a_hint(tmp_path, monkeypatch):
    kernel = _committed_kernel(tmp_path, monkeypatch)
    r = await call({"source": str(kernel), "baseline": "HEAD:./no_such.py", "arch": "sm_90"})
    assert r.is_error and "no_such.py" in r.content[0].text and "hint:" in r.content[0].text


# ------------------------------------------------------------------------------------ trips as the CLI's --trips

TMA = "tests/data/sm90/tma_gemm.py"  # a tiled and a persistent TMA GEMM; the merged persistent loop's `for` on line 31


@pytest.mark.slow
async def test_predict_tool_takes_trips_line_n_as_the_cli_does():
    # the persistent kernel's merged loop runs 32 iterations per program (4 tiles x 8 K steps, tests/test_predict_hopper)
    r = await call({"source": TMA, "arch": "sm_90", "device": "h200", "trips": ["31=16"], "wait_seconds": 300})
    assert not r.is_error, r.content[0].text
    by_name = {lp["name"]: lp for lp in r.structured_content["report"]["launches"]}
    persistent, tiled = by_name["persistent"], by_name["tiled"]
    # the named loop is the persistent kernel's; the tiled kernel, which has no line 31, keeps its evidence
    assert persistent["trips"]["trips"] == 16.0 and tiled["trips"]["trips"] == 8.0
    # (its band may rest on other things, such as its 64 programs on 132 SMs, but not on a stated count)
    assert "stated by" not in tiled["trips"]["detail"]
    assert not any("stated" in why for why in tiled["band"]["rests_on"]), tiled["band"]["rests_on"]
    assert "loop 31 (line 31): 16 iterations per program stated by" in persistent["trips"]["detail"]
    assert persistent["band"]["status"] == "assumed"  # a stated count is not what the band was validated on
    # the same call through the CLI's parser: the same trips, the same time
    from tools.predict.cli import predict_file

    cli = predict_file(TMA, "sm_90", device="h200", loop_trips={"31": 16})
    assert [lp.predicted_us for lp in cli.launches] == [lp["predicted_us"] for lp in r.structured_content["report"][
        "launches"]]  # fmt: skip


async def test_predict_tool_trips_entry_that_is_no_count_is_an_error_in_mcp_words():
    r = await call({"source": TMA, "arch": "sm_90", "trips": ["31=many"], "wait_seconds": 60})
    text = r.content[0].text
    assert r.is_error and "trips entry '31=many': must be N or LINE=N with N a number" in text, text
    assert "hint: give trips as N, or a list of 'N' and 'LINE=N' entries" in text
    r = await call({"source": TMA, "arch": "sm_90", "trips": ["4", "5"], "wait_seconds": 60})
    assert r.is_error and "a second plain count" in r.content[0].text and "--trips" not in r.content[0].text


@pytest.mark.slow
async def test_predict_tool_trips_naming_no_loop_lists_the_loops_there_are():
    r = await call({"source": TMA, "arch": "sm_90", "device": "h200", "trips": ["99=4"], "wait_seconds": 300})
    text = r.content[0].text
    # a call's loops are named across its launches (the tiled kernel's K loop on line 18, the persistent one's 31)
    assert r.is_error and "no launch has a loop named '99'; the loops: tiled: 18 (depth 1, 8 iterations" in text, text
    assert "31 (depth 1, 32 iterations per program evaluated)" in text and "--trips" not in text  # (text bounded)
