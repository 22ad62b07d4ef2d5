"""Eval runs on Dask: the amd-static track through `--cluster local:2` gives the single-host verdicts,
a worker lost mid-job is retried once (and a second loss is an infrastructure failure, not the agent's), and the
Slurm job script is generated without submitting anything."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from evals.catalog import load_tasks
from evals.cluster import resources_for, restore_host_env, run_suite_on_cluster
from evals.cluster_workers import slurm_cluster, worker_commands
from evals.models import TaskScore

ROOT = Path(__file__).resolve().parents[1]
KILLER = ROOT / "tests" / "data" / "kill_worker_agent.py"
SLEEPER = ROOT / "tests" / "data" / "sleepy_agent.py"
QUIET = {"progress": lambda m: None}


def test_jobs_ask_for_a_gpu_of_their_arch_or_for_nothing():
    (gpu,) = load_tasks(["matmul-tiling"])
    (cpu,) = load_tasks(["vgpr-spill-row-norm"])
    assert resources_for(gpu) == {"GPU": 1, "sm_90": 1}
    assert resources_for(cpu) == {}


def test_eval_worker_starts_one_pinned_worker_per_gpu_advertising_its_arch():
    # two jobs per GPU, as the single-host runner: the next job's CPU phases overlap this one's GPU phase
    cmds = worker_commands("tcp://head:8786", ["0", "3"], "gfx942", "node7")
    assert [env["HIP_VISIBLE_DEVICES"] for _, env in cmds] == ["0", "3"]
    assert [env["CUDA_VISIBLE_DEVICES"] for _, env in cmds] == ["0", "3"]
    argv, env = cmds[1]
    assert argv[argv.index("--resources") + 1] == "GPU=2,gfx942=2"
    assert argv[argv.index("--name") + 1] == "kp-node7-gpu3"
    assert argv[argv.index("--nthreads") + 1] == "2"
    ((one, _),) = worker_commands("tcp://head:8786", ["1"], "sm_90", "node7", jobs_per_gpu=1)
    assert one[one.index("--nthreads") + 1] == "1" and one[one.index("--resources") + 1] == "GPU=1,sm_90=1"
    assert env["DASK_DISTRIBUTED__WORKER__DAEMON"] == "False"  # scoring starts processes of its own
    # no HTTP server in the worker (Dask starts an unauthenticated one otherwise): our worker class, which resolves
    assert argv[argv.index("--worker-class") + 1] == "evals.dask_nodes.QuietWorker" and "--no-dashboard" in argv
    import importlib

    pytest.importorskip("distributed", reason="pip install 'kernelpilot[cluster]'")
    assert importlib.import_module("evals.dask_nodes").QuietWorker.__name__ == "QuietWorker"
    # a host without a GPU serves CPU (amd-static) jobs with one worker and no GPU resource
    ((argv, _),) = worker_commands("tcp://head:8786", [], None, "node7")
    assert "--resources" not in argv


def test_slurm_job_script_takes_a_gpu_node_and_runs_one_worker_per_gpu(tmp_path):
    pytest.importorskip("dask_jobqueue", reason="pip install 'kernelpilot[cluster]'")
    from evals.certs import make_certs
    from evals.cluster import ClusterTLS

    f = make_certs(tmp_path / "certs", ["head"])
    tls = ClusterTLS(f["ca.pem"], f["member.pem"], f["member.key"])
    cluster = slurm_cluster("gpu-h100", gpus_per_node=4, arch="sm_90", account="kp", tls=tls)
    try:
        script = cluster.job_script()
        assert cluster.scheduler.services == {}  # the login node's scheduler serves no HTTP (it did on :8787)
    finally:
        cluster.close()
    assert "#SBATCH -p gpu-h100" in script
    assert "#SBATCH -A kp" in script
    assert "#SBATCH --gres=gpu:4" in script
    assert "#SBATCH --cpus-per-task=32" in script  # 8 CPU cores per GPU for agents and compilers
    assert script.count("--cpus-per-task") == 1
    assert "--nworkers 4" in script and "--nthreads 2" in script
    assert "--resources GPU=2,sm_90=2" in script
    assert "export KP_SLOT_FROM_NAME=1" in script  # each worker takes the GPU of its number
    assert "export DASK_DISTRIBUTED__WORKER__DAEMON=False" in script
    assert "tls://" in script and f"--tls-cert {f['member.pem']}" in script  # workers dial the scheduler over TLS
    assert "--no-dashboard --worker-class evals.dask_nodes.QuietWorker" in script  # and serve no HTTP


def test_slurm_without_tls_is_refused_unless_insecure():
    pytest.importorskip("dask_jobqueue", reason="pip install 'kernelpilot[cluster]'")
    from tools.errors import InputError

    with pytest.raises(InputError, match="needs TLS"):
        slurm_cluster("gpu-h100", gpus_per_node=1)
    slurm_cluster("gpu-h100", gpus_per_node=1, insecure=True).close()


def test_cluster_option_without_dask_says_how_to_install_it(tmp_path):
    code = "import sys; sys.modules['distributed'] = None\nfrom tools.cli import main\nsys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, "eval", "run", "--agent", "noop", "--tasks", "vgpr-spill-row-norm",
         "--out", str(tmp_path), "--cluster", "local:2"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert proc.returncode != 0
    assert "--cluster needs Dask distributed, which is not installed" in proc.stderr
    assert "pip install 'kernelpilot[cluster]'" in proc.stderr
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.fixture(scope="module")
def client():
    from evals.cluster import open_client

    c, cluster = open_client("local:2")  # what `--cluster local:2` starts
    yield c
    c.close()
    cluster.close()


INTRUDER = ROOT / "tests" / "data" / "dask_intruder.py"


def _port(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


@pytest.mark.slow
def test_local_cluster_refuses_every_other_local_process_and_serves_no_http(client, tmp_path):
    import json
    import operator
    import os

    import psutil

    from evals.certs import make_certs

    assert client.scheduler.address.startswith("tls://127.0.0.1:")
    workers = client.scheduler_info()["workers"]
    comm = {_port(a) for a in workers} | {_port(w["nanny"]) for w in workers.values()}
    # each worker process listens on exactly its TLS comm port: no HTTP server (Dask starts one in every worker,
    # and one on 127.0.0.1:8787 for the scheduler, even with dashboard_address=None); the scheduler and the nannies
    # live in this process: none of them has an HTTP service
    for address, pid in client.run(os.getpid).items():
        conns = psutil.Process(pid).net_connections("tcp")
        assert {c.laddr.port for c in conns if c.status == psutil.CONN_LISTEN} == {_port(address)}
    assert client.run(lambda dask_worker: dict(dask_worker.services)) == dict.fromkeys(workers, {})
    assert client.run_on_scheduler(lambda dask_scheduler: dict(dask_scheduler.services)) == {}
    # another local process: no way in at the scheduler, the nannies or the workers
    other = make_certs(tmp_path / "other-ca", ["localhost"])["ca.pem"].parent
    ports = [_port(client.scheduler.address), *sorted(comm)]
    proc = subprocess.run(
        [sys.executable, str(INTRUDER), client.scheduler.address, str(other), *map(str, ports)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["tcp"].startswith("refused") and got["tls with another CA's certificate"].startswith("refused"), got
    for port in ports:
        assert got["ports"][str(port)]["http"] == "", (port, got)  # no HTTP answer, nor any bytes
        assert got["ports"][str(port)]["tls without certificate"].startswith("refused at the TLS handshake"), got
    # while the harness's own client runs code on the workers as before
    assert client.submit(operator.add, 1, 1, pure=False).result(timeout=60) == 2


# Triton with CPU correctness, FlyDSL with the llvm-cpu oracle, a prefetch and a spill task: every scoring path the
# amd-static track has, on 2 workers (the whole track through the cluster would add ~15 min to CI on 2 cores).
CLUSTER_TASKS = [
    "vgpr-spill-row-norm",
    "barrier-load-hoist",
    "flydsl-fold-block-accumulators",
    "flydsl-gemv-int8-prefetch",
]


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["reference", "noop"])
def test_amd_static_track_on_local_2_equals_the_single_host_run(client, tmp_path, agent):
    tasks = load_tasks(CLUSTER_TASKS)
    there = run_suite_on_cluster(tasks, agent, tmp_path / "dask", cluster="local:2", client=client, **QUIET)
    # the single-host verdicts are pinned by tests/test_eval_suite.py: reference passes every amd-static task and
    # noop fails every one (scoring the track twice more here would double the cost of this test on 2 cores)
    assert [(s.task_id, s.passed) for s in there] == [(t.id, agent == "reference") for t in tasks]
    # the driver wrote the usual layout: score, diff and agent log per task
    for s in there:
        stored = TaskScore.model_validate_json((tmp_path / "dask" / agent / f"{s.task_id}.json").read_text())
        assert stored.passed == s.passed
        assert (tmp_path / "dask" / agent / s.task_id / "agent.log").is_file()
        assert (tmp_path / "dask" / agent / s.task_id / "change.patch").is_file()
        # where the scoring's time went, stage by stage, as the worker's scoring process reported it
        assert stored.stage_seconds == s.stage_seconds and {"starting", "static checks"} <= set(s.stage_seconds)
        assert abs(sum(s.stage_seconds.values()) - s.seconds) < max(15.0, 0.5 * s.seconds)


@pytest.mark.slow
def test_a_worker_killed_mid_job_is_retried_once_and_the_job_completes(client, tmp_path):
    tasks = load_tasks(["vgpr-spill-row-norm"])
    counter = tmp_path / "starts"
    template = f"{sys.executable} {KILLER} {{workspace}} {{task_id}} {counter} 1"
    (s,) = run_suite_on_cluster(
        tasks, "killer", tmp_path / "out", cluster="x", client=client, template=template, **QUIET
    )
    assert counter.read_text() == "2"  # started twice: killed with its worker, then retried
    assert s.passed and s.infra_error is None, s.reasons


@pytest.mark.slow
def test_a_job_whose_worker_is_lost_twice_is_an_infrastructure_failure(client, tmp_path):
    tasks = load_tasks(["vgpr-spill-row-norm"])
    counter = tmp_path / "starts"
    template = f"{sys.executable} {KILLER} {{workspace}} {{task_id}} {counter} 2"
    (s,) = run_suite_on_cluster(
        tasks, "killer", tmp_path / "out", cluster="x", client=client, template=template, **QUIET
    )
    assert counter.read_text() == "2"
    assert not s.passed and not s.complete
    assert s.infra_error.startswith("the worker running this job was lost twice")
    assert s.reasons[0].endswith("(not the agent's failure; re-run the task)")
    # a re-run resumes: the infrastructure failure is not kept as a result, the job runs again (and now succeeds)
    (again,) = run_suite_on_cluster(
        tasks, "killer", tmp_path / "out", cluster="x", client=client, template=template, **QUIET
    )
    assert counter.read_text() == "3" and again.passed


@pytest.mark.slow
def test_a_local_worker_lost_again_and_again_comes_back(client):
    import os
    import signal

    # kill worker 0 each time it re-registers, for longer than LocalCluster's 15 s lost-worker window: by default the
    # cluster then closes that worker's nanny for good (CI lost a worker this way between the tests below)
    # the kills span the window and number at least 5 however slowly a loaded machine restarts the worker (a fixed
    # 18 s saw only 2 restarts under load): the window is what the nanny judges, the count what the test claims
    killed: set[str] = set()
    start = time.monotonic()
    while (time.monotonic() - start < 18 or len(killed) < 5) and time.monotonic() - start < 180:
        addr = next((a for a, w in client.scheduler_info()["workers"].items() if w["name"] == 0), None)
        if addr and addr not in killed:
            killed.add(addr)
            try:
                (pid,) = client.run(os.getpid, workers=[addr]).values()
                os.kill(pid, signal.SIGKILL)
            except Exception:  # noqa: BLE001 - it died between the listing and the call
                pass
        time.sleep(0.05)
    assert len(killed) >= 5
    client.wait_for_workers(2, timeout=90)
    assert sorted(w["name"] for w in client.scheduler_info()["workers"].values()) == [0, 1]


def _job_keys(dask_scheduler) -> list[str]:
    return [str(k) for k in dask_scheduler.tasks if str(k).startswith("kp-sleepy-")]


def _placement(dask_scheduler) -> dict:
    return {
        str(ws.address): {"status": str(ws.status), "processing": [str(t.key) for t in ws.processing]}
        for ws in dask_scheduler.workers.values()
    }


def _stories(dask_scheduler) -> dict:
    """The scheduler's log of each sleepy job (its transitions, with the workers they happened on)."""
    return {k: [str(e)[:300] for e in dask_scheduler.story(k)] for k in _job_keys(dask_scheduler)}


