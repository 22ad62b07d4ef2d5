"""The processes one call started, found through ``/proc`` (Linux), so that none outlives it.

A process group is not enough: a ``setsid cmd &`` or ``nohup`` child of a kernel file, a compile or an agent leaves
the group its parent kills, and a process whose parent exited is re-parented to init, out of any parent-child walk.
``ProcessTracker`` therefore counts a process as the call's when, at any scan while the call goes on:

* its environment holds the call's marker (``<env_name>=<token>``, set in the child's environment and inherited by
  everything it starts unless a process clears its environment on purpose), or
* it descends (``/proc/<pid>/stat`` ppid) from one of the call's roots or from a process already counted, or
* it belongs to the session of a counted session leader.

Each process is named by (pid, start time), so a pid reused after a process exited is never mistaken for it. What
cannot be found this way — a process that clears its environment AND whose parent exits between two scans — needs a
cgroup or a container; the README says so. Used by ``tools.executors`` for every command it runs (``CHILD_MARK_ENV``)
and by the eval harness for an agent's run and a scoring (``evals.harness.processes``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

CHILD_MARK_ENV = "KERNELPILOT_CHILD_MARK"  # tools.executors: one token per command it runs
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass(frozen=True)
class ProcInfo:
    """One live process as ``/proc/<pid>/stat`` shows it; ``start`` (clock ticks after boot) tells a reused pid apart."""

    pid: int
    ppid: int
    sid: int
    start: int

    @property
    def key(self) -> tuple[int, int]:
        return self.pid, self.start


def _stat(pid: int) -> ProcInfo | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()  # the command name, in parentheses, may hold spaces and ')'
    if len(fields) < 20 or fields[0] in ("Z", "X"):  # a zombie runs nothing: its parent reaps it
        return None
    return ProcInfo(pid, int(fields[1]), int(fields[3]), int(fields[19]))


def process_table() -> dict[int, ProcInfo]:
    """Every live process this user can see."""
    out = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            info = _stat(int(entry.name))
            if info is not None:
                out[info.pid] = info
    return out


def command_line(pid: int, limit: int = 200) -> str:
    """The process's command line, words joined by spaces (its name when the command line is empty)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        text = raw.replace(b"\0", b" ").decode(errors="replace").strip()
        if not text:
            text = f"[{Path(f'/proc/{pid}/comm').read_text().strip()}]"
    except OSError:
        return "?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _marked(pid: int, needle: bytes) -> bool:
    try:
        return needle in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:  # gone, or not ours to read
        return False


def _ancestors(pid: int, table: dict[int, ProcInfo]) -> set[int]:
    out = set()
    while pid in table and pid not in out:
        out.add(pid)
        pid = table[pid].ppid
    return out


class ProcessTracker:
    """The processes of one run (see the module's docstring): ``scan()`` while it runs (or ``watch()`` in a thread),
    ``kill()`` when it ends. The harness's own process and its ancestors are never counted."""

    def __init__(self, token: str | None = None, roots: tuple[int, ...] = (), env_name: str = CHILD_MARK_ENV) -> None:
        self._needle = f"{env_name}={token}".encode() if token else None
        self._roots = set(roots)
        self.members: dict[tuple[int, int], str] = {}  # (pid, start) -> command line when first seen
        self._not_marked: set[tuple[int, int]] = set()  # environments read once: a process keeps its marker or not
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def scan(self) -> dict[int, ProcInfo]:
        """One pass over ``/proc``: add every process that is now the run's; returns the live members."""
        table = process_table()
        spared = _ancestors(os.getpid(), table)
        with self._lock:
            live = {p: i for p, i in table.items() if i.key in self.members}
            for pid in self._roots:  # named by (pid, start) from the first scan on: a reused pid is not the root
                if pid in table and pid not in spared:
                    live[pid] = table[pid]
            self._roots.clear()
            for info in table.values():
                if info.pid in live or info.pid in spared or self._needle is None or info.key in self._not_marked:
                    continue
                if _marked(info.pid, self._needle):
                    live[info.pid] = info
                else:
                    self._not_marked.add(info.key)
            grew = True
            while grew:  # children of members, and members' sessions, until nothing new
                sessions = {i.sid for i in live.values() if i.sid == i.pid}
                new = {
                    p: i
                    for p, i in table.items()
                    if p not in live and p not in spared and (i.ppid in live or i.sid in sessions)
                }
                live.update(new)
                grew = bool(new)
            for info in live.values():
                if info.key not in self.members:
                    self.members[info.key] = command_line(info.pid)
        return live

    def rss_bytes(self, live: dict[int, ProcInfo]) -> int:
        """Resident memory of ``live`` together (``/proc/<pid>/statm``)."""
        total = 0
        for pid in live:
            try:
                total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
            except (OSError, IndexError, ValueError):
                continue
        return total

    def watch(self, interval: float = 0.5) -> ProcessTracker:
        """Scan every ``interval`` seconds in a daemon thread until ``kill()``."""

        def loop() -> None:
            while not self._stop.wait(interval):
                self.scan()

        self.scan()
        self._thread = threading.Thread(target=loop, name="kp-process-tracker", daemon=True)
        self._thread.start()
        return self

    def kill(self) -> list[str]:
        """SIGKILL every member still running (scanning again after each round, for what was forked meanwhile);
        returns the command lines of those it killed."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        killed: dict[tuple[int, int], str] = {}
        for _round in range(5):
            live = {p: i for p, i in self.scan().items() if i.key not in killed}
            if not live:
                break
            for pid, info in live.items():
                killed[info.key] = command_line(pid)
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.05)
        return list(killed.values())
