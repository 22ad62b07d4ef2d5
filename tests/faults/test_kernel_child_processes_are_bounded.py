"""A kernel file runs in a child that cannot outlive its call: a forked grandchild holding (or closing) the pipes, a
timeout, SIGTERM/SIGHUP and a closed stdout all end with every process gone (pids polled until gone) and no
traceback; a child that exits or crashes gets a message that says how."""

from __future__ import annotations

import signal
import subprocess
import threading
import time

import pytest

from tests.faults.helpers import (
    GEMM_ISA,
    PY,
    call,
    cli_env,
    error_text,
    forked_sleeper,
    kill_if_alive,
    triton_kernel,
    wait_for,
)
from tests.mcp_server.test_server import wait_gone
from tools.cli import main
from tools.dump_ir import dump_ir
from tools.errors import CompileError
from tools.executors import LOCAL


def test_forked_child_cannot_outlive_timeout(tmp_path):
    pids = tmp_path / "pids"
    kernel = triton_kernel(
        tmp_path / "k.py",
        prelude=forked_sleeper(pids),
        entry="time.sleep(100000)",
    )
    t0 = time.monotonic()
    with pytest.raises(CompileError, match="was stopped"):
        dump_ir(kernel, "gfx942", use_cache=False, timeout=8)
    assert time.monotonic() - t0 < 30  # 8 s, plus the kill's grace, never forever
    child = int(pids.read_text())
    assert wait_gone(child), f"forked child {child} survived"


def test_successful_compile_with_a_lingering_child_is_a_success(tmp_path):
    pids = tmp_path / "pids"
    kernel = triton_kernel(
        tmp_path / "k.py",
        prelude=forked_sleeper(pids),
    )
    result = dump_ir(kernel, "gfx942", use_cache=False, timeout=120)
    assert [k.name for k in result.kernels] == ["add_one"]
    child = int(pids.read_text())
    assert wait_gone(child), f"forked child {child} survived the compile"


@pytest.mark.anyio
async def test_mcp_timeout_is_the_callers_and_kills_the_child(project, tmp_path):
    proj, _ = project
    pids = tmp_path / "pids"
    triton_kernel(
        proj / "k.py",
        prelude=forked_sleeper(pids),
        entry="time.sleep(100000)",
    )
    t0 = time.monotonic()
    text = error_text(await call("dump-ir", {"source": "k.py", "timeout": 8, "use_cache": False, "wait_seconds": 90}))
    assert "was stopped" in text
    assert time.monotonic() - t0 < 35  # the caller's 8 s (+ worker start and the kill's grace), not 8 + 30
    assert wait_gone(int(pids.read_text()))


def test_runner_deadline_bounds_pipe_draining():
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(100000)\nprint('done')"
    t0 = time.monotonic()
    res = LOCAL.run([PY, "-c", code], timeout=30)
    assert res.ok and res.stdout == "done\n"
    assert time.monotonic() - t0 < 10  # not the 100000 s the child holds stdout for


@pytest.mark.parametrize(
    ("prelude", "entry", "message"),
    [
        ("sys.exit(0)", "pass", "called sys.exit(0) while it was being imported"),
        ("", "sys.exit(4)", "called sys.exit(4) inside kernelpilot_entry()"),
        ("", "os._exit(0)", "ended with exit code 0 before it reported a result"),
        ("", "os.kill(os.getpid(), signal.SIGSEGV)", "crashed: SIGSEGV (segmentation fault)"),
    ],
    ids=["sys.exit(0)", "sys.exit(4)", "os._exit(0)", "segfault"],
)
def test_kernel_exits_and_crashes_get_specific_messages(tmp_path, capsys, prelude, entry, message):
    kernel = triton_kernel(tmp_path / "k.py", prelude=prelude, entry=entry)
    assert main(["dump-ir", str(kernel), "--arch", "gfx942", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert "Traceback" not in err and "runner.json" not in err and "file-mode convention" not in err


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_clean_up_like_ctrl_c(tmp_path, private_cache, sig, code):
    pid_file = tmp_path / "pid"
    kernel = triton_kernel(
        tmp_path / "k.py", entry=f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
    )
    proc = subprocess.Popen(
        [PY, "-m", "tools.cli", "dump-ir", str(kernel), "--arch", "gfx942", "--no-cache"],
        env=cli_env(KERNELPILOT_CACHE_DIR=str(private_cache)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text(), 120)
        compiler = int(pid_file.read_text())
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code
    assert f"terminated by {sig.name}" in err and "Traceback" not in err
    assert wait_gone(compiler), f"compiler {compiler} outlived the CLI"
    assert not [p for p in (private_cache / "dumps").iterdir() if ".tmp" in p.name]  # staging renamed .failed


def test_child_that_closes_its_pipes_does_not_survive_success(tmp_path):
    pids = tmp_path / "pids"
    kernel = triton_kernel(
        tmp_path / "k.py",
        prelude=forked_sleeper(pids, close_pipes=True),
    )
    dump_ir(kernel, "gfx942", use_cache=False, timeout=120)
    child = int(pids.read_text())
    try:
        assert wait_gone(child), f"child {child} outlived a successful compile"
    finally:
        kill_if_alive(child)


def test_closed_stdout_is_not_a_traceback():
    proc = subprocess.Popen(
        [PY, "-m", "tools.cli", "vgpr-pressure", str(GEMM_ISA)],
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdout.close()  # `| head -0`: the reader is gone before the first line
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_worker_threads_cannot_install_signal_handlers_but_cli_main_still_runs(capsys):
    # main() is called from threads by the eval harness: no signal.signal() there (it would raise ValueError)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("rc", main(["vgpr-pressure", str(GEMM_ISA)])))
    t.start()
    t.join(60)
    assert out["rc"] == 0
