"""A fork server for kernelpilot's own Python children: the compilers imported once, each child forked from there.

Every compile, check input build and CPU-engine run is a fresh ``python -m tools...`` child (a kernel file may crash,
exit, hang or fill memory: it must not take the caller with it). Most of such a child's time is importing torch,
Triton and FlyDSL (about 2.5 s of CPU each time on the 2-core machines; the compile itself is often less). A process
that starts many children (the eval scorer, ``check``, the MCP server, the test suite) therefore starts one server
that imports them once and forks a child per request instead: the child runs the same module with the same
arguments, environment, working directory and standard streams, in its own session, as ``subprocess.Popen`` with
``start_new_session=True`` would have started it.

How (Linux only; elsewhere, or with ``KERNELPILOT_FORKSERVER=0``, every child is a plain ``Popen``):

* the server is ``python -m tools.forkserver FD MODULE...`` with one end of a ``socketpair`` as FD — it listens on
  nothing. It imports the modules, then waits. When every holder of the other end has closed it (the process that
  started it exited, however it ended), it kills what it forked and exits.
* a request is a new socketpair: one end and the child's stdout/stderr pipe ends go to the server (``SCM_RIGHTS``)
  over the control socket, the request itself (argv, env, cwd) follows on the request socket. The server forks;
  the child replaces its environment, ``sys.path``, ``sys.argv`` and working directory with the request's and runs
  the module as ``__main__`` (``runpy``). The server answers the pid, and the exit status when the child ends; it
  reaps the child only when the caller says so (``release``), so the child's process group id is never reused
  while the caller may still kill that group.
* ``/proc/<pid>/environ`` of a forked child shows the environment its server was started with, not the request's,
  so the server is started with a placeholder for ``KERNELPILOT_CHILD_MARK`` and the child writes the request's
  token over it in its own environment block (``/proc/self/mem``): ``tools.processes.ProcessTracker`` finds a forked
  child and what it starts by the marker exactly as it finds a Popen child.

One server per interpreter and import environment (``PYTHONPATH`` and the other variables read at start-up): a child
whose request names another ``PYTHONPATH`` gets another server. A module this server did not pre-import is imported
by the child as usual. What is pre-imported is third-party code only (never kernelpilot's, which may be edited while a
long-lived caller runs); a compiler upgraded while a server runs is seen by the next server (a new caller process).
"""

from __future__ import annotations

import array
import atexit
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading

from tools.processes import CHILD_MARK_ENV

ENABLE_ENV = "KERNELPILOT_FORKSERVER"  # "0": plain Popen for every child
# The modules a server imports before it forks (third-party only; a missing one is skipped).
PRELOAD = ("numpy", "torch", "triton", "triton.language", "triton.compiler", "flydsl", "flydsl.compiler")
# The children that may be forked (kernelpilot's own CPU children: none touches a GPU, where fork is unsafe).
FORKABLE = frozenset({"tools.frontends._pyrunner", "tools.check._inputs_child", "tools.check._llvm_child"})
# Variables read when an interpreter starts, by the loader when a preloaded library is mapped, or by a preloaded
# module while it is imported (TRITON_INTERPRET: Triton's own @jit library functions are made interpretable or not
# when triton.language is imported): part of the key, so a child never runs on modules imported under other values.
_STARTUP_PREFIXES = ("PYTHON", "LD_")
_IMPORT_TIME_VARS = frozenset({"TRITON_INTERPRET", "TORCH_DEVICE_BACKEND_AUTOLOAD"})
_MARK_PLACEHOLDER = "0" * 16  # the length of tools.executors.marked_env's token (secrets.token_hex(8))
_READY = b"R"
_MAX_REQUEST = 8 << 20


# ---- the caller's side ----------------------------------------------------------------------------------------------


