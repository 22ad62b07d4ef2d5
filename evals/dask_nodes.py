"""Dask scheduler, worker and nanny classes for the clusters the harness starts: the same nodes without their HTTP
server; and the worker plugin that holds each worker's running jobs (``RunningJobs``).

A Dask scheduler or worker always starts an HTTP server, also with ``dashboard_address=None`` (``Node.
start_http_server``: the routes of ``distributed.scheduler.http.routes`` — cluster and worker info, call stacks,
logs, a proxy — on 8787 or the next free port, plain HTTP, no authentication); only the Bokeh pages are left out.
Nothing of ours reads it, so these classes keep the (empty) application Dask's code expects and listen nowhere:
the only ports a cluster of ours opens are its TLS comm ports. Imported by worker processes by name
(``--worker-class evals.dask_nodes.QuietWorker``), so this module imports Dask at the top and nothing heavy else.
"""

from __future__ import annotations

from distributed import Nanny, Scheduler, Worker, WorkerPlugin
from distributed.http.routing import RoutingApplication


class _NoHTTP:
    def start_http_server(self, routes, dashboard_address, default_port=0, ssl_options=None):  # noqa: ARG002
        self.http_application = RoutingApplication([])  # read when services stop; no server, no port


class QuietScheduler(_NoHTTP, Scheduler):
    """A scheduler that opens only its comm port."""


class QuietWorker(_NoHTTP, Worker):
    """A worker that opens only its comm port."""


class QuietNanny(Nanny):
    """A nanny whose worker process is a ``QuietWorker``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("worker_class", QuietWorker)
        super().__init__(*args, **kwargs)


class RunningJobs(WorkerPlugin):
    """Per-worker state of an eval cluster: the jobs running on this worker (job key -> ident of the thread running
    it), written by ``evals.cluster.run_job`` and read by ``cancel_jobs``. ``run_suite_on_cluster`` registers it, so
    every worker, also one that joins or restarts later, sets up its own."""

    name = "kp-running-jobs"
    idempotent = True  # a second driver on the same cluster keeps the first one's running jobs

    def setup(self, worker) -> None:  # noqa: ARG002 - the state is this worker's: the plugin is copied to each
        self.threads: dict[str, int] = {}
