"""Files and streams a tool cannot use (unreadable, a cache directory or ``--out`` that is a file, non-tar data from
an executor, an ASCII-only terminal, a closed stdout, a reader that stops early): a clear ``error:``/``hint:``
or a quiet exit, never a traceback."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.faults.helpers import (
    GEMM_ISA,
    SPILL_ISA,
    assert_clear_error,
    kp,
)
from tests.trace_fixtures import KERNEL_STATS_CSV
from tools.errors import ToolchainError


def _without_root_read_override() -> list[str] | None:
    """A prefix that runs the CLI unable to read a chmod-000 file: nothing as a normal user; as root, setpriv
    dropping the capabilities that let root read anything (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH). None when
    neither is possible here."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        return None
    prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"kp-probe-{os.getpid()}"
    probe.write_text("x")
    probe.chmod(0)
    try:
        ok = subprocess.run([*prefix, "cat", str(probe)], capture_output=True).returncode != 0
    finally:
        probe.unlink()
    return prefix if ok else None


@pytest.mark.parametrize(
    ("tool", "fixture", "name"),
    [
        ("kernel-trace", KERNEL_STATS_CSV, "kernel_stats.csv"),
        ("vgpr-pressure", GEMM_ISA, "k.s"),
        ("prefetch-data-load", GEMM_ISA, "k.s"),
        ("dump-ir", REPO / "examples" / "triton" / "vector_add.py", "k.py"),
    ],
)
def test_unreadable_file_is_a_clear_error_for_every_tool(tmp_path, tool, fixture, name):
    prefix = _without_root_read_override()
    if prefix is None:
        pytest.skip("running as root without setpriv: a chmod-000 file stays readable")
    path = tmp_path / name
    shutil.copy(fixture, path)
    path.chmod(0)
    args = {"kernel-trace": ["--from", str(path)], "dump-ir": [str(path), "--arch", "gfx942"]}.get(tool, [str(path)])
    proc = kp(tool, *args, prefix=prefix, env={"KERNELPILOT_CACHE_DIR": str(tmp_path / "cache")})
    assert_clear_error(proc, str(path), "permission denied")


def test_cache_dir_that_is_a_file_is_refused(tmp_path):
    cache = tmp_path / "cache"
    cache.write_text("not a directory")
    proc = kp("dump-ir", str(REPO / "examples" / "triton" / "vector_add.py"), "--arch", "gfx942",
              env={"KERNELPILOT_CACHE_DIR": str(cache)})  # fmt: skip
    assert_clear_error(proc, f"the kernelpilot cache directory {cache} cannot be used: {cache} is a file")


def test_out_naming_a_file_is_refused_before_any_work(tmp_path):
    out = tmp_path / "out"
    out.write_text("mine")
    proc = kp("dump-ir", str(REPO / "examples" / "triton" / "vector_add.py"), "--arch", "gfx942", "--out", str(out),
              env={"KERNELPILOT_CACHE_DIR": str(tmp_path / "cache")})  # fmt: skip
    assert_clear_error(proc, f"--out {out} is a file, not a directory")
    assert out.read_text() == "mine" and not (tmp_path / "cache").exists()  # refused before compiling anything


def test_non_tar_data_from_an_executor_is_a_toolchain_error(tmp_path, monkeypatch):
    # A 'docker' that prints a banner instead of tar's stream: this fakes the remote end only, to test our handling.
    from tools.executors import Executor, fetch_tree

    fake = tmp_path / "bin" / "docker"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'Welcome to the GPU cluster'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ToolchainError, match="27 bytes that are not a usable tar stream") as info:
        fetch_tree(Executor.parse("docker:gpu"), "/remote/out", tmp_path / "local", timeout=30)
    assert "Welcome to the GPU cluster" in info.value.message and info.value.hint


def test_ascii_terminal_gets_the_report_not_a_traceback():
    # the suggestions line is "~N VGPRs — evidence": an em dash that an ascii stdout cannot encode
    proc = kp("vgpr-pressure", str(SPILL_ISA), env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "VGPRs ? " in proc.stdout  # replaced, not fatal


def test_closed_stdout_and_a_reader_that_stops_early_exit_quietly():
    closed = kp("kernel-trace", "--from", str(KERNEL_STATS_CSV), prefix=["sh", "-c", 'exec "$@" >&-', "sh"])
    assert closed.returncode == 0 and closed.stderr == ""
    # `| head -1`: the reader goes away after one line; the CLI stops quietly (141 = 128 + SIGPIPE)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "tools.cli", "vgpr-pressure", str(SPILL_ISA), "--per-instruction"]
    writer = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    writer.stdout.readline()
    writer.stdout.close()
    err = writer.stderr.read().decode()
    assert writer.wait(timeout=120) == 141 and "Traceback" not in err, err
