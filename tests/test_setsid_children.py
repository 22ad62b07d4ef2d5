"""A process a command starts in a session of its own (``setsid``: killing the command's process group misses it)
does not outlive the call: run_process, and through it dump-ir's and predict's compile child, find it through /proc
by the marker in its environment (tools.processes) and kill it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tools.dump_ir import dump_ir
from tools.executors import run_process
from tools.predict.cli import predict_file

# a Triton kernel file that, when imported, leaves `setsid sleep 300` behind and records its pid
KERNEL = """
import subprocess

import torch
import triton
import triton.language as tl

subprocess.Popen(["setsid", "sh", "-c", "echo $$ > PIDFILE; exec sleep 300"])  # $$: the pid sleep is exec'd in


@triton.jit
def copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


def kernelpilot_entry():
    return {"kernel": copy, "args": (torch.randn(64), torch.zeros(64)), "kwargs": {"BLOCK": 64}, "grid": (1,)}
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for init to reap it runs nothing)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _pid_of(pidfile: Path, within: float = 5.0) -> int:
    end = time.monotonic() + within
    while time.monotonic() < end:
        text = pidfile.read_text().strip() if pidfile.exists() else ""
        if text:
            return int(text)
        time.sleep(0.05)
    raise AssertionError(f"{pidfile} was never written")


@pytest.fixture
def pidfile(tmp_path):
    path = tmp_path / "setsid.pid"
    yield path
    if path.exists() and path.read_text().strip() and _running(pid := int(path.read_text())):
        os.kill(pid, signal.SIGKILL)  # a failing test must not leave it either


def test_run_process_kills_a_setsid_grandchild_and_names_it(pidfile):
    got = run_process(["sh", "-c", f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 300' & sleep 0.3"], timeout=30)
    pid = _pid_of(pidfile)
    assert not _running(pid)  # in its own session and group: only the marker in its environment found it
    assert got.leftover_processes == ["sleep 300"]


@pytest.mark.slow
def test_dump_ir_leaves_no_process_the_kernel_file_started_with_setsid(tmp_path, pidfile):
    source = tmp_path / "leaves_sleep.py"
    source.write_text(KERNEL.replace("PIDFILE", str(pidfile)))
    dump_ir(source, "gfx942", use_cache=False)
    assert not _running(_pid_of(pidfile))


@pytest.mark.slow
def test_predict_leaves_no_process_the_kernel_file_started_with_setsid(tmp_path, pidfile):
    source = tmp_path / "leaves_sleep_too.py"
    source.write_text(KERNEL.replace("PIDFILE", str(pidfile)))
    got = predict_file(source, "gfx942", timeout=120)
    assert got.launches and not _running(_pid_of(pidfile))
