"""An MCP job runs the engine in a child (``mcp_server.worker``) that reports by the child-result protocol every
kernelpilot child follows (``tools.childproc``): the server re-raises the engine's error as the class the engine
raised, not as a bare KernelpilotError, and a result file that is not the protocol's reads as the child stopping."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcp_server import jobs
from mcp_server.worker import RESULT_FILE
from tools.childproc import read_result
from tools.errors import InputError, KernelpilotError


def _run_worker(job_dir, call, kwargs):
    (job_dir / "request.json").write_text(json.dumps({"call": call, "kwargs": kwargs}))
    proc = subprocess.Popen([sys.executable, "-m", "mcp_server.worker", str(job_dir)])
    assert proc.wait(timeout=300) == 0
    job = jobs.Job("j1", call, f"{call} of a test input", job_dir, proc, 300)
    job.state = "done"
    return job


def test_an_engine_input_error_reaches_the_server_as_an_input_error(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a kernel\n")
    job = _run_worker(tmp_path, "dump-ir", {"source": str(notes), "arch": "gfx942"})
    recorded = read_result(tmp_path / RESULT_FILE)
    assert recorded["status"] == "error" and recorded["error_class"] == "InputError"
    with pytest.raises(InputError) as raised:
        jobs.result(job)
    assert type(raised.value) is InputError and "notes.txt" in raised.value.message


def test_a_result_file_outside_the_protocol_reads_as_the_worker_stopping(tmp_path):
    (tmp_path / "request.json").write_text(json.dumps({"call": "dump-ir", "kwargs": {}}))
    (tmp_path / "stderr.log").write_text("Traceback ...\n")
    (tmp_path / RESULT_FILE).write_text(json.dumps({"ok": True, "result": {}}))  # the old shape: no status
    proc = subprocess.Popen(["true"])
    proc.wait()
    job = jobs.Job("j2", "dump-ir", "dump-ir of a test input", tmp_path, proc, 30)
    job.state = "done"
    with pytest.raises(KernelpilotError, match="stopped unexpectedly"):
        jobs.result(job)
