"""Where commands run: this machine, an ssh host, or a docker container.

Every subprocess in kernelpilot goes through here: argument lists (never shell strings), a deadline on the whole call
(pipe draining included), output capped (head + tail kept, the size left out stated), and when the call ends, for any
reason, the whole process group is killed (each command starts its own session), and so is every process that left
it but carries the command's marker in its environment (a ``setsid`` or daemonised grandchild: ``tools.processes``). The CLI turns SIGTERM/SIGHUP into
``tools.errors.Interrupted``, which unwinds through ``run_process`` like Ctrl-C, so that clean-up runs.
"""

from __future__ import annotations

import os
import secrets
import selectors
import shlex
import signal
import subprocess
import tarfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from tools import forkserver
from tools.errors import Cancelled, ToolchainError
from tools.forkserver import ForkedProcess
from tools.processes import CHILD_MARK_ENV, ProcessTracker

MAX_CAPTURE_BYTES = 32 * 1024 * 1024  # per stream: room for a large kernel's SASS listing, still bounded
CAPTURE_HEAD_FRACTION = 0.25


_CANCELLED: set[int] = set()  # idents of threads whose commands must stop (cancel_thread / release_thread)


def cancel_thread(ident: int) -> None:
    """Cancel the job running in thread ``ident``: its command in flight (``run_process``) is killed with its
    process group within ~0.1 s and raises ``Cancelled``, and so does every later command until ``release_thread``.
    Thread-safe (a set add); called from another thread, e.g. a Dask worker's handler of a driver's Ctrl-C."""
    _CANCELLED.add(ident)


def release_thread(ident: int) -> None:
    """Let thread ``ident`` run commands again (its cancelled job has unwound)."""
    _CANCELLED.discard(ident)


def _check_cancelled(argv: Sequence[str]) -> None:
    if threading.get_ident() in _CANCELLED:
        raise Cancelled(f"cancelled while running {argv[0] if argv else 'a command'}")


def thread_cancelled() -> bool:
    """True when the calling thread's job was cancelled (``cancel_thread``): for waits that are not a command,
    e.g. on a scoring process, which must stop as ``run_process`` does."""
    return threading.get_ident() in _CANCELLED


class RunResult(BaseModel):
    """What a finished command left behind (stdout/stderr capped: head and tail kept, the size left out stated)."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    # command lines of processes that had left the command's process group (setsid, daemonised) and were killed
    leftover_processes: list[str] = []

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def signal_name(self) -> str | None:
        """``SIGSEGV`` when the process was killed by a signal (returncode -11), else None."""
        if self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


class _Capture:
    """Keeps the first ``head`` and the last ``tail`` bytes of a stream, counting everything in between."""

    def __init__(self, limit: int) -> None:
        self.head_limit = int(limit * CAPTURE_HEAD_FRACTION)
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.tail_limit:
                del self.tail[: len(self.tail) - self.tail_limit]

    def text(self) -> str:
        tail = self.tail[-self.tail_limit :] if self.tail_limit else b""
        dropped = self.total - len(self.head) - len(tail)
        if dropped <= 0:
            return (bytes(self.head) + bytes(tail)).decode(errors="replace")
        note = (
            f"\n[kernelpilot: {dropped} bytes of output left out of {self.total}; "
            f"kept the first {len(self.head)} and the last {len(tail)}]\n"
        )
        return bytes(self.head).decode(errors="replace") + note + bytes(tail).decode(errors="replace")


def _exited(pid: int) -> bool:
    """True once ``pid`` has exited, without reaping it: its process group id stays valid for killpg."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def kill_group(pgid: int) -> None:
    """SIGKILL every process left in group ``pgid`` (grandchildren that outlived the leader included)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def marked_env(env: Mapping[str, str] | None) -> tuple[dict[str, str], str]:
    """``env`` (default: this process's) with a fresh marker a command and everything it starts inherit, and the
    marker's token (``sweep(token)`` kills them all, those that left the command's process group included)."""
    token = secrets.token_hex(8)
    return {**(os.environ if env is None else env), CHILD_MARK_ENV: token}, token


def sweep(token: str | None) -> list[str]:
    """SIGKILL every process that carries ``token``'s marker (found through /proc; none on other platforms); their
    command lines. A ``setsid`` grandchild has its own session and group, so killing the command's group misses it."""
    if not token or not os.path.isdir("/proc"):
        return []
    return ProcessTracker(token).kill()


def kill_process_tree(proc: subprocess.Popen) -> None:
    """SIGTERM the process group, then SIGKILL what is left after a short grace period (stragglers included), and
    every process that left the group with the command's marker (a Popen from ``Executor.start``/``LineServer``)."""
    try:
        _kill_group_of(proc)
    finally:
        sweep(getattr(proc, "kp_mark", None))


