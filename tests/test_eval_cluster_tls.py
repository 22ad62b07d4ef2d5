"""A TLS eval cluster: a scheduler and a worker with certificates from `eval certs`, two amd-static tasks
scored through them by the CLI, a worker without the certificate refused, and a plain non-loopback address refused
before any connection is made."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools.cli import main
from tools.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("distributed", reason="pip install 'kernelpilot[cluster]'")


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}


def _start(argv: list[str], log: Path) -> subprocess.Popen:
    with log.open("w") as f:
        return subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=_env(), start_new_session=True)


def _stop(*procs: subprocess.Popen) -> None:
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def _workers(address: str, tls) -> int:
    import distributed

    with distributed.Client(address, security=tls.security(), timeout=30) as c:
        return len(c.scheduler_info()["workers"])


def test_a_plain_address_that_is_not_loopback_is_refused_before_connecting(tmp_path):
    from evals.cluster import scheduler_address

    # a documentation address (TEST-NET-3): refused by the check itself, no packet is sent
    with pytest.raises(InputError, match="refusing a plain-TCP Dask scheduler at 203.0.113.7"):
        scheduler_address("tcp://203.0.113.7:8786", None)
    assert scheduler_address("tcp://203.0.113.7:8786", None, insecure=True) == "tcp://203.0.113.7:8786"
    assert scheduler_address("tcp://127.0.0.1:8786", None) == "tcp://127.0.0.1:8786"
    with pytest.raises(InputError, match="no certificates were given"):
        scheduler_address("tls://127.0.0.1:8786", None)
    rc = main(["eval", "run", "--agent", "noop", "--tasks", "barrier-load-hoist", "--out", str(tmp_path / "o"),
               "--cluster", "tcp://203.0.113.7:8786"])  # fmt: skip
    assert rc == 2 and not (tmp_path / "o").exists()  # refused before any work
    rc = main(["eval", "worker", "--scheduler", "tcp://203.0.113.7:8786"])
    assert rc == 2


def test_certs_refuses_to_replace_a_clusters_certificates(tmp_path, capsys):
    assert main(["eval", "certs", str(tmp_path / "c")]) == 0
    assert oct((tmp_path / "c" / "member.key").stat().st_mode & 0o777) == "0o600"
    assert main(["eval", "certs", str(tmp_path / "c")]) == 2
    assert "refusing to replace" in capsys.readouterr().err


@pytest.mark.slow
def test_tls_cluster_scores_two_tasks_and_refuses_a_worker_without_the_certificate(tmp_path, capsys):
    from evals.certs import make_certs
    from evals.cluster import ClusterTLS

    f = make_certs(tmp_path / "certs", ["localhost"])
    tls = ClusterTLS(f["ca.pem"], f["member.pem"], f["member.key"])
    sched_file = tmp_path / "scheduler.json"
    scheduler = _start(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--protocol", "tls", "--host", "127.0.0.1",
         "--port", "0", "--dashboard-address", ":0", "--scheduler-file", str(sched_file), *tls.worker_args()],
        tmp_path / "scheduler.log",
    )  # fmt: skip
    procs = [scheduler]
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tls://127.0.0.1:")
        worker = _start(
            [sys.executable, "-m", "tools.cli", "eval", "worker", "--scheduler", address, *tls.worker_args()],
            tmp_path / "worker.log",
        )
        procs.append(worker)
        while _workers(address, tls) < 1 and time.monotonic() < deadline + 60:
            time.sleep(0.5)
        assert _workers(address, tls) == 1
        # a worker with no certificate: the TLS handshake fails, it never joins
        plain = _start(
            [sys.executable, "-m", "distributed.cli.dask_worker", address.replace("tls://", "tcp://"),
             "--nthreads", "1", "--death-timeout", "15"],
            tmp_path / "plain.log",
        )  # fmt: skip
        procs.append(plain)
        # a worker with a certificate from ANOTHER CA: refused at the handshake too
        g = make_certs(tmp_path / "other", ["localhost"])
        rogue = _start(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--death-timeout",
             "15", "--tls-ca-file", str(g["ca.pem"]), "--tls-cert", str(g["member.pem"]), "--tls-key",
             str(g["member.key"])],
            tmp_path / "rogue.log",
        )  # fmt: skip
        procs.append(rogue)
        out = tmp_path / "runs"
        rc = main(["eval", "run", "--agent", "reference", "--tasks", "barrier-load-hoist,vgpr-spill-row-norm",
                   "--out", str(out), "--cluster", address, *tls.worker_args()])  # fmt: skip
        assert rc == 0, capsys.readouterr()
        for tid in ("barrier-load-hoist", "vgpr-spill-row-norm"):
            assert json.loads((out / "reference" / f"{tid}.json").read_text())["passed"] is True
        assert plain.wait(timeout=60) != 0 and rogue.wait(timeout=60) != 0  # both gave up: never admitted
        assert _workers(address, tls) == 1
    finally:
        _stop(*procs)
