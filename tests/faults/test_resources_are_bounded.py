"""Unbounded input stays bounded: a kernel printing 200 MB, a 200 MB artifact read a line at a time, FIFOs and
devices refused, a backtracking pattern stopped within its budget, concurrent MCP jobs capped."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcp_server import artifacts, jobs
from mcp_server.server import mcp
from tests.faults.helpers import (
    call,
    error_text,
    maxrss_mb,
    triton_kernel,
)
from tests.mcp_server.test_server import wait_gone
from tools.cli import main
from tools.dump_ir import dump_ir


def test_kernel_printing_200mb_is_capped_in_memory_log_and_cache(tmp_path, private_cache):
    kernel = triton_kernel(
        tmp_path / "k.py", prelude="chunk = 'x' * 1023 + '\\n'\nfor _ in range(200 * 1024):\n    print(chunk, end='')\n"
    )
    before = maxrss_mb()
    result = dump_ir(kernel, "gfx942", use_cache=False, timeout=300)
    assert maxrss_mb() - before < 100  # 200 MB went through the pipe; at most ~1 MiB was kept
    log = Path(result.log).read_text()
    assert "bytes of output left out of 209715200" in log
    entry_bytes = sum(p.stat().st_size for p in Path(result.out_dir).rglob("*") if p.is_file())
    assert entry_bytes < 4 * 1024 * 1024


@pytest.mark.anyio
async def test_read_artifact_limit_is_honoured_while_reading(project):
    proj, _ = project
    big = proj / "big.txt"
    with open(big, "w") as f:
        for _ in range(200):
            f.write(("y" * 1023 + "\n") * 1024)
    before = maxrss_mb()
    r = await call("read-artifact", {"path": "big.txt", "limit": 1})
    assert maxrss_mb() - before < 50  # the old reader held the whole 200 MB file (and its lines) in memory
    page = r.structured_content
    assert page["lines"] == 1 and page["total_lines"] == 200 * 1024 and page["next_offset"] == 1


@pytest.mark.anyio
async def test_fifo_and_devices_are_refused(project, monkeypatch):
    proj, _ = project
    os.mkfifo(proj / "pipe")
    with anyio.fail_after(10):  # a reader that opens a FIFO blocks until a writer comes: never
        text = error_text(await call("read-artifact", {"path": "pipe"}))
    assert "is a FIFO, not a regular file" in text
    monkeypatch.setenv("KERNELPILOT_ALLOWED_ROOTS", "/dev")
    text = error_text(await call("read-artifact", {"path": "/dev/zero"}))
    assert "is a device or socket, not a regular file" in text


@pytest.mark.parametrize("tool", ["vgpr-pressure", "prefetch-data-load", "dump-ir"])
def test_dev_zero_as_cli_input_is_refused_not_read(tool, capsys):
    argv = [tool, "/dev/zero"] + (["--arch", "gfx942"] if tool == "dump-ir" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "/dev/zero is a device or socket, not a regular file" in err and "hint:" in err


@pytest.mark.anyio
async def test_backtracking_pattern_is_stopped_within_its_budget(project, monkeypatch):
    proj, _ = project
    monkeypatch.setenv(artifacts.PATTERN_TIMEOUT_ENV, "1")
    (proj / "a.txt").write_text("a" * 40 + "b\n")
    t0 = time.monotonic()
    text = error_text(await call("read-artifact", {"path": "a.txt", "pattern": "(a+)+$"}))
    assert "ran longer than 1 s" in text and time.monotonic() - t0 < 10
    # a plain pattern still works, with line numbers (a budget a loaded machine can start Python within)
    monkeypatch.setenv(artifacts.PATTERN_TIMEOUT_ENV, "60")
    (proj / "b.txt").write_text("one\ntwo\nthree\n")
    r = await call("read-artifact", {"path": "b.txt", "pattern": "^t"})
    assert r.structured_content["text"] == "1: two\n2: three"


@pytest.mark.anyio
async def test_concurrent_mcp_jobs_are_capped(project, monkeypatch, tmp_path):
    proj, _ = project
    monkeypatch.setenv(jobs.MAX_RUNNING_ENV, "1")
    pid_file = tmp_path / "pid"
    triton_kernel(proj / "k.py", entry=f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)")
    async with Client(mcp) as c:
        first = await c.call_tool("dump-ir", {"source": "k.py", "use_cache": False, "wait_seconds": 0})
        assert first.structured_content["status"] == "running"
        second = await c.call_tool("dump-ir", {"source": "k.py", "use_cache": False, "wait_seconds": 0})
        text = error_text(second)
        assert "1 jobs are already running on this server" in text and first.structured_content["job_id"] in text
        job = jobs.JOBS[first.structured_content["job_id"]]
        await jobs.kill(job, "cancelled")
    assert wait_gone(job.pid)
    if pid_file.exists():
        assert wait_gone(int(pid_file.read_text()))