def _kill_group_of(proc: subprocess.Popen) -> None:
    pgid = proc.pid  # every command starts its own session: its group id is its pid
    if proc.poll() is None:
        for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=grace)
                break
            except subprocess.TimeoutExpired:
                continue
    kill_group(pgid)


def _read_ready(sel: selectors.BaseSelector, timeout: float) -> bool:
    """Read what the registered pipes have ready (waiting up to ``timeout``); False when nothing was ready."""
    events = sel.select(timeout=timeout)
    for key, _ in events:
        try:
            data = os.read(key.fd, 65536)
        except BlockingIOError:
            continue
        if data:
            key.data.add(data)
        else:
            sel.unregister(key.fileobj)
    return bool(events)


def _leader_exited(proc) -> bool:
    return proc.exited() if isinstance(proc, ForkedProcess) else _exited(proc.pid)


def _start(argv: list[str], env: dict[str, str], cwd, out_file):
    """The command's process in its own session: forked from ``tools.forkserver`` when it is one of kernelpilot's own
    Python children (the compilers already imported there), else ``subprocess.Popen``."""
    if forkserver.forkable(argv) and (not cwd or os.path.isdir(cwd)):
        try:
            return forkserver.spawn(argv, env, str(cwd) if cwd else None, out_file.fileno() if out_file else None)
        except OSError:
            pass  # no server here (or it died): start the child the plain way
    return subprocess.Popen(
        argv,
        stdout=out_file if out_file is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=str(cwd) if cwd else None,
        start_new_session=True,
    )


def run_process(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    max_capture: int = MAX_CAPTURE_BYTES,
    stdout_to: Path | None = None,
) -> RunResult:
    """Run ``argv`` in its own process group; the one place kernelpilot waits for a child.

    ``timeout`` bounds the whole call, pipe draining included (a grandchild holding stdout open cannot stall it).
    When the call ends, for any reason (success, failure, timeout, an exception, SIGTERM, ``cancel_thread`` of the
    calling thread), every process left in the group is killed. Each stream keeps at most ``max_capture`` bytes (head and tail; the rest counted and
    noted). ``stdout_to`` sends stdout to that file instead (uncapped, for data such as a tar stream).
    """
    argv = [str(a) for a in argv]
    _check_cancelled(argv)
    t0 = time.perf_counter()
    deadline = time.monotonic() + max(0.0, timeout)
    env, mark = marked_env(env)
    out_file = open(stdout_to, "wb") if stdout_to is not None else None  # noqa: SIM115 - closed in finally
    try:
        try:
            proc = _start(argv, env, cwd, out_file)
        except FileNotFoundError as exc:
            raise ToolchainError(
                f"cannot run '{argv[0][:200]}': not found on PATH", hint=f"install {argv[0][:200]} or put it on PATH"
            ) from exc
        except PermissionError as exc:
            raise ToolchainError(
                f"cannot run '{argv[0][:200]}': permission denied", hint="check the file's mode"
            ) from exc
        out_cap = _Capture(max_capture) if proc.stdout is not None else None
        err_cap = _Capture(max_capture)
        sel = selectors.DefaultSelector()
        for stream, cap in ((proc.stdout, out_cap), (proc.stderr, err_cap)):
            if stream is not None:
                os.set_blocking(stream.fileno(), False)
                sel.register(stream, selectors.EVENT_READ, cap)
        timed_out = False
        try:
            while sel.get_map():
                _check_cancelled(argv)
                now = time.monotonic()
                if now >= deadline:
                    timed_out = not _leader_exited(proc)
                    break
                _read_ready(sel, min(0.1, deadline - now))
                if _leader_exited(proc):
                    # the leader is gone; a straggler may still hold the pipes: take what is there, then stop
                    drain_until = min(deadline, time.monotonic() + 0.5)
                    while sel.get_map() and time.monotonic() < drain_until and _read_ready(sel, 0.02):
                        pass
                    break
            while not timed_out and not _leader_exited(proc):  # pipes closed early: wait for the leader
                _check_cancelled(argv)
                if time.monotonic() >= deadline:
                    timed_out = True
                    break
                time.sleep(0.01)
        finally:
            # every exit path: nothing we started outlives the call (the leader is not reaped before the group
            # kill, so its group id cannot have been reused)
            if not _leader_exited(proc):
                _kill_group_of(proc)
            kill_group(proc.pid)
            leftovers = sweep(mark)  # what left the group: a setsid or daemonised grandchild of the command
            proc.wait()
            if isinstance(proc, ForkedProcess):
                proc.release()  # its server may reap it now
            sel.close()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
    finally:
        if out_file is not None:
            out_file.close()
    return RunResult(
        argv=argv,
        returncode=proc.returncode if proc.returncode is not None else -9,
        stdout=out_cap.text() if out_cap else "",
        stderr=err_cap.text(),
        duration_s=time.perf_counter() - t0,
        timed_out=timed_out,
        stdout_bytes=out_cap.total if out_cap else 0,
        stderr_bytes=err_cap.total,
        leftover_processes=leftovers,
    )


