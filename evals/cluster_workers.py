"""Starting the Dask workers of an eval cluster: ``kernelpilot eval worker`` (one worker per GPU of this host) and
the Slurm path (dask-jobqueue). The driver side and the job a worker runs are in ``evals.cluster``."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable

from evals.cluster import (
    INSTALL_HINT,
    QUIET_WORKER_ARGS,
    WORKER_ENV,
    ClusterTLS,
    host_env_mark,
    require_dask,
    scheduler_address,
)
from tools.errors import InputError

# --- workers ------------------------------------------------------------------------------------------------


JOBS_PER_GPU = 2  # as the single-host runner: one job's CPU phases overlap another's GPU phase (gpu_lock)


def worker_commands(
    scheduler: str,
    gpus: list[str],
    arch: str | None,
    host: str,
    tls: ClusterTLS | None = None,
    jobs_per_gpu: int = JOBS_PER_GPU,
) -> list[tuple[list[str], dict]]:
    """The ``dask worker`` command and environment for each GPU of this host, or one single-threaded CPU worker when
    the host has no GPU; with ``tls`` each presents the member certificate.

    A GPU worker is pinned with ``CUDA_VISIBLE_DEVICES``/``HIP_VISIBLE_DEVICES`` and runs ``jobs_per_gpu`` jobs at
    once (threads, advertising ``GPU=<n>,<arch>=<n>``), exactly as the single-host runner does: the GPU phase of a
    scoring (correctness, timed rounds) holds the per-GPU file lock (``scoring.gpu_lock``) and the timed rounds the
    host-quiet lock, so kernels never share the GPU while one is timed, while the next job's workspace, agent,
    compile and process starts proceed alongside."""
    base = [sys.executable, "-m", "distributed.cli.dask_worker", scheduler, "--nworkers", "1", *QUIET_WORKER_ARGS]
    base += tls.worker_args() if tls else []
    if not gpus:
        return [([*base, "--nthreads", "1", "--name", f"kp-{host}-cpu"], {**WORKER_ENV, **host_env_mark()})]
    n = max(1, int(jobs_per_gpu))
    cmds = []
    for g in gpus:
        env = {**WORKER_ENV, **host_env_mark(), "CUDA_VISIBLE_DEVICES": g, "HIP_VISIBLE_DEVICES": g}
        argv = [*base, "--nthreads", str(n), "--name", f"kp-{host}-gpu{g}", "--resources", f"GPU={n},{arch}={n}"]
        cmds.append((argv, env))
    return cmds


def start_workers(
    scheduler: str,
    gpus: list[str] | None = None,
    say: Callable[[str], None] = print,
    *,
    tls: ClusterTLS | None = None,
    insecure: bool = False,
    jobs_per_gpu: int = JOBS_PER_GPU,
) -> int:
    """``kernelpilot eval worker``: one Dask worker per GPU of this host (``jobs_per_gpu`` jobs overlapping on
    each); runs until interrupted, and the workers die with it."""
    import signal
    import subprocess

    from evals.harness.devices import gpu_slots, probe_runtime

    require_dask("eval worker")
    scheduler = scheduler_address(scheduler, tls, insecure)
    rt = probe_runtime()
    if gpus is None:
        gpus = [g for g in gpu_slots() if g is not None]
    cmds = worker_commands(scheduler, gpus, rt.arch, socket.gethostname(), tls, jobs_per_gpu)
    procs = []
    for argv, env in cmds:
        procs.append(subprocess.Popen(argv, env={**os.environ, **env}))
        say(f"worker {argv[argv.index('--name') + 1]} → {scheduler} ({' '.join(argv[argv.index('--name') + 2 :])})")

    def stop(*_):
        for p in procs:
            if p.poll() is None:
                p.terminate()

    signal.signal(signal.SIGTERM, stop)
    try:
        return max(p.wait() for p in procs)
    except KeyboardInterrupt:
        stop()
        for p in procs:
            p.wait(timeout=30)
        return 130


# --- Slurm --------------------------------------------------------------------------------------------------


def slurm_cluster(
    partition: str,
    gpus_per_node: int = 1,
    arch: str = "sm_90",
    *,
    cores_per_gpu: int = 8,
    memory_per_gpu: str = "64GB",
    walltime: str = "04:00:00",
    account: str | None = None,
    tls: ClusterTLS | None = None,
    insecure: bool = False,
    jobs_per_gpu: int = JOBS_PER_GPU,
):
    """A dask-jobqueue ``SLURMCluster``: each Slurm job takes one node's ``gpus_per_node`` GPUs and runs one worker
    per GPU with ``jobs_per_gpu`` threads (overlapping jobs as ``eval worker`` does), each advertising
    ``GPU=<n>,<arch>=<n>`` and pinned to its GPU by its worker number (``worker_slot``). Nothing is submitted until
    ``cluster.scale(jobs=N)``."""
    require_dask("--slurm-partition")
    from evals.dask_nodes import QuietScheduler

    try:
        from dask_jobqueue import SLURMCluster
    except ImportError as exc:
        raise InputError("--slurm-partition needs dask-jobqueue, which is not installed", hint=INSTALL_HINT) from exc
    g = int(gpus_per_node)
    if g < 1:
        raise InputError(f"--slurm-gpus-per-node {g}: expected 1 or more")
    prologue = [f"export {k}={v}" for k, v in WORKER_ENV.items()] + ["export KP_SLOT_FROM_NAME=1"]
    if tls is None and not insecure:
        raise InputError(
            "--slurm-partition: the scheduler listens on the login node's network, so it needs TLS",
            hint="add --tls-ca-file, --tls-cert and --tls-key (files every node can read), or --insecure-cluster",
        )
    secure = {"security": tls.security(), "protocol": "tls://"} if tls else {}
    return SLURMCluster(
        **secure,
        queue=partition,
        account=account,
        cores=g * max(1, int(jobs_per_gpu)),  # jobs_per_gpu threads per worker, one worker per GPU
        processes=g,
        memory=_times(memory_per_gpu, g),
        walltime=walltime,
        job_extra_directives=[f"--gres=gpu:{g}", f"--cpus-per-task={g * cores_per_gpu}"],
        job_directives_skip=["--cpus-per-task"],  # ours above: CPUs for the agents and compilers, not Dask threads
        worker_extra_args=[
            *QUIET_WORKER_ARGS,
            "--resources",
            f"GPU={max(1, int(jobs_per_gpu))},{arch}={max(1, int(jobs_per_gpu))}",
        ],
        job_script_prologue=prologue,
        scheduler_cls=QuietScheduler,  # no HTTP server on the login node's network (see evals.dask_nodes)
        scheduler_options={"dashboard_address": None},
    )


def _times(memory: str, n: int) -> str:
    digits = "".join(c for c in memory if c.isdigit())
    unit = memory[len(digits) :] or "GB"
    if not digits:
        raise InputError(f"memory '{memory}': expected e.g. 64GB")
    return f"{int(digits) * n}{unit}"