def _worker_view(dask_worker) -> dict:
    """On a worker: its sleepy jobs' states and the stack of every thread (what a job that never started its agent
    was doing)."""
    import os
    import threading
    import traceback

    frames = sys._current_frames()
    stacks = {str(t.name): "".join(traceback.format_stack(frames[t.ident])[-12:]) for t in threading.enumerate()
              if t.ident in frames}  # fmt: skip
    jobs = {str(k): str(ts.state) for k, ts in dask_worker.state.tasks.items() if str(k).startswith("kp-sleepy-")}
    return {"pid": os.getpid(), "jobs": jobs, "threads": stacks}


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_ctrl_c_on_the_driver_kills_the_running_agents_on_the_workers_which_stay_usable(client, tmp_path):
    import _thread
    import signal
    import threading

    ids = ["vgpr-spill-row-norm", "barrier-load-hoist", "flydsl-fold-block-accumulators"]
    pids = tmp_path / "pids"
    pids.mkdir()
    template = f"{sys.executable} {SLEEPER} {pids} {{task_id}}"
    on_scheduler: list[list[str]] = []

    def interrupt_once_both_agents_run():
        deadline = time.monotonic() + 120
        while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        if len(list(pids.iterdir())) < 2:  # the intermittent failure (cause not found yet): what each side knew
            import cloudpickle

            cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test file
            on_scheduler.append({"stories": client.run_on_scheduler(_stories), "workers": client.run(_worker_view)})
        # the driver has seen both running (its progress line; a tick whose scheduler query failed prints nothing
        # new, so a fixed sleep raced it on a loaded machine), then one more 2 s tick: a third job would have
        # reached the scheduler by now
        while running_line not in said and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2.5)
        on_scheduler.append(client.run_on_scheduler(_job_keys))
        on_scheduler.append(client.run_on_scheduler(_placement))
        _thread.interrupt_main()  # what Ctrl-C does to the driver

    client.wait_for_workers(2, timeout=90)  # a worker killed by the tests above is restarted by its nanny
    said: list[str] = []
    running_line = "[cluster] cpu: 1 queued, 2 running, 0 done"
    # Python's own Ctrl-C handler, whatever an earlier test left installed (dask_jobqueue's runner installs one that
    # exits): the driver must see the KeyboardInterrupt a user's Ctrl-C raises
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt_once_both_agents_run, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            run_suite_on_cluster(
                load_tasks(ids), "sleepy", tmp_path / "out", cluster="x", client=client, template=template,
                progress=said.append,
            )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, previous)
    agents = sorted(int(p.read_text()) for p in pids.iterdir())
    if len(agents) != 2:  # the intermittent failure: everything both sides knew, in full (an assertion's repr is cut)
        import json

        print(json.dumps({"said": said, "on_scheduler": on_scheduler}, indent=1, default=str))
    assert len(agents) == 2, (said, on_scheduler)  # one agent was running on each of the two workers
    # the driver holds the third job until a slot frees (a pull queue): the scheduler never saw it
    assert len(on_scheduler[0]) == 2 and sum(any(f"-{i}-" in k for k in on_scheduler[0]) for i in ids) == 2
    assert running_line in said
    assert said[-1].startswith(
        "[cluster] interrupted: 2 outstanding jobs cancelled (2 running, their processes killed)"
    )
    # each agent would sleep 300 s: both are gone within seconds, killed with their process group on the worker
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in agents) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in agents)
    assert not any((tmp_path / "out" / "sleepy" / f"{i}.json").exists() for i in ids)  # nothing scored
    # the workers' threads were handed back: a new run is scheduled on them and completes
    (s,) = run_suite_on_cluster(
        load_tasks(["vgpr-spill-row-norm"]), "reference", tmp_path / "again", cluster="x", client=client, **QUIET
    )
    assert s.passed, s.reasons


