"""Messages say what is known and no more: ``unknown`` for a truncated ISA's registers, the version, a frontend hint
the command can act on, error text bounded in size, an MCP timeout naming the timeout the user gave."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from mcp_server import jobs
from tests.faults.helpers import (
    GEMM_ISA,
    assert_clear_error,
    kp,
)
from tools.cli import main
from tools.errors import CompileError


def test_truncated_isa_says_unknown_not_none(tmp_path):
    # cut before the .amdhsa_kernel block and the .set symbols that carry the register counts
    path = tmp_path / "cut.s"
    path.write_text("\n".join(GEMM_ISA.read_text().splitlines()[:60]) + "\n")
    proc = kp("vgpr-pressure", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "None VGPRs" not in proc.stdout and "vgpr_count=None" not in proc.stdout
    assert "VGPR count unknown (no resource metadata)" in proc.stdout and "vgpr_count=unknown" in proc.stdout
    assert "stripped or truncated file" in proc.stdout


def test_version_prints_the_package_version():
    from tools import __version__

    proc = kp("--version")
    assert (proc.returncode, proc.stdout.strip()) == (0, f"kernelpilot {__version__}")


def test_prefetch_data_load_has_the_frontend_its_hints_name(tmp_path):
    # a .py without flydsl/triton imports: the frontend hint says --frontend, which prefetch-data-load now takes
    path = tmp_path / "k.py"
    path.write_text("def kernelpilot_entry():\n    return None\n")
    proc = kp("prefetch-data-load", str(path), env={"KERNELPILOT_CACHE_DIR": str(tmp_path / "cache")})
    assert_clear_error(proc, "--frontend")
    proc = kp("prefetch-data-load", str(path), "--frontend", "nope")
    assert proc.returncode == 2 and "invalid choice: 'nope'" in proc.stderr


def test_error_text_is_bounded(capsys, tmp_path, monkeypatch):
    # a 3 MB command name (too long for exec, so in process: what MCP's command list reaches) used to come back
    # twice in the error: 6 MB on stderr

    monkeypatch.setenv("KERNELPILOT_CACHE_DIR", str(tmp_path))
    assert main(["dump-ir", "--arch", "gfx942", "--cmd", "x" * 3_000_000]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "\nhint: " in err and "Traceback" not in err
    assert len(err) < 25_000 and "characters left out" in err, len(err)


def test_mcp_timeout_message_names_the_timeout_the_user_gave(tmp_path):

    (tmp_path / "request.json").write_text(json.dumps({"call": "dump-ir", "kwargs": {"timeout": 5}}))
    job = jobs.Job("j1", "dump-ir", "compiling k.py for gfx942", tmp_path, subprocess.Popen(["true"]), 35)
    job.proc.wait()
    job.state, job.started = "timed_out", time.monotonic() - 35
    with pytest.raises(CompileError, match=r"compiling k\.py for gfx942 did not finish within its 5s timeout"):
        jobs.result(job)
