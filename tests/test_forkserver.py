"""The fork server (tools/forkserver.py): a forked child is the process ``python -m MODULE`` would have been — its
arguments, environment, working directory, ``sys.path``, streams, exit status and session — it is found by the
command's marker like a Popen child, it is killed on timeout, and nothing the server started outlives its caller."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tools import executors, forkserver
from tools.processes import CHILD_MARK_ENV

PROBE = textwrap.dedent(
    """
    import json, os, sys
    if sys.argv[1:2] == ["report"]:
        print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "path0": sys.path[0], "pp": sys.path[1],
                          "env": os.environ.get("KP_PROBE"), "sid": os.getsid(0), "pid": os.getpid(),
                          "main": __name__, "torch_preloaded": "torch" in sys.modules}))
        print("to stderr", file=sys.stderr)
        sys.exit(7)
    if sys.argv[1:2] == ["kill"]:
        os.kill(os.getpid(), 9)
    if sys.argv[1:2] == ["sleep"]:
        import time
        time.sleep(60)
    if sys.argv[1:2] == ["daemon"]:  # os.fork + setsid: leaves the group and the parent-child walk
        import time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                open(sys.argv[2], "w").write(str(os.getpid()))
                time.sleep(60)
            os._exit(0)
        time.sleep(1)
        os._exit(0)
    if sys.argv[1:2] == ["raise"]:
        raise ValueError("probe failed on purpose")
    """
)


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """A module ``kp_fork_probe`` in ``tmp_path``, forkable by run_process for this test."""
    (tmp_path / "kp_fork_probe.py").write_text(PROBE)
    monkeypatch.setattr(forkserver, "FORKABLE", forkserver.FORKABLE | {"kp_fork_probe"})
    return tmp_path


def _run(probe: Path, *args, timeout=60, env=None):
    env = {**os.environ, "KP_PROBE": "seen", "PYTHONPATH": str(probe / "pp"), **(env or {})}
    return executors.run_process([sys.executable, "-m", "kp_fork_probe", *args], timeout=timeout, env=env, cwd=probe)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_a_forked_child_is_the_process_python_m_would_have_been(probe):
    import json

    res = _run(probe, "report", "a b")
    assert res.returncode == 7
    got = json.loads(res.stdout)
    assert got["argv"] == ["report", "a b"]
    assert got["cwd"] == str(probe) and got["path0"] == str(probe) and got["pp"] == str(probe / "pp")
    assert got["env"] == "seen" and got["main"] == "__main__"
    assert got["sid"] == got["pid"]  # its own session, as start_new_session=True gives
    assert got["torch_preloaded"]  # forked from the server, not started afresh
    assert res.stderr.strip().endswith("to stderr")
    assert got["pid"] != os.getpid() and not _alive(got["pid"])


def test_a_forked_child_killed_by_a_signal_reads_as_popen_does(probe):
    assert _run(probe, "kill").returncode == -signal.SIGKILL


def test_an_exception_in_the_module_is_printed_and_exits_1(probe):
    res = _run(probe, "raise")
    assert res.returncode == 1 and "ValueError: probe failed on purpose" in res.stderr


def test_a_forked_child_past_its_timeout_is_killed(probe):
    t0 = time.monotonic()
    res = _run(probe, "sleep", timeout=1.5)
    assert res.timed_out and time.monotonic() - t0 < 20


def test_a_daemon_forked_by_a_forked_child_carries_the_marker_and_is_swept(probe):
    pidfile = probe / "daemon.pid"
    res = _run(probe, "daemon", str(pidfile))
    pid = int(pidfile.read_text())
    assert any("kp_fork_probe" in cmd or "forkserver" in cmd for cmd in res.leftover_processes), res
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_the_marker_in_proc_environ_is_the_commands_token(probe):
    pidfile = probe / "daemon.pid"
    token = "0123456789abcdef"
    env = {**os.environ, "PYTHONPATH": str(probe), CHILD_MARK_ENV: token}
    proc = forkserver.spawn([sys.executable, "-m", "kp_fork_probe", "daemon", str(pidfile)], env, str(probe))
    try:
        deadline = time.monotonic() + 30
        while not pidfile.exists() or not pidfile.read_text():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        pid = int(pidfile.read_text())
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert f"{CHILD_MARK_ENV}={token}".encode() in environ
        executors.sweep(token)  # SIGKILL sent: it lands asynchronously
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid)
    finally:
        proc.wait(timeout=30)
        proc.release()


def test_with_the_server_off_the_child_is_a_plain_popen(probe, monkeypatch):
    import json

    monkeypatch.setenv(forkserver.ENABLE_ENV, "0")
    got = json.loads(_run(probe, "report").stdout)
    assert not got["torch_preloaded"]


def test_the_server_and_its_children_die_with_their_caller(tmp_path):
    """A caller killed by SIGKILL (no clean-up runs) leaves neither its server nor the child it was running."""
    (tmp_path / "kp_fork_probe.py").write_text(PROBE)
    caller = tmp_path / "caller.py"
    caller.write_text(
        textwrap.dedent(
            f"""
            import os, sys
            sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
            from tools import forkserver
            env = {{**os.environ, "PYTHONPATH": {str(tmp_path)!r}}}
            proc = forkserver.spawn([sys.executable, "-m", "kp_fork_probe", "sleep"], env, {str(tmp_path)!r})
            server = next(iter(forkserver._SERVERS.values())).proc.pid
            print(server, proc.pid, flush=True)
            import time
            time.sleep(60)
            """
        )
    )
    p = subprocess.Popen([sys.executable, str(caller)], stdout=subprocess.PIPE, text=True)
    try:
        server, child = (int(x) for x in p.stdout.readline().split())
        assert _alive(server) and _alive(child)
        p.kill()
        p.wait()
        deadline = time.monotonic() + 10
        while (_alive(server) or _alive(child)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child) and not _alive(server)
    finally:
        p.kill()
        p.wait()


def test_a_server_killed_by_sigterm_takes_its_children_and_the_caller_sees_them_killed(probe):
    env = {**os.environ, "PYTHONPATH": str(probe)}
    proc = forkserver.spawn([sys.executable, "-m", "kp_fork_probe", "sleep"], env, str(probe))
    server = forkserver._SERVERS[forkserver._key(env)].proc
    server.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == -signal.SIGKILL
    proc.release()
    assert server.wait(timeout=20) == 128 + signal.SIGTERM
    assert not _alive(proc.pid)
