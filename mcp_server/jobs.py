"""Long work in killable child processes: start, wait with progress heartbeats, resume, cancel.

A tool starts a job and waits up to ``wait_seconds`` (below the 60 s tool timeout that several clients default to),
sending a progress notification every few seconds; if the job is still running the tool returns its ``job_id`` and
the agent calls the tool again with it. Cancelling the call (or the client timing out) kills the whole process tree,
and so does the job's own ``timeout``.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from mcp_server.paths import allowed_roots, project_dir
from mcp_server.worker import RESULT_FILE
from tools import cache
from tools.childproc import raise_recorded, read_result
from tools.errors import CompileError, KernelpilotError
from tools.executors import LOCAL, kill_process_tree
from tools.toolchain import cache_root

HEARTBEAT_ENV = "KERNELPILOT_MCP_HEARTBEAT_S"
MAX_RUNNING_ENV = "KERNELPILOT_MCP_MAX_JOBS"
MAX_RUNNING_DEFAULT = 4  # compiles and profiles at once: each can take a core and gigabytes
_REPO_ROOT = str(Path(__file__).resolve().parents[1])
_MAX_JOBS = 64
_swept = False


@dataclass
class Job:
    id: str
    tool: str
    label: str
    dir: Path
    proc: subprocess.Popen
    timeout: float
    started: float = field(default_factory=time.monotonic)
    state: str = "running"  # running | done | cancelled | timed_out

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def pid(self) -> int:
        return self.proc.pid


JOBS: dict[str, Job] = {}


def max_running() -> int:
    try:
        return max(1, int(os.environ.get(MAX_RUNNING_ENV, MAX_RUNNING_DEFAULT)))
    except ValueError:
        return MAX_RUNNING_DEFAULT


def start(tool: str, call: str, kwargs: dict[str, Any], *, timeout: float, label: str) -> Job:
    """Start ``mcp_server.worker`` on ``call(**kwargs)`` in its own process group (at most ``max_running()`` at
    once); the worker is confined to the server's allowed roots."""
    global _swept
    running = [j for j in JOBS.values() if j.proc.poll() is None]
    if len(running) >= max_running():
        listed = ", ".join(f"{j.tool} job {j.id} ({j.label}, {j.elapsed:.0f}s)" for j in running[:4])
        raise KernelpilotError(
            f"{len(running)} jobs are already running on this server, its limit ({MAX_RUNNING_ENV}={max_running()})",
            hint=f"wait for one by calling its tool again with its job_id ({listed}), or cancel it; the server's "
            f"operator can raise {MAX_RUNNING_ENV}",
        )
    if not _swept:  # once per server: leftovers of earlier servers and killed compiles
        _swept = True
        cache.sweep()
    job_id = uuid.uuid4().hex[:12]
    job_dir = cache_root() / "mcp-jobs" / job_id
    job_dir.mkdir(parents=True)
    roots = [str(r) for r in allowed_roots(artifacts=True)]
    (job_dir / "request.json").write_text(json.dumps({"call": call, "kwargs": kwargs, "roots": roots}))
    pythonpath = os.pathsep.join(p for p in (_REPO_ROOT, os.environ.get("PYTHONPATH")) if p)
    with open(job_dir / "stdout.log", "w") as out, open(job_dir / "stderr.log", "w") as err:
        proc = LOCAL.start(
            [sys.executable, "-m", "mcp_server.worker", str(job_dir)],
            env={"PYTHONPATH": pythonpath},
            stdout=out,
            stderr=err,
            cwd=project_dir(),
        )
    job = Job(job_id, tool, label, job_dir, proc, timeout)
    for old in [j for j in JOBS.values() if j.state != "running"][: max(0, len(JOBS) - _MAX_JOBS + 1)]:
        JOBS.pop(old.id, None)
        shutil.rmtree(old.dir, ignore_errors=True)
    JOBS[job_id] = job
    return job


def get(job_id: str, tool: str) -> Job:
    job = JOBS.get(job_id)
    if job is None or job.tool != tool:
        raise KernelpilotError(
            f"no {tool} job '{job_id}' in this server",
            hint=f"the server may have restarted; call {tool} again without job_id to start over",
        )
    return job


async def kill(job: Job, state: str) -> None:
    """Kill the job's process tree (SIGTERM, then SIGKILL) without blocking the event loop."""
    if job.proc.poll() is None:
        job.state = state
        await anyio.to_thread.run_sync(kill_process_tree, job.proc)


async def wait(job: Job, ctx, wait_seconds: float) -> bool:
    """Wait up to ``wait_seconds`` with progress heartbeats; True when the job has finished (or was stopped)."""
    heartbeat = float(os.environ.get(HEARTBEAT_ENV, "3"))
    give_up = time.monotonic() + max(wait_seconds, 0.0)
    deadline = job.started + job.timeout
    try:
        while job.proc.poll() is None:
            now = time.monotonic()
            if now >= deadline:
                await kill(job, "timed_out")
                break
            if now >= give_up:
                return False
            await ctx.report_progress(
                round(job.elapsed, 1), None, f"{job.label}: {job.elapsed:.0f}s (pid {job.pid}, job {job.id})"
            )
            await anyio.sleep(max(0.05, min(heartbeat, give_up - now, deadline - now)))
    except BaseException:
        # The client cancelled the call, timed out, or went away: no orphaned compiler or profiler.
        with anyio.CancelScope(shield=True):
            await kill(job, "cancelled")
        raise
    if job.state == "running":
        job.state = "done"
    return True


def result(job: Job) -> dict[str, Any]:
    """The finished job's model as a dict, or the KernelpilotError it raised (re-raised here)."""
    if job.state == "timed_out":
        asked = json.loads((job.dir / "request.json").read_text())["kwargs"].get("timeout", job.timeout)
        raise CompileError(
            f"{job.label} did not finish within its {asked:g}s timeout and was stopped",
            hint="raise the timeout argument, or make the input smaller",
        )
    if job.state == "cancelled":
        raise KernelpilotError(f"{job.label} was cancelled", hint="start it again")
    payload = read_result(job.dir / RESULT_FILE)
    if payload is None:
        tail = "\n".join((job.dir / "stderr.log").read_text(errors="replace").splitlines()[-30:])
        raise KernelpilotError(
            f"{job.label} stopped unexpectedly (exit code {job.proc.returncode})",
            hint=f"this is a kernelpilot bug; the log is {job.dir / 'stderr.log'}",
            details=tail,
        )
    if payload["status"] == "ok":
        return payload["result"]
    raise_recorded(payload)  # the engine's InputError stays an InputError (a CompileError a CompileError)


def _kill_all() -> None:
    for job in JOBS.values():
        if job.proc.poll() is None:
            kill_process_tree(job.proc)


atexit.register(_kill_all)
