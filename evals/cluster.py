"""Eval runs across GPU hosts on Dask distributed (and Slurm through dask-jobqueue).

Each (agent, task) job is submitted with the worker resources it needs — ``{"GPU": 1, "<arch>": 1}`` for a
gpu-runtime task, none for an amd-static one (any worker's CPU) — and runs ``runner.run_one`` on the worker:
workspace, agent and scoring all happen there. The TaskScore, the diff and the logs (each capped) come back to the
driver, which writes them atomically into the usual results layout (``OUT/<agent>/<task>.json`` and
``OUT/<agent>/<task>/``), so ``eval leaderboard`` and resume work unchanged. Each worker's running jobs are held
by a worker plugin (``evals.dask_nodes.RunningJobs``); starting workers (``eval worker``, Slurm) is
``evals.cluster_workers``.

Security: a Dask scheduler runs whatever pickled function reaches it, so a cluster that other machines can reach
must speak TLS with certificates (``--tls-ca-file``, ``--tls-cert``, ``--tls-key``, the same on ``eval run
--cluster``, ``eval worker`` and the Slurm path; ``kernelpilot eval certs DIR`` makes a CA and a certificate for a
private cluster). Both ends present a certificate signed by the CA, so a worker or client without one is refused.
A non-loopback scheduler address without TLS is refused unless ``--insecure-cluster`` is given. A cluster the harness
starts for itself (``--cluster local:N``) speaks TLS too, with a throw-away certificate only this process holds, since
any local user can reach a loopback port. No scheduler or worker we start runs an HTTP server (``evals.dask_nodes``).

Faults: the scheduler gives up on a job whose worker died (``allowed-failures: 0``; set it on your own scheduler
with ``DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=0``); the driver resubmits such a job once, and a second loss is
recorded as an infrastructure failure (``infra_error``), never as the agent's. Ctrl-C (or SIGTERM) cancels every
outstanding job: queued ones are dropped, and a running one has its agent, compiler or scoring process killed on its
worker (``cancel_jobs``), so a cluster does not keep spending GPU hours on a run nobody waits for.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from evals.catalog import Task
from evals.models import TaskScore
from tools.errors import Cancelled, InputError, Interrupted, stops_held
from tools.executors import cancel_thread, release_thread

INSTALL_HINT = "pip install 'kernelpilot[cluster]' (dask, distributed, dask-jobqueue)"
LOG_CAP = 256 * 1024  # bytes kept of each log or diff sent back to the driver (head and tail)
RUN_FILES = ("change.patch", "agent.log", "prompt.md", "agent_report.json", "mcp.json")
# a worker that runs our scoring must be able to start processes of its own (spawned scorers, agents)
WORKER_ENV = {"DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
# `--cluster local:N`: a job whose worker dies is failed at once (the driver retries it once); the nannies restart a
# lost worker, and LocalCluster must not close a nanny whose worker is not back `lost-worker-timeout` (15 s) after a
# loss: a worker lost again in that window (an agent killing its worker, an OOM) was then gone for the rest of the
# run, with one slot fewer, and a run on one worker hung (reproduced: a worker killed each time it re-registers is
# lost for good within ~20 s; CI, 2026-11-26: a test's second worker never came back)
LOCAL_CLUSTER_CONFIG = {
    "distributed.scheduler.allowed-failures": 0,
    "distributed.worker.daemon": False,
    "distributed.deploy.lost-worker-timeout": "3650 days",
}
_LOG = logging.getLogger(__name__)
# a worker we start serves no HTTP (Dask's worker starts an unauthenticated metrics server otherwise): evals.dask_nodes
QUIET_WORKER_ARGS = ("--no-dashboard", "--worker-class", "evals.dask_nodes.QuietWorker")
HOST_ENV_MARK = "KP_HOST_ENV"  # JSON: the starting process's values of the variables a Dask nanny sets


def host_env_mark() -> dict[str, str]:
    """For the environment of the workers this process starts: its own values (None: unset) of the variables a Dask
    nanny sets in the worker processes it spawns where they are unset (``distributed.nanny.pre-spawn-environ``:
    ``OMP_NUM_THREADS=1``, ``MKL_NUM_THREADS=1``, ``OPENBLAS_NUM_THREADS=1``, ``MALLOC_TRIM_THRESHOLD_``), so that
    ``restore_host_env`` on the worker tells the nanny's values from the host's."""
    try:
        import dask
    except ImportError:  # no Dask, no nanny
        return {}

    keys = sorted(dask.config.get("distributed.nanny.pre-spawn-environ", None) or {})
    return {HOST_ENV_MARK: json.dumps({k: os.environ.get(k) for k in keys})}


_RESTORED = threading.Lock()


def restore_host_env() -> dict[str, str | None]:
    """On a worker, before a job starts any process: unset what the nanny set in this worker process because the
    host left it unset (``distributed.nanny.pre-spawn-environ``, meant for Dask's own array work): every scoring and
    kernel process would inherit it, and with ``OMP_NUM_THREADS=1`` torch compares a large output on one core while
    its scoring holds the GPU lock; the glibc trim threshold makes large tensor allocations fresh pages. What the
    host set (``HOST_ENV_MARK``, from ``eval worker`` and ``--cluster local:N``) is left alone; without the mark (a
    Slurm job) a variable holding exactly the nanny's value is taken to be the nanny's. Returns what it unset."""
    import dask

    nanny = dask.config.get("distributed.nanny.pre-spawn-environ", None) or {}
    nanny = {k: str(v) for k, v in nanny.items() if v is not None}
    try:
        original = json.loads(os.environ.get(HOST_ENV_MARK) or "null")
    except ValueError:
        original = None
    changed: dict[str, str | None] = {}
    with _RESTORED:
        for k, v in nanny.items():
            was_set = isinstance(original, dict) and original.get(k) is not None
            if os.environ.get(k) == v and not was_set:
                os.environ.pop(k)
                changed[k] = None
    return changed


def require_dask(what: str = "--cluster"):
    """Import distributed, or say how to install it."""
    try:
        import distributed
    except ImportError as exc:
        raise InputError(f"{what} needs Dask distributed, which is not installed", hint=INSTALL_HINT) from exc
    return distributed


def resources_for(task: Task) -> dict[str, int]:
    """What one job of ``task`` needs from a worker: a GPU of the task's architecture, or nothing (any CPU)."""
    if task.spec.track == "amd-static":
        return {}
    return {"GPU": 1, task.spec.archs[0]: 1}


def kind_of(resources: dict[str, int]) -> str:
    return next((f"GPU {k}" for k in resources if k != "GPU"), "cpu")


def _cap(text: str, cap: int = LOG_CAP) -> str:
    if len(text) <= cap:
        return text
    half = cap // 2
    return f"{text[:half]}\n… [{len(text) - cap} characters cut on the worker] …\n{text[-half:]}"


def worker_slot() -> str | None:
    """The GPU this worker owns: ``None`` when the worker was started pinned (``eval worker`` sets
    ``CUDA_VISIBLE_DEVICES`` per worker), or, for the several workers of one Slurm job (``KP_SLOT_FROM_NAME``), the
    entry of the job's visible devices indexed by the worker's number (names end in ``-<i>``)."""
    if not os.environ.get("KP_SLOT_FROM_NAME"):
        return None
    from distributed import get_worker

    visible = os.environ.get("CUDA_VISIBLE_DEVICES") or os.environ.get("HIP_VISIBLE_DEVICES") or ""
    ids = [v for v in visible.split(",") if v]
    idx = str(get_worker().name).rsplit("-", 1)[-1]
    return ids[int(idx)] if idx.isdigit() and int(idx) < len(ids) else None


def _running_jobs(worker) -> dict[str, int]:
    """This worker's running jobs (``evals.dask_nodes.RunningJobs``, which ``run_suite_on_cluster`` registers)."""
    from evals.dask_nodes import RunningJobs

    plugin = worker.plugins.get(RunningJobs.name)
    if plugin is None:  # a job submitted by something other than run_suite_on_cluster
        raise RuntimeError(f"the {RunningJobs.name} worker plugin is not registered: submit with run_suite_on_cluster")
    return plugin.threads


def run_job(task: Task, agent: str, template: str | None, options: dict) -> dict:
    """On a worker: one (agent, task) job end to end; returns the score and the run's files (capped).

    While it runs, ``cancel_jobs`` (sent by a driver's Ctrl-C) can stop it: the agent or compiler process in flight
    is killed with its process group and no further process starts (``tools.executors.cancel_thread``)."""
    from distributed import get_worker

    from evals.harness.runner import agent_dir, run_one

    worker = get_worker()
    key, ident, running = str(worker.get_current_task()), threading.get_ident(), _running_jobs(worker)
    restore_host_env()  # the scoring and kernel processes get this host's threads and allocator, not the nanny's
    running[key] = ident
    try:
        with tempfile.TemporaryDirectory(prefix=f"kp-job-{task.id}-") as tmp:
            out = Path(tmp)
            score = run_one(task, agent, template, out, worker_slot(), **options)
            tdir = agent_dir(out, agent) / task.id
            files = {n: _cap((tdir / n).read_text(errors="replace")) for n in RUN_FILES if (tdir / n).is_file()}
    except Cancelled as exc:  # an Exception for Dask: a BaseException would take the worker's thread down with it
        raise RuntimeError(f"job {key} cancelled by its driver: {exc}") from None
    finally:
        running.pop(key, None)
        release_thread(ident)
    return {"score": score.model_dump_json(), "files": files, "host": socket.gethostname()}


def cancel_jobs(keys: list[str], dask_worker=None) -> list[str]:
    """On every worker (``client.run``, which passes ``dask_worker``): cancel the running jobs among ``keys``;
    returns the keys it cancelled."""
    from evals.dask_nodes import RunningJobs

    plugin = dask_worker.plugins.get(RunningJobs.name) if dask_worker is not None else None
    running = plugin.threads if plugin is not None else {}  # a worker that has run no job of ours
    hit = [k for k in keys if k in running]
    for k in hit:
        cancel_thread(running[k])
    return hit


def _store(out: Path, agent: str, payload: dict) -> TaskScore:
    """On the driver: write one job's files and its score atomically into the results layout."""
    from evals.harness.runner import agent_dir
    from tools.files import write_atomic

    score = TaskScore.model_validate_json(payload["score"])
    adir = agent_dir(out, agent)
    for name, text in payload.get("files", {}).items():
        write_atomic(adir / score.task_id / name, text, durable=True)
    if score.agent_outcome and score.agent_outcome.log:
        score.agent_outcome.log = str(adir / score.task_id / "agent.log")
    write_atomic(adir / f"{score.task_id}.json", score.model_dump_json(indent=1), durable=True)
    return score


def _infra(task: Task, agent: str, why: str, level: str) -> TaskScore:
    s = TaskScore(task_id=task.id, track=task.spec.track, agent=agent, passed=False, complete=False)
    s.prompt_level = level  # type: ignore[assignment]
    s.record_infra_error(f"the worker running this job was lost twice: {why}")
    return s


@dataclass(frozen=True)
class ClusterTLS:
    """The certificate files of one cluster member: the CA that signs every member, and this member's own."""

    ca_file: Path
    cert: Path
    key: Path

    @classmethod
    def from_options(cls, ca_file: str | None, cert: str | None, key: str | None) -> ClusterTLS | None:
        given = {"--tls-ca-file": ca_file, "--tls-cert": cert, "--tls-key": key}
        if not any(given.values()):
            return None
        missing = [k for k, v in given.items() if not v]
        if missing:
            raise InputError(
                f"TLS needs all three of --tls-ca-file, --tls-cert and --tls-key; missing {', '.join(missing)}",
                hint="`kernelpilot eval certs DIR` writes ca.pem, member.pem and member.key for a private cluster",
            )
        paths = [Path(v) for v in given.values()]  # type: ignore[arg-type]
        for flag, path in zip(given, paths, strict=True):
            if not path.is_file():
                raise InputError(f"{flag} {path}: no such file", hint="give the PEM file's path")
        return cls(*paths)

    def security(self):
        """``distributed.security.Security`` requiring encryption, with this member's certificate on every role."""
        from distributed.security import Security

        ca, cert, key = str(self.ca_file), str(self.cert), str(self.key)
        return Security(
            tls_ca_file=ca,
            tls_client_cert=cert,
            tls_client_key=key,
            tls_scheduler_cert=cert,
            tls_scheduler_key=key,
            tls_worker_cert=cert,
            tls_worker_key=key,
            require_encryption=True,
        )

    def worker_args(self) -> list[str]:
        return ["--tls-ca-file", str(self.ca_file), "--tls-cert", str(self.cert), "--tls-key", str(self.key)]


def _is_loopback(host: str) -> bool:
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def scheduler_address(address: str, tls: ClusterTLS | None, insecure: bool = False) -> str:
    """The address to dial: ``tls://`` when certificates are given; a plain address that is not loopback is refused
    unless ``insecure`` (a scheduler runs any pickled function that reaches it). Decided before any connection."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if not parts.hostname or parts.scheme not in ("tcp", "tls"):
        raise InputError(
            f"scheduler address {address!r}: expected tls://HOST:PORT (or tcp://HOST:PORT on loopback)",
            hint="e.g. --cluster tls://head:8786 --tls-ca-file ca.pem --tls-cert member.pem --tls-key member.key",
        )
    if tls is not None:
        return "tls://" + parts.netloc
    if parts.scheme == "tls":
        raise InputError(
            f"{address} is a TLS address but no certificates were given",
            hint="add --tls-ca-file, --tls-cert and --tls-key",
        )
    if not _is_loopback(parts.hostname) and not insecure:
        raise InputError(
            f"refusing a plain-TCP Dask scheduler at {parts.hostname}: anyone who reaches that port can run code on "
            "every worker",
            hint="use TLS (--tls-ca-file, --tls-cert, --tls-key; `kernelpilot eval certs DIR` makes them), or pass "
            "--insecure-cluster on a network you trust",
        )
    return address


def local_cluster(n_workers: int):
    """What ``--cluster local:N`` starts: a scheduler and N single-threaded worker processes (each with its nanny) on
    127.0.0.1, all speaking TLS with a throw-away certificate held by this process only (``throwaway_security``):
    every port they open refuses a client or worker without it, which any local user could otherwise be (a Dask
    scheduler runs whatever pickled function reaches it). No HTTP server anywhere (``evals.dask_nodes``). The
    equivalent of ``LocalCluster(processes=True, threads_per_worker=1)``, whose scheduler class cannot be chosen."""
    import distributed
    from distributed.worker_memory import parse_memory_limit

    from evals.certs import throwaway_security
    from evals.dask_nodes import QuietNanny, QuietScheduler

    security = throwaway_security()
    common = {"host": "127.0.0.1", "protocol": "tls://", "security": security}
    scheduler = {"cls": QuietScheduler, "options": {**common, "port": 0, "dashboard": False, "dashboard_address": None}}
    memory = parse_memory_limit("auto", 1, n_workers, logger=_LOG)  # as LocalCluster: the host's memory, shared
    options = {**common, "nthreads": 1, "dashboard": False, "silence_logs": 40, "memory_limit": memory}
    worker = {"cls": QuietNanny, "options": options}
    return distributed.SpecCluster(
        scheduler=scheduler, workers=dict.fromkeys(range(n_workers), worker), worker=worker, security=security,
        silence_logs=40,
    )  # fmt: skip


def open_client(address: str, tls: ClusterTLS | None = None, insecure: bool = False):
    """A Dask client: ``local:N`` starts a local cluster of N single-threaded worker processes (CPU only), anything
    else is a scheduler address (``tls://host:8786``; plain ``tcp://`` only on loopback or with ``insecure``)."""
    distributed = require_dask()
    import dask

    if address.startswith("local:"):
        n = address.split(":", 1)[1]
        if not n.isdigit() or int(n) < 1:
            raise InputError(f"--cluster {address}: expected local:N with N ≥ 1", hint="e.g. --cluster local:2")
        os.environ.update({**WORKER_ENV, **host_env_mark()})  # spawned worker processes read it
        dask.config.set(LOCAL_CLUSTER_CONFIG)
        cluster = local_cluster(int(n))
        return distributed.Client(cluster, security=cluster.security), cluster
    address = scheduler_address(address, tls, insecure)
    try:
        return distributed.Client(address, timeout=30, security=tls.security() if tls else None), None
    except OSError as exc:
        raise InputError(
            f"cannot reach the Dask scheduler at {address}: {exc}",
            hint="start one with `dask scheduler` (with TLS: `dask scheduler --protocol tls` and its TLS files), workers "
            "with `kernelpilot eval worker --scheduler ADDRESS`; or try --cluster local:2",
        ) from exc


class Progress:
    """Jobs queued / running / done per resource kind, printed when the counts change."""

    def __init__(self, say: Callable[[str], None]):
        self.say, self.last = say, ""

    def update(self, client, pending: dict, kinds: dict, done: dict, held: dict | None = None) -> None:
        """``held``: jobs per kind the driver has not submitted yet (counted as queued)."""
        try:
            running = {k for keys in client.processing().values() for k in keys}
        except Exception:  # the scheduler is busy or gone: progress is advisory
            running = set()
        held = held or {}
        parts = []
        for kind in sorted(set(kinds.values()) | set(held)):
            keys = [f.key for f, k in ((f, kinds[f.key]) for f in pending.values()) if k == kind]
            run = sum(1 for k in keys if k in running)
            queued = len(keys) - run + held.get(kind, 0)
            parts.append(f"{kind}: {queued} queued, {run} running, {done.get(kind, 0)} done")
        line = "; ".join(parts)
        if line != self.last:
            self.say(f"[cluster] {line}")
            self.last = line


def job_slots(client) -> dict[str, int]:
    """How many jobs of each kind the cluster's workers run at once now: per architecture, the sum of the workers'
    ``<arch>`` resource (``GPU <arch>``); for CPU jobs, their threads (``cpu``)."""
    slots: dict[str, int] = {}
    try:
        workers = client.scheduler_info()["workers"].values()
    except Exception:  # the scheduler is busy: no news, the caller keeps what it has in flight
        return slots
    for w in workers:
        slots["cpu"] = slots.get("cpu", 0) + int(w.get("nthreads") or 0)
        for name, n in (w.get("resources") or {}).items():
            if name != "GPU":
                slots[f"GPU {name}"] = slots.get(f"GPU {name}", 0) + int(n)
    return slots


def run_suite_on_cluster(
    tasks: list[Task],
    agent: str,
    out: Path,
    *,
    cluster: str,
    template: str | None = None,
    resume: bool = True,
    time_limit: float | None = None,
    progress: Callable[[str], None] = print,
    prompt_level: str = "plain",
    plugin: bool | None = None,
    jobs: int | None = None,  # noqa: ARG001 - the cluster's workers decide the parallelism
    client=None,
    tls: ClusterTLS | None = None,
    insecure: bool = False,
    score_timeout: float | None = None,
    score_memory_gb: float | None = None,
) -> list[TaskScore]:
    """``runner.run_suite`` with every job on a Dask worker; same results layout, same resume."""
    from evals.dask_nodes import RunningJobs
    from evals.harness.limits import SCORE_DEADLINE_S, ScoreLimits
    from evals.harness.runner import agent_dir, already_scored

    distributed = require_dask()
    results, todo = already_scored(tasks, agent_dir(out, agent), resume, prompt_level, progress)
    own = None
    if client is None:
        client, own = open_client(cluster, tls, insecure)
    memory = int(score_memory_gb * 2**30) if score_memory_gb else None  # None: each worker's host decides
    limits = ScoreLimits(total_s=score_timeout or SCORE_DEADLINE_S, memory_bytes=memory)
    options = {"time_limit": time_limit, "prompt_level": prompt_level, "plugin": plugin, "limits": limits}
    run = _ClusterRun(client, distributed, todo, agent, template, options, out, progress, results)
    try:
        client.register_plugin(RunningJobs())  # each worker's running jobs, for a Ctrl-C to stop (cancel_jobs)
        run.drive()
    except (KeyboardInterrupt, Interrupted):  # Ctrl-C, or SIGTERM/SIGHUP (timeout, a batch system): the same stop
        with stops_held():  # a second Ctrl-C while the workers are told cannot cut the cancel or its report off
            run.cancel()
        raise
    finally:
        if own is not None:
            client.close()
            own.close()
    return [results[t.id] for t in tasks]


class _ClusterRun:
    """The driver's state for one suite on a cluster: the jobs it holds back, those submitted (one future per task),
    their attempts and what is done per resource kind.

    The driver holds the jobs and submits one as a slot of its kind frees (a pull queue): submitted all at once, a
    job is placed on a worker when it is submitted, and one GPU's queue can still be full while the other GPU idles
    (2x H200, 2026-11-26). A kind no worker serves yet gets one job, which waits on the scheduler for one."""

    def __init__(self, client, distributed, todo, agent, template, options, out, progress, results):
        self.client, self.distributed = client, distributed
        self.agent, self.template, self.options, self.out, self.progress = agent, template, options, out, progress
        self.results = results  # task id -> TaskScore, filled as jobs finish
        self.by_id = {t.id: t for t in todo}
        self.held = list(todo)
        self.kinds: dict[str, str] = {}  # job key -> resource kind
        self.pending: dict[str, object] = {}  # task id -> future
        self.attempts: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.bar = Progress(progress)

    def drive(self) -> None:
        """Submit, collect and top up until every job is done."""
        self.top_up()
        self.bar.update(self.client, self.pending, self.kinds, self.done, self.held_kinds())
        while self.pending:
            try:  # woken by a finished job, or every 2 s to take workers that joined meanwhile
                finished = self.distributed.wait(
                    list(self.pending.values()), timeout=2, return_when="FIRST_COMPLETED"
                ).done
            except self.distributed.TimeoutError:
                finished = set()
            for fut in finished:
                self.collect(fut)
            if self.held:
                self.top_up()
            self.bar.update(self.client, self.pending, self.kinds, self.done, self.held_kinds())

    def submit(self, t: Task) -> None:
        self.attempts[t.id] = self.attempts.get(t.id, 0) + 1
        key = f"kp-{self.agent}-{t.id}-{self.attempts[t.id]}-{time.time_ns()}"
        res = resources_for(t)
        f = self.client.submit(run_job, t, self.agent, self.template, self.options, key=key, resources=res or None,
                               pure=False)  # fmt: skip
        self.kinds[key] = kind_of(res)
        self.pending[t.id] = f

    def top_up(self) -> None:
        slots = job_slots(self.client)
        busy = Counter(self.kinds[f.key] for f in self.pending.values())
        for t in list(self.held):
            kind = kind_of(resources_for(t))
            if busy[kind] < max(1, slots.get(kind, 0)):
                self.held.remove(t)
                self.submit(t)
                busy[kind] += 1

    def held_kinds(self) -> Counter:
        return Counter(kind_of(resources_for(t)) for t in self.held)

    def collect(self, fut) -> None:
        """A finished job: its score stored and reported, or (a worker lost once) the job queued again."""
        from evals.harness.runner import agent_dir, result_line
        from tools.files import write_atomic

        tid = next(i for i, f in self.pending.items() if f is fut)
        t = self.by_id[tid]
        del self.pending[tid]
        try:
            r = _store(self.out, self.agent, fut.result())
        except Exception as exc:
            lost = isinstance(exc, self.distributed.KilledWorker)
            if lost and self.attempts[tid] < 2:
                self.progress(f"{tid}: its worker was lost; retrying once")
                self.held.insert(0, t)
                return
            # lost twice, or the job itself raised on the worker: the harness's failure, not the agent's
            why = str(exc)[:300] if lost else f"{type(exc).__name__}: {str(exc)[:300]}"
            r = _infra(t, self.agent, why, self.options["prompt_level"])
            if not lost:
                r.infra_error = r.infra_error.replace("the worker running this job was lost twice", "the job raised")
            write_atomic(agent_dir(self.out, self.agent) / f"{tid}.json", r.model_dump_json(indent=1), durable=True)
        kind = self.kinds[fut.key]
        self.done[kind] = self.done.get(kind, 0) + 1
        self.results[tid] = r
        self.progress(result_line(tid, r, kind))

    def cancel(self) -> None:
        """Every outstanding job cancelled; the running ones have their agent/compiler processes stopped on their
        workers, not only their futures."""
        futures = list(self.pending.values())
        stopped = 0
        try:
            stopped = sum(len(v) for v in self.client.run(cancel_jobs, [str(f.key) for f in futures]).values())
        except Exception as exc:  # noqa: BLE001 - a worker that cannot be reached is reported, the rest cancelled
            self.progress(f"[cluster] could not reach every worker to stop its running job: {exc}")
        self.client.cancel(futures, force=True)
        self.progress(
            f"[cluster] interrupted: {len(self.pending)} outstanding jobs cancelled ({stopped} running, their "
            "processes killed); re-run the command to resume"
        )