@pytest.mark.slow
def test_eval_worker_joins_the_scheduler_and_its_workers_stop_with_it():
    distributed = pytest.importorskip("distributed", reason="pip install 'kernelpilot[cluster]'")
    import os
    import signal
    import socket

    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            env = {**os.environ, "PYTHONPATH": str(ROOT), "KERNELPILOT_EVAL_FORCE_CPU": "1"}  # this host: no GPU
            env["OMP_NUM_THREADS"] = "3"  # this host's choice, which its scorings must get, not the nanny's 1
            env.pop("MALLOC_TRIM_THRESHOLD_", None)
            proc = subprocess.Popen(
                [sys.executable, "-m", "tools.cli", "eval", "worker", "--scheduler", cluster.scheduler_address],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            try:
                c.wait_for_workers(1, timeout=90)
                (info,) = c.scheduler_info()["workers"].values()
                assert info["name"] == f"kp-{socket.gethostname()}-cpu"  # a CPU host serves amd-static jobs
                assert info["nthreads"] == 1
                # the nanny sets these where this host left them unset (OMP_NUM_THREADS=1, the glibc trim
                # threshold); a job unsets them again before it starts any scoring or kernel process (their torch
                # would otherwise compare large outputs on one core); what the host set itself is left alone
                (wid,) = c.run(os.getpid)
                assert c.run(lambda dask_worker: dict(dask_worker.services)) == {wid: {}}  # no HTTP server
                assert c.run(os.getenv, "MALLOC_TRIM_THRESHOLD_") == {wid: "65536"}
                unset = {k: None for k in ("MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS") if k not in env}
                assert c.run(restore_host_env) == {wid: {"MALLOC_TRIM_THRESHOLD_": None, **unset}}
                assert c.run(os.getenv, "MALLOC_TRIM_THRESHOLD_") == {wid: None}
                assert c.run(os.getenv, "OMP_NUM_THREADS") == {wid: "3"}
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)
            deadline = time.monotonic() + 30
            while c.scheduler_info()["workers"] and time.monotonic() < deadline:
                time.sleep(0.5)
            assert c.scheduler_info()["workers"] == {}  # the worker did not outlive `eval worker`


def test_without_the_mark_a_worker_unsets_only_what_still_holds_the_nannys_values(monkeypatch):
    pytest.importorskip("dask", reason="pip install 'kernelpilot[cluster]'")
    # a Slurm job's worker: no mark of the host's values; the nanny's exact values are taken to be the nanny's
    monkeypatch.delenv("KP_HOST_ENV", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("MKL_NUM_THREADS", "4")  # set by someone else: kept
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert restore_host_env() == {"OMP_NUM_THREADS": None, "MALLOC_TRIM_THRESHOLD_": None}
    import os

    assert "OMP_NUM_THREADS" not in os.environ and os.environ["MKL_NUM_THREADS"] == "4"


def test_job_slots_count_each_architectures_resource_and_the_cpu_threads():
    distributed = pytest.importorskip("distributed", reason="pip install 'kernelpilot[cluster]'")
    from evals.cluster import job_slots

    # two workers as `eval worker` starts them on a 2-GPU sm_90 host: two jobs per GPU
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=2, processes=False, resources={"GPU": 2, "sm_90": 2}, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as c:  # fmt: skip
        assert job_slots(c) == {"cpu": 4, "GPU sm_90": 4}