@dataclass
class Executor:
    """Runs argument lists locally, over ssh, or inside a docker container.

    ``kind`` is ``local``, ``ssh`` (``target`` = host) or ``docker`` (``target`` = container); ``ssh_docker`` runs
    ``docker exec`` on an ssh host (``target`` = ``host:container``).
    """

    kind: str = "local"
    target: str = ""
    extra_args: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, spec: str | None) -> Executor:
        """``local`` | ``ssh:HOST`` | ``docker:CONTAINER`` | ``ssh+docker:HOST:CONTAINER``."""
        if not spec or spec == "local":
            return cls()
        kind, _, rest = spec.partition(":")
        if kind == "ssh" and rest:
            return cls("ssh", rest)
        if kind == "docker" and rest:
            return cls("docker", rest)
        if kind == "ssh+docker" and rest.count(":") == 1:
            return cls("ssh_docker", rest)
        raise ToolchainError(
            f"unknown executor '{spec}'",
            hint="use local, ssh:HOST, docker:CONTAINER or ssh+docker:HOST:CONTAINER",
        )

    def wrap(self, argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: str | None = None) -> list[str]:
        """The argument list that runs ``argv`` through this executor (env and cwd applied remotely)."""
        argv = [str(a) for a in argv]
        if self.kind == "local":
            return argv
        remote_env = [f"{k}={v}" for k, v in (env or {}).items()]
        if self.kind == "docker":
            out = ["docker", "exec"]
            for item in remote_env:
                out += ["-e", item]
            if cwd:
                out += ["-w", cwd]
            return out + [*self.extra_args, self.target, *argv]
        # ssh runs a remote shell: quote every word once, here.
        inner = argv
        if remote_env:
            inner = ["env", *remote_env, *inner]
        if self.kind == "ssh_docker":
            host, container = self.target.split(":", 1)
            docker = ["docker", "exec"] + (["-w", cwd] if cwd else []) + [container, *inner]
            return ["ssh", *self.extra_args, host, shlex.join(docker)]
        cmd = shlex.join(inner)
        if cwd:
            cmd = f"cd {shlex.quote(cwd)} && {cmd}"
        return ["ssh", *self.extra_args, self.target, cmd]

    def start(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) -> subprocess.Popen:
        """Start a command in its own process group; the caller waits, or kills it with kill_process_tree."""
        _check_cancelled(argv)
        full = self.wrap(
            argv, env if self.kind != "local" else None, str(cwd) if cwd and self.kind != "local" else None
        )
        local_env, mark = marked_env({**os.environ, **env} if self.kind == "local" and env is not None else None)
        try:
            proc = subprocess.Popen(
                full,
                stdout=stdout,
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                env=local_env,
                cwd=str(cwd) if cwd and self.kind == "local" else None,
                text=True,
                start_new_session=True,
            )
            proc.kp_mark = mark  # kill_process_tree sweeps what left its group
            return proc
        except FileNotFoundError as exc:
            raise ToolchainError(
                f"cannot run '{full[0]}': not found on PATH",
                hint=f"install {full[0]} or put it on PATH" + (" on the target host" if self.kind != "local" else ""),
            ) from exc
        except PermissionError as exc:
            raise ToolchainError(f"cannot run '{full[0]}': permission denied", hint="check the file's mode") from exc

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        max_capture: int = MAX_CAPTURE_BYTES,
    ) -> RunResult:
        """Run to completion or until ``timeout`` seconds (see ``run_process``: group killed, capture capped)."""
        full = self.wrap(
            argv, env if self.kind != "local" else None, str(cwd) if cwd and self.kind != "local" else None
        )
        local_env = {**os.environ, **env} if self.kind == "local" and env is not None else None
        result = run_process(
            full, timeout=timeout, env=local_env, cwd=cwd if self.kind == "local" else None, max_capture=max_capture
        )
        return result.model_copy(update={"argv": [str(a) for a in argv]})


LOCAL = Executor()