class ForkedProcess:
    """A child forked by the server, with the parts of ``subprocess.Popen`` that ``tools.executors`` uses: ``pid``,
    ``stdout``/``stderr`` (read ends, binary), ``poll()``, ``wait(timeout)``, ``returncode``; ``release()`` lets the
    server reap it (call it after the last kill of its group)."""

    def __init__(self, pid: int, sock: socket.socket, stdout, stderr) -> None:
        self.pid = pid
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        self._sock = sock
        self._buf = b""
        self._lock = threading.Lock()

    def _read_status(self, timeout: float | None) -> None:
        """Take the exit status from the request socket if it has come (waiting up to ``timeout``; None: forever)."""
        with self._lock:
            if self.returncode is not None:
                return
            self._sock.settimeout(timeout)
            try:
                while b"\n" not in self._buf:
                    data = self._sock.recv(4096)
                    if not data:  # the server died: the child is no longer watched, so it is killed and counted so
                        _kill_group(self.pid)
                        self.returncode = -signal.SIGKILL
                        return
                    self._buf += data
            except (TimeoutError, BlockingIOError):
                return
            except OSError:
                self.returncode = -signal.SIGKILL
                return
            line, _, self._buf = self._buf.partition(b"\n")
            self.returncode = int(json.loads(line)["exit"])

    def poll(self) -> int | None:
        self._read_status(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._read_status(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(f"forked pid {self.pid}", timeout)
        return self.returncode

    def exited(self) -> bool:
        return self.poll() is not None

    def release(self) -> None:
        """Let the server reap the child (it is not reaped before: its group id stays this child's until now)."""
        try:
            self._sock.close()
        except OSError:
            pass


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class ForkServer:
    """The caller's handle on one server (``spawn`` is thread-safe)."""

    def __init__(self, env: dict[str, str]) -> None:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        server_env = {**env, CHILD_MARK_ENV: _MARK_PLACEHOLDER}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tools.forkserver", str(theirs.fileno()), *PRELOAD],
            pass_fds=[theirs.fileno()],
            env=server_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a terminal's Ctrl-C reaches the caller, which ends the server by closing `mine`
        )
        theirs.close()
        self._sock = mine
        self._lock = threading.Lock()
        self._ready = False
        self.broken = False

    def _wait_ready(self) -> None:
        if self._ready:
            return
        self._sock.settimeout(300)
        try:
            got = self._sock.recv(1)
        except OSError:
            got = b""
        self._sock.settimeout(None)
        if got != _READY:
            raise OSError("the fork server ended before it was ready")
        self._ready = True

    def spawn(self, argv: list[str], env: dict[str, str], cwd: str | None, stdout_fd: int | None) -> ForkedProcess:
        """Fork ``argv`` (``[python, -m, MODULE, ...]``) with ``env`` and ``cwd``; stdout to ``stdout_fd`` (a file)
        or a new pipe, stderr to a new pipe. OSError when the server cannot (the caller then uses Popen)."""
        out_r, out_w = (None, stdout_fd) if stdout_fd is not None else os.pipe()
        err_r, err_w = os.pipe()
        req, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            payload = json.dumps({"argv": argv, "env": env, "cwd": cwd}).encode()
            if len(payload) > _MAX_REQUEST:
                raise OSError("request too large for the fork server")
            with self._lock:
                if self.broken:
                    raise OSError("the fork server is gone")
                try:
                    self._wait_ready()
                    fds = array.array("i", [theirs.fileno(), out_w, err_w])
                    self._sock.sendmsg([b"Q"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
                except OSError:
                    self.broken = True
                    raise
            theirs.close()
            theirs = None
            req.sendall(len(payload).to_bytes(8, "big") + payload)
            req.settimeout(60)
            line = b""
            while not line.endswith(b"\n"):
                data = req.recv(256)
                if not data:
                    raise OSError("the fork server did not start the child")
                line += data
            reply = json.loads(line)
            if "pid" not in reply:
                raise OSError(f"the fork server could not start the child: {reply.get('error', reply)}")
        except BaseException:
            for fd in (out_r, err_r):
                if fd is not None:
                    os.close(fd)
            req.close()
            raise
        finally:
            if theirs is not None:
                theirs.close()
            if stdout_fd is None:
                os.close(out_w)
            os.close(err_w)
        stdout = os.fdopen(out_r, "rb", buffering=0) if out_r is not None else None
        return ForkedProcess(int(reply["pid"]), req, stdout, os.fdopen(err_r, "rb", buffering=0))

    def close(self) -> None:
        try:
            self._sock.close()
        finally:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _kill_group(self.proc.pid)
                self.proc.wait()


_SERVERS: dict[tuple, ForkServer] = {}
_SERVERS_LOCK = threading.Lock()


def forkable(argv: list[str]) -> bool:
    """True when ``argv`` is one of kernelpilot's own CPU children run by this interpreter, and forking is on."""
    return (
        len(argv) >= 3
        and argv[0] == sys.executable
        and argv[1] == "-m"
        and argv[2] in FORKABLE
        and sys.platform.startswith("linux")
        and os.environ.get(ENABLE_ENV, "1") != "0"
    )


def _key(env: dict[str, str]) -> tuple:
    return tuple(sorted((k, v) for k, v in env.items() if k.startswith(_STARTUP_PREFIXES) or k in _IMPORT_TIME_VARS))


def spawn(argv: list[str], env: dict[str, str], cwd: str | None, stdout_fd: int | None = None) -> ForkedProcess:
    """Fork ``argv`` from this process's server for ``env`` (started on first use). OSError when it cannot."""
    key = _key(env)
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is None or server.broken or server.proc.poll() is not None:
            if not _SERVERS:
                atexit.register(shutdown)
            server = _SERVERS[key] = ForkServer({k: v for k, v in env.items() if k != CHILD_MARK_ENV})
    return server.spawn(argv, env, cwd, stdout_fd)


def shutdown() -> None:
    """Close every server this process started (they kill what they forked and exit)."""
    with _SERVERS_LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for server in servers:
        server.close()


# ---- the server's side ----------------------------------------------------------------------------------------------


def _recv_request(conn: socket.socket) -> dict:
    conn.settimeout(60)
    head = b""
    while len(head) < 8:
        data = conn.recv(8 - len(head))
        if not data:
            raise OSError("request cut short")
        head += data
    size = int.from_bytes(head, "big")
    if size > _MAX_REQUEST:
        raise OSError("request too large")
    body = bytearray()
    while len(body) < size:
        data = conn.recv(min(1 << 20, size - len(body)))
        if not data:
            raise OSError("request cut short")
        body += data
    return json.loads(body)


def _write_mark(token: str) -> None:
    """Write ``token`` over the marker placeholder in this process's own environment block, where
    ``/proc/<pid>/environ`` reads it (the block the server was exec'd with; see the module's docstring)."""
    needle = f"{CHILD_MARK_ENV}={_MARK_PLACEHOLDER}".encode()
    if len(token) != len(_MARK_PLACEHOLDER):
        return
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[-1].split()
        env_start = int(fields[47])  # field 50 of proc(5); fields[0] is field 3 (the state)
        with open("/proc/self/environ", "rb") as f:
            block = f.read()
        if block.startswith(needle):
            at = 0
        else:
            at = block.find(b"\0" + needle) + 1
            if at == 0:
                return
        with open("/proc/self/mem", "r+b", buffering=0) as mem:
            mem.seek(env_start + at + len(CHILD_MARK_ENV) + 1)
            mem.write(token.encode())
    except (OSError, ValueError, IndexError):
        pass  # the child is still its session's leader: the group kill finds it and what stays in its session


def _child(req: dict, conn: socket.socket, fds: list[int], closing: list, started: int) -> None:
    """In the forked child: become the requested process and run its module; never returns."""
    code = 1
    try:
        for obj in closing:
            try:
                os.close(obj) if isinstance(obj, int) else obj.close()
            except OSError:
                pass
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL if sig != signal.SIGPIPE else signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(fds[1], 1)
        os.dup2(fds[2], 2)
        for fd in {devnull, *fds[1:]} - {0, 1, 2}:
            os.close(fd)
        conn.close()
        env = req["env"]
        _write_mark(env.get(CHILD_MARK_ENV, ""))
        os.close(started)  # the server answers the caller with this pid only now
        if req.get("cwd"):
            os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(env)
        _run_module(req["argv"], env)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int) and exc.code is not None:
            print(exc.code, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()
    else:
        code = 0
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _run_module(argv: list[str], env: dict[str, str]) -> None:
    """``python -m MODULE ARGS`` inside this process: ``sys.path`` as that command would have it (the working
    directory, then ``PYTHONPATH``, then the installation's), the module run as ``__main__``."""
    import runpy

    base = [p for p in sys.path[1:] if p not in _SERVER_PYTHONPATH]
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = [os.getcwd(), *extra, *base]
    sys.argv = [argv[2], *argv[3:]]
    runpy.run_module(argv[2], run_name="__main__", alter_sys=True)


_SERVER_PYTHONPATH: set[str] = set()


def _status(pid: int) -> int | None:
    """The exit status of child ``pid`` as Popen gives it (-N for signal N), None while it runs; not reaped."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return -signal.SIGKILL
    if info is None:
        return None
    return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


def _terminated(signum, frame) -> None:
    raise SystemExit(128 + signum)


def serve(control_fd: int, preload: list[str]) -> None:
    """The server's loop (see the module's docstring)."""
    _SERVER_PYTHONPATH.update(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ends when its caller closes the control socket
    signal.signal(signal.SIGTERM, _terminated)  # or on a kill: what it forked goes with it (the finally below)
    signal.signal(signal.SIGHUP, _terminated)
    for name in preload:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - not installed, or broken: its children import it themselves
            pass
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel = selectors.DefaultSelector()
    sel.register(control, selectors.EVENT_READ, "control")
    sel.register(wake_r, selectors.EVENT_READ, "wake")
    children: dict[int, socket.socket] = {}  # pid -> its request socket (open until the caller releases it)
    exited: set[int] = set()
    control.sendall(_READY)
    try:
        while True:
            for key, _ in sel.select(timeout=1.0):
                if key.data == "control":
                    if not _accept(control, sel, children, [sel, control, wake_r, wake_w]):
                        return
                elif key.data == "wake":
                    try:
                        os.read(wake_r, 4096)
                    except BlockingIOError:
                        pass
                else:  # a request socket: readable means the caller released the child (closed) after its exit
                    pid = key.data
                    try:
                        more = key.fileobj.recv(64)
                    except OSError:
                        more = b""
                    if not more:
                        sel.unregister(key.fileobj)
                        key.fileobj.close()
                        if pid in exited:
                            os.waitpid(pid, 0)
                            del children[pid]
                            exited.discard(pid)
                        else:  # released while running: the caller is gone; nothing of it may outlive it
                            _kill_group(pid)
                            children[pid] = None
            for pid, conn in list(children.items()):
                if pid in exited:
                    continue
                status = _status(pid)
                if status is None:
                    continue
                exited.add(pid)
                if conn is None:  # nobody is waiting: reap now
                    os.waitpid(pid, 0)
                    del children[pid]
                    exited.discard(pid)
                    continue
                try:
                    conn.sendall(json.dumps({"exit": status}).encode() + b"\n")
                except OSError:
                    pass
    finally:
        for pid in children:
            _kill_group(pid)


def _accept(control: socket.socket, sel, children: dict, closing: list) -> bool:
    """Take one request from the control socket and fork its child; False when the caller has gone."""
    try:
        msg, ancdata, _flags, _addr = control.recvmsg(1, socket.CMSG_SPACE(3 * array.array("i").itemsize))
    except OSError:
        return False
    if not msg:
        return False
    fds: list[int] = []
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            got = array.array("i")
            got.frombytes(data[: len(data) - (len(data) % got.itemsize)])
            fds.extend(got)
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        return True
    conn = socket.socket(fileno=fds[0])
    try:
        req = _recv_request(conn)
    except (OSError, ValueError) as exc:
        _reply_error(conn, str(exc), fds)
        return True
    started_r, started_w = os.pipe()  # the child closes it once it leads its own session and carries the marker
    try:
        pid = os.fork()
    except OSError as exc:
        os.close(started_r)
        os.close(started_w)
        _reply_error(conn, str(exc), fds)
        return True
    if pid == 0:
        os.close(started_r)
        _child(req, conn, fds, [*closing, *(c for c in children.values() if c is not None)], started_w)
    os.close(started_w)
    os.read(started_r, 1)  # returns when the child closed it (or died): a group kill from now on reaches it
    os.close(started_r)
    os.close(fds[1])
    os.close(fds[2])
    children[pid] = conn
    conn.setblocking(True)
    try:
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except OSError:
        pass
    conn.setblocking(False)
    sel.register(conn, selectors.EVENT_READ, pid)
    return True


def _reply_error(conn: socket.socket, message: str, fds: list[int]) -> None:
    try:
        conn.sendall(json.dumps({"error": message}).encode() + b"\n")
    except OSError:
        pass
    conn.close()
    os.close(fds[1])
    os.close(fds[2])


if __name__ == "__main__":
    serve(int(sys.argv[1]), sys.argv[2:])
