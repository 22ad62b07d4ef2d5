"""What the fault-injection tests share: a real Triton kernel file whose import or entry misbehaves (forks, sleeps,
prints, crashes), the real CLI in a child interpreter, and the MCP server called in process."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from mcp import Client

from mcp_server.server import mcp
from tests.conftest import FIXTURES, REPO
from tests.mcp_server.test_server import pid_alive

PY = sys.executable
GEMM_ISA = FIXTURES / "amdgcn_isa" / "gfx942_hipcc_batched_gemm.s"
SPILL_ISA = FIXTURES / "amdgcn_isa" / "gfx942_hipkittens_gemm_vgpr_spill94.s"
SECRET = "kp-secret-3b1f: this line lives outside the allowed roots"
TRITON_KERNEL = """
import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def kernelpilot_entry():
    ENTRY_BODY
    return {
        "kernel": add_one,
        "signature": {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        "constexprs": {"BLOCK": 256},
    }
"""


def triton_kernel(path: Path, *, prelude: str = "", entry: str = "pass") -> Path:
    """A real Triton kernel file; ``prelude`` runs at import, ``entry`` at the start of kernelpilot_entry()."""
    body = TRITON_KERNEL.replace("ENTRY_BODY", entry)
    path.write_text("import os, sys, time, signal\n" + textwrap.dedent(prelude) + body)
    return path


def forked_sleeper(pid_file: Path, *, close_pipes: bool = False) -> str:
    """Kernel-file prelude: fork a child that writes its pid and sleeps ~forever, holding (or closing) the output
    pipes; the parent goes on only once the pid is on disk, so the test always knows whom to look for."""
    close = "os.close(1); os.close(2)" if close_pipes else "pass"
    return f"""
    if os.fork() == 0:
        {close}
        open({str(pid_file)!r} + ".tmp", "w").write(str(os.getpid()))
        os.rename({str(pid_file)!r} + ".tmp", {str(pid_file)!r})
        time.sleep(100000)
    _end = time.time() + 30
    while not os.path.exists({str(pid_file)!r}) and time.time() < _end:
        time.sleep(0.01)
    """


def wait_for(predicate, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"condition not met within {seconds} s")


def kill_if_alive(pid: int) -> None:
    """Test hygiene only: a failing assertion must not leave our own sleeper behind."""
    if pid_alive(pid):
        os.kill(pid, signal.SIGKILL)


def maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cli_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return {**env, **extra}


async def call(tool: str, args: dict):
    async with Client(mcp) as c:
        return await c.call_tool(tool, args)


def error_text(result) -> str:
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "Traceback" not in text
    return text


def kp(*args: str, env: dict | None = None, prefix: list[str] | None = None, **kw) -> subprocess.CompletedProcess:
    """The real CLI in a child interpreter (what a user runs), with this checkout first on PYTHONPATH."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    full_env.pop("KERNELPILOT_TRACEBACK", None)
    argv = [*(prefix or []), sys.executable, "-m", "tools.cli", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=full_env, timeout=300, **kw)


def assert_clear_error(proc: subprocess.CompletedProcess, *expected: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.startswith("error: ") and "\nhint: " in proc.stderr, proc.stderr
    for text in expected:
        assert text in proc.stderr, proc.stderr