def fetch_tree(executor: Executor, remote_dir: str, local_dir: str | Path, *, timeout: float = 300) -> Path:
    """Copy a directory from where ``executor`` runs into ``local_dir`` (a tar stream through the executor).

    Local executors need no copy: the directory itself is returned.
    """
    if executor.kind == "local":
        return Path(remote_dir)
    local = Path(local_dir)
    local.mkdir(parents=True, exist_ok=True)
    argv = executor.wrap(["tar", "-C", remote_dir, "-cf", "-", "."])
    stream = local / ".kernelpilot-fetch.tar"
    try:
        res = run_process(argv, timeout=timeout, stdout_to=stream)
        if res.timed_out:
            raise ToolchainError(f"copying {remote_dir} back timed out after {timeout:.0f} s")
        if res.returncode != 0:
            raise ToolchainError(
                f"cannot copy {remote_dir} from {executor.kind}:{executor.target}",
                hint="check that the directory exists there and that tar is installed",
                details=res.stderr[-2000:],
            )
        try:
            with tarfile.open(stream) as tar:
                tar.extractall(local, filter="data")
        except (tarfile.TarError, EOFError) as exc:
            with open(stream, "rb") as fh:
                head = fh.read(80).decode(errors="replace").strip() or "nothing"
            raise ToolchainError(
                f"copying {remote_dir} back from {executor.kind}:{executor.target} gave {stream.stat().st_size} bytes "
                f"that are not a usable tar stream ({type(exc).__name__}: {exc}); it began with: {head!r}",
                hint="the remote shell printed something around tar's output (a login banner or profile script?) or "
                "tar failed there; run the executor's tar command by hand to see",
            ) from None
        except OSError as exc:
            raise ToolchainError(
                f"cannot unpack the copy of {remote_dir} into {local}: {exc.strerror or exc}",
                hint="check that the output directory is writable and the disk is not full",
            ) from None
    finally:
        stream.unlink(missing_ok=True)
    return local


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """In a child (before exec, or a pool worker's initializer): be sent ``sig`` when the process that started it
    dies (Linux), never left orphaned."""
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(sig))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: kill_process_tree on close still reaps it
        pass


class LineServer:
    """A long-lived child that answers one JSON line per request line (stdin → stdout), in its own process group,
    killed with its group on ``close()``. A Python child should call ``die_with_parent()`` first thing, so that it
    dies with this process even when ``close()`` never runs (start it from a thread that outlives it: Linux sends
    the signal when the starting thread ends).

    Replies are accepted only when ``accept(reply)`` says so: other lines the child prints (a kernel module's own
    output) are skipped. stderr goes to ``stderr_path`` (a file, read when something fails).
    """

    def __init__(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | Path, stderr_path: Path) -> None:
        self.stderr_path = stderr_path
        self._err = open(stderr_path, "w")  # noqa: SIM115 - closed in close()
        full_env, mark = marked_env({**os.environ, **env})
        try:
            self.proc = subprocess.Popen(
                [str(a) for a in argv],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._err,
                cwd=str(cwd),
                env=full_env,
                start_new_session=True,
            )
            self.proc.kp_mark = mark  # close() sweeps what left its group
        except OSError as exc:
            self._err.close()
            raise ToolchainError(f"cannot start '{argv[0]}': {exc.strerror or exc}") from exc
        self._buf = bytearray()  # read but not yet returned: a select() on the pipe cannot see it

    def send(self, line: str) -> None:
        """Write one line to the child's stdin (a broken pipe means it died: the next ``ask`` says so)."""
        try:
            self.proc.stdin.write((line.rstrip("\n") + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def ask(self, line: str, *, timeout: float, accept) -> dict:
        """Send ``line``, return the first JSON reply ``accept`` takes; TimeoutError or RuntimeError otherwise."""
        self.send(line)
        return self.receive(timeout=timeout, accept=accept)

    def receive(self, *, timeout: float, accept) -> dict:
        """The next JSON line ``accept`` takes (other lines skipped); TimeoutError or RuntimeError otherwise."""
        import json
        import select

        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self._buf:
                out, _, rest = self._buf.partition(b"\n")
                self._buf = bytearray(rest)
                try:
                    reply = json.loads(out)
                except ValueError:
                    continue  # the child printed something else
                if isinstance(reply, dict) and accept(reply):
                    return reply
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError(f"no reply within {timeout:.0f} s")
            data = os.read(fd, 1 << 16)
            if not data:
                self.proc.poll()
                raise RuntimeError(f"the process exited (code {self.proc.returncode}): {self.stderr_tail()}")
            self._buf += data

    def stderr_tail(self, lines: int = 4) -> str:
        self._err.flush()
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""
        return " | ".join(text.strip().splitlines()[-lines:])

    def close(self) -> None:
        """Kill the child's whole process group (a no-op when already closed)."""
        kill_process_tree(self.proc)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self._err.close()
