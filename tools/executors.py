"""Where commands run: this machine, an ssh host, or a docker container.

Every subprocess in kernelpilot goes through here: argument lists (never shell strings), a timeout, and on timeout or
cancellation the whole process tree is killed (each command starts its own process group).
"""

from __future__ import annotations

import io
import os
import shlex
import signal
import subprocess
import tarfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from tools.errors import ToolchainError


class RunResult(BaseModel):
    """What a finished command left behind."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def kill_process_tree(proc: subprocess.Popen) -> None:
    """SIGTERM the process group, then SIGKILL what is left after a short grace period."""
    if proc.poll() is not None:
        return
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        return
    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


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
        full = self.wrap(
            argv, env if self.kind != "local" else None, str(cwd) if cwd and self.kind != "local" else None
        )
        local_env = None
        if self.kind == "local" and env is not None:
            local_env = {**os.environ, **env}
        try:
            return subprocess.Popen(
                full,
                stdout=stdout,
                stderr=stderr,
                stdin=subprocess.DEVNULL,
                env=local_env,
                cwd=str(cwd) if cwd and self.kind == "local" else None,
                text=True,
                start_new_session=True,
            )
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
    ) -> RunResult:
        """Run to completion or until ``timeout`` seconds, then kill the process tree."""
        t0 = time.perf_counter()
        proc = self.start(argv, env=env, cwd=cwd)
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_process_tree(proc)
            out, err = proc.communicate()
        except BaseException:
            kill_process_tree(proc)
            raise
        return RunResult(
            argv=[str(a) for a in argv],
            returncode=proc.returncode if proc.returncode is not None else -9,
            stdout=out or "",
            stderr=err or "",
            duration_s=time.perf_counter() - t0,
            timed_out=timed_out,
        )


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
    try:
        proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True
        )
    except FileNotFoundError as exc:
        raise ToolchainError(f"cannot run '{argv[0]}': not found on PATH", hint=f"install {argv[0]}") from exc
    try:
        data, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        kill_process_tree(proc)
        raise ToolchainError(f"copying {remote_dir} back timed out after {timeout:.0f} s") from exc
    if proc.returncode != 0:
        raise ToolchainError(
            f"cannot copy {remote_dir} from {executor.kind}:{executor.target}",
            hint="check that the directory exists there and that tar is installed",
            details=err.decode(errors="replace")[-2000:],
        )
    where = f"{executor.kind}:{executor.target}"
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(local, filter="data")  # the data filter refuses absolute paths, '..' and device files
    except (tarfile.TarError, EOFError) as exc:
        head = data[:80].decode(errors="replace").strip() or "nothing"
        raise ToolchainError(
            f"copying {remote_dir} back from {where} gave {len(data)} bytes that are not a usable tar stream "
            f"({type(exc).__name__}: {exc}); it began with: {head!r}",
            hint="the remote shell printed something around tar's output (a login banner or profile script?) or tar "
            "failed there; run the executor's tar command by hand to see",
        ) from None
    except OSError as exc:
        raise ToolchainError(
            f"cannot unpack the copy of {remote_dir} into {local}: {exc.strerror or exc}",
            hint="check that the output directory is writable and the disk is not full",
        ) from None
    return local
