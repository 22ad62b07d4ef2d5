"""Content-addressed cache of dump-ir results (and, through the same helpers, of check's inputs).

Two levels. The key = what the compile reads that can be known before it runs (the kernel file's name and bytes,
every other file in its folder, the sub-folders its sources import: ``source_folder``; the environment variables the
frontend declares: ``keyed_environment``) + frontend + arch + options + compiler versions + kernelpilot version;
never the folder's path, so the same kernel in another folder (the eval harness scores every candidate in a fresh
temp dir) is a hit. Then the manifest: the compile child records every file it opened or imported outside the Python
installation and every environment variable it read (tools/readlog.py); an entry is a hit only while each recorded
file has the same content and each variable the same value (``manifest_holds``). That catches what the key cannot
see: a module imported from a parent folder or from ``PYTHONPATH``, a dot-file the kernel reads, a package loaded
with ``importlib``.

The artifacts name the source's folder (``.file``/``.loc``, ``DIFile``), so an entry is stored per folder
(``located_key``); a hit from another folder is copied with those names rewritten (``relocate``), never compiled
again, when everything its compile read lay inside its own folder. An index (``dumps-by-content/<key>``) points from
the folder-free key to the last entry written for it.
An entry is a directory with the artifacts, ``result.json`` and ``manifest.json``, at ``dumps/<key>/<variant>`` (one
variant per manifest: compiles of one key that read different files or variables never share a path); it is written
under a unique temporary name and published by ``publish``: renamed into place, or exchanged atomically with the
entry it replaces (``--no-cache``, a rerun), so a reader sees the old entry or the new one, never half of one.
Staging and failed directories left by killed processes are swept by age (``sweep``).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tools import __version__, readlog
from tools.files import write_atomic
from tools.models.dump import DumpResult
from tools.toolchain import cache_root

RESULT_FILE = "result.json"
MANIFEST_FILE = "manifest.json"
CHECK_INPUTS = "check-inputs"  # check's generated input buffers, keyed and published like dumps
# A compile may run for up to 2 h (the MCP timeout's ceiling): staging younger than that may still be in use.
STALE_STAGING_S = 3 * 3600
STALE_LEFTOVER_S = 24 * 3600  # failed compiles (kept for their log) and command-mode dumps


# A file is keyed by its bytes up to these sizes (per file, and in all for one kernel's folder), by its size and
# mtime beyond them: a copy of it is then a miss, never a stale hit, and a kernel in a crowded folder stays cheap.
HASHED_FILE_MAX = 1 << 20
HASHED_FOLDER_MAX = 64 << 20
_SOURCE_SUFFIXES = frozenset(".py .mojo .🔥 .cu .cuh .hip .c .cc .cpp .cxx .h .hh .hpp .inc".split())
_PY_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)|import[ \t]+([\w., \t]+))", re.M)
_C_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"/\\]+)/', re.M)
_SKIPPED_DIRS = {"__pycache__"}


@dataclass(frozen=True)
class SourceFolder:
    """What a kernel file's compile may read besides the compilers: the file, every other file in its folder (a
    helper it imports, a header it includes, data it opens from its cwd), and each sub-folder its sources import or
    include (a package beside it), as one digest. The folder's own path is not in the digest."""

    directory: Path
    names: tuple[str, ...]  # the folder's entries in the digest: its files and the imported sub-folders
    digest: str


class _Hasher:
    """The folder's digest, file by file, within ``HASHED_FOLDER_MAX`` bytes read."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()
        self.budget = HASHED_FOLDER_MAX

    def add(self, rel: str, path: Path) -> bytes:
        """Hash ``path`` under its folder-relative name; returns its bytes when it is a source to scan for imports."""
        data = b""
        try:
            st = path.stat()
            if st.st_size <= min(HASHED_FILE_MAX, self.budget):
                data = path.read_bytes()
                self.budget -= len(data)
                token = hashlib.sha256(data).digest()
            else:
                token = f"large:{st.st_size}:{st.st_mtime_ns}".encode()
        except OSError as exc:  # unreadable: the compile cannot read it either, but it must not pass for another
            token = f"unreadable:{exc.errno}".encode()
        self.h.update(rel.encode() + b"\0" + token)
        return data if path.suffix in _SOURCE_SUFFIXES else b""


def _imported_names(data: bytes) -> set[str]:
    """Top-level names a Python/Mojo source imports or a C/C++ source includes from a sub-folder (over-approximate:
    a name too many only costs a miss)."""
    names = set()
    for m in _PY_IMPORT.finditer(data):
        parts = [m[1]] if m[1] else m[2].split(b",")
        names |= {p.split()[0].split(b".")[0].decode() for p in parts if p.split()}
    names |= {m[1].decode(errors="replace") for m in _C_INCLUDE.finditer(data)}
    return names


def _visible(name: str) -> bool:
    return not name.startswith(".") and name not in _SKIPPED_DIRS


def source_folder(source: Path) -> SourceFolder:
    """The digest of what compiling ``source`` reads from its folder (see ``SourceFolder``)."""
    folder = source.parent
    hasher = _Hasher()
    files = sorted(p for p in folder.iterdir() if _visible(p.name) and p.is_file())
    names = [p.name for p in files]
    pending = [hasher.add(p.name, p) for p in files]  # the sources' bytes, scanned for imported sub-folders
    dirs: set[str] = set()
    while pending:  # imported sub-folders, and what their own sources import, until nothing new is found
        for name in sorted(_imported_names(pending.pop()) - dirs):
            sub = folder / name
            if not _visible(name) or not sub.is_dir():
                continue
            dirs.add(name)
            names.append(name)
            for root, subdirs, subfiles in os.walk(sub):
                subdirs[:] = sorted(d for d in subdirs if _visible(d))
                for f in sorted(f for f in subfiles if _visible(f)):
                    inner = Path(root) / f
                    if inner.is_file():
                        pending.append(hasher.add(inner.relative_to(folder).as_posix(), inner))
    return SourceFolder(directory=folder, names=tuple(names), digest=hasher.h.hexdigest())


def cache_key(
    source: Path, folder: SourceFolder, frontend: str, arch: str, options: dict, versions: dict[str, str]
) -> str:
    """The folder-free key: the source's file name (the artifacts and the module name carry it: a renamed copy is
    compiled for its own name), what its compile reads, and how it is compiled."""
    h = hashlib.sha256()
    h.update(folder.digest.encode())
    h.update(json.dumps([source.name, frontend, arch, options, versions, __version__], sort_keys=True).encode())
    return h.hexdigest()[:24]


def located_key(key: str, directory: Path) -> str:
    """The entry's name for ``key`` compiled from ``directory``: its artifacts name that folder."""
    return hashlib.sha256(f"{key}\0{directory}".encode()).hexdigest()[:24]


def _index(key: str) -> Path:
    return cache_root() / "dumps-by-content" / key


def remember(key: str, located: str) -> None:
    """Point the folder-free ``key`` at the entry ``located`` (atomically; the last writer wins, any is right)."""
    write_atomic(_index(key), located)


def lookup_elsewhere(key: str, folder: Path) -> DumpResult | None:
    """The entry last written for ``key`` from any folder, when it is good for a compile from ``folder``."""
    try:
        located = _index(key).read_text().strip()
    except OSError:
        return None
    return lookup(located, folder, portable=True) if re.fullmatch(r"[0-9a-f]{24}", located) else None


def folder_pattern(old: Path, names: tuple[str, ...]) -> re.Pattern[str]:
    """The old folder as the artifacts write it: a path of its own (``.file 1 "dir" "k.py"``, ``directory: "dir"``,
    a ``; dir`` comment) or before one of the folder's own entries (``dir/k.py``, ``dir/helpers/x.py``); never part
    of a longer path (``dir/.venv/...`` is another file)."""
    o = re.escape(str(old))
    entries = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w./-]){o}(?:(?![\w./-])|(?=/(?:{entries})(?![\w.-])))")


def relocate(hit: DumpResult, located: str, source: Path, folder: SourceFolder) -> DumpResult:
    """``hit`` (compiled from another folder with the same content) as an entry of its own for ``source``: its
    artifacts copied, the old folder's name rewritten to this one in every text artifact and in the result. Binary
    artifacts (hsaco, cubin) keep the old folder in their debug info."""
    old_entry, old_dir = Path(hit.out_dir), Path(hit.source).parent
    pattern = folder_pattern(old_dir, folder.names)
    new_dir = str(folder.directory)
    staging = new_staging_dir(located)
    try:
        shutil.copytree(old_entry, staging, dirs_exist_ok=True)
        (staging / RESULT_FILE).unlink(missing_ok=True)
        for path in staging.rglob("*"):
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            if b"\0" in data or str(old_dir).encode() not in data:
                continue  # a binary, or nothing to rewrite
            try:
                path.write_text(pattern.sub(lambda _: new_dir, data.decode()))
            except UnicodeDecodeError:
                continue
        text = pattern.sub(lambda _: new_dir, hit.model_dump_json().replace(str(old_entry), str(staging)))
        moved = DumpResult.model_validate_json(text).model_copy(update={"source": str(source), "cache_hit": False})
        for k in moved.kernels:  # a longer or shorter folder name changed the text artifacts' sizes
            for stage in k.stages:
                stage.bytes = Path(stage.path).stat().st_size
        return commit(staging, located, moved).model_copy(update={"cache_hit": True})
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def variant_dir(kind: str, key: str, staging: Path) -> Path:
    """Where the staged entry is published: a folder per key, and in it one entry per manifest (a compile that read
    other files or variables is another variant), so a result's paths never change under its reader when a
    compile of other inputs under the same key is published."""
    digest = hashlib.sha256((staging / MANIFEST_FILE).read_bytes()).hexdigest()[:12]
    return cache_root() / kind / key / digest


def find_entry(kind: str, key: str, folder: Path, portable: bool = False) -> Path | None:
    """The newest entry under ``key`` whose manifest holds for a run from ``folder`` (``manifest_holds``)."""
    try:
        variants = [p for p in (cache_root() / kind / key).iterdir() if not p.name.startswith(".")]
    except OSError:
        return None
    variants.sort(key=lambda p: -_age(p, time.time()))  # the newest first
    return next((v for v in variants if manifest_holds(v, folder, portable)), None)


def lookup(key: str, folder: Path, portable: bool = False) -> DumpResult | None:
    """The dump under ``key`` whose manifest holds for a compile from ``folder``; ``portable``: only one whose
    compile read nothing outside its own folder (a copy of it elsewhere)."""
    entry = find_entry("dumps", key, folder, portable)
    try:
        result = DumpResult.model_validate_json((entry / RESULT_FILE).read_text()) if entry else None
    except (OSError, ValueError):
        return None
    if result is None or not all(Path(s.path).exists() for k in result.kernels for s in k.stages):
        return None
    return result.model_copy(update={"cache_hit": True})


@contextlib.contextmanager
def compile_lock(key: str, wait_s: float, cancelled: Callable[[], bool] = lambda: False) -> Iterator[bool]:
    """One compile of ``key`` (the folder-free content key) at a time among every thread and process that shares
    this cache: an advisory ``flock`` on ``locks/<key>``, held while the compile runs and released when it ends or
    its process dies. A caller that finds it held waits (up to ``wait_s``, polling, so a cancelled thread stops at
    once with ``Cancelled``) and then looks the cache up again: N scorings or MCP checks of one kernel compile it
    once. Yields True when held; False after ``wait_s`` in vain (the caller compiles anyway): no result rests on the
    lock, it only saves work (a racing compile without it publishes the same entry in one rename)."""
    from tools.errors import Cancelled

    root = cache_root() / "locks"
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / key, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        deadline, held = time.monotonic() + wait_s, False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
                break
            except BlockingIOError:
                if cancelled():
                    raise Cancelled("cancelled while another compile of this kernel ran") from None
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
        if held:
            os.utime(fd)  # in use: sweep() leaves lock files younger than STALE_LEFTOVER_S
        yield held
    finally:
        os.close(fd)  # releases the lock


def new_staging_dir(key: str, kind: str = "dumps") -> Path:
    """A fresh directory no other process or thread uses (pid and a random part in its name), in the cache's
    ``kind`` folder (``dumps``, ``check-inputs``)."""
    root = cache_root() / kind
    root.mkdir(parents=True, exist_ok=True)
    staging = root / f".{key}.tmp{os.getpid()}-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    return staging


def commit(staging: Path, key: str, result: DumpResult) -> DumpResult:
    """Rewrite the staging paths to the final entry, write result.json, and publish the entry (``publish``): a new
    result always replaces the entry of the same key and manifest (stale, or ``--no-cache`` was given)."""
    if not (staging / MANIFEST_FILE).exists():
        write_manifest(staging, manifest_from_reads(None, Path(result.source).parent))
    final = variant_dir("dumps", key, staging)
    text = result.model_dump_json(indent=1).replace(str(staging), str(final))
    (staging / RESULT_FILE).write_text(text)
    publish(staging, final)
    return DumpResult.model_validate_json(text)


def store(src: Path, key: str, manifest: dict, kind: str = CHECK_INPUTS) -> Path:
    """Copy the directory ``src`` into the cache as an entry under ``key`` of ``kind`` with its manifest, published
    like a dump (``publish``); returns the entry's path."""
    staging = new_staging_dir(key, kind)
    try:
        shutil.copytree(src, staging, dirs_exist_ok=True)
        write_manifest(staging, manifest)
        final = variant_dir(kind, key, staging)
        publish(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final


RENAME_EXCHANGE = 2  # renameat2(2) flag (Linux 3.15+): swap two paths in one step


def exchange(a: Path, b: Path) -> bool:
    """Swap directories ``a`` and ``b`` atomically; False where the system cannot (then the caller falls back)."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), RENAME_EXCHANGE) == 0


def publish(staging: Path, final: Path) -> None:
    """Make the complete directory ``staging`` the one at ``final``, replacing whatever is there (the last writer
    wins). Readers see the old directory or the new one, never a mix or a half: the rename into an empty place and
    the exchange with an existing entry are each one step; where the exchange is unavailable, the old entry is moved
    aside first, so a reader in between finds no entry (a miss) rather than part of one. The replaced directory is
    deleted (under a hidden name beside ``staging``, so a kill midway leaves nothing that looks like an entry, and
    ``sweep`` finds it)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(5):
        try:
            staging.rename(final)  # atomic; fails when final exists and is not empty
            return
        except OSError:
            if not final.exists():
                raise
        old = staging.with_name(f".{final.name}.old{os.getpid()}-{uuid.uuid4().hex[:8]}")
        if exchange(staging, final):
            staging.rename(old)
        else:
            try:
                final.rename(old)
            except OSError:
                continue  # another writer moved or replaced it: try again
            try:
                staging.rename(final)
            except OSError:
                if not final.exists():
                    raise
                shutil.rmtree(old, ignore_errors=True)
                continue  # another writer got in between: replace theirs
        shutil.rmtree(old, ignore_errors=True)
        return
    raise OSError(f"could not publish cache entry {final}")


# ------------------------------------------------------------------------------------------------ the manifest
ENV_NEVER_KEYED = ("_VISIBLE_DEVICES", "_CACHE_DIR", "_DUMP_DIR")  # which devices or where caches live: no effect


def keyed_environment(names: tuple[str, ...]) -> dict[str, str]:
    """The environment variables a frontend declares its compiler reads (``names``; one ending in ``_`` is a
    prefix), with their values now: part of the key, so runs with different settings never share an entry."""
    prefixes = tuple(n for n in names if n.endswith("_"))
    return {
        k: v
        for k, v in sorted(os.environ.items())
        if (k in names or k.startswith(prefixes)) and not k.endswith(ENV_NEVER_KEYED)
    }


def manifest_from_reads(reads: dict | None, folder: Path) -> dict:
    """The manifest of one compile from the child's record (``readlog.reads()``, None for a compiler run without
    one): each file relative to ``folder`` when inside it (so a copy of the folder can be checked), else absolute;
    each variable the child read with its value in this process, whose environment the child inherited."""
    files = []
    for path, fingerprint in sorted(((reads or {}).get("files") or {}).items()):
        p = Path(path)
        inside = p.is_relative_to(folder)
        files.append({"path": p.relative_to(folder).as_posix() if inside else path, "inside": inside,
                      "fingerprint": fingerprint})  # fmt: skip
    env = {name: os.environ.get(name) for name in ((reads or {}).get("env") or [])}
    return {"recorded": reads is not None, "files": files, "env": env}


def write_manifest(entry: Path, manifest: dict) -> None:
    (entry / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1, sort_keys=True))


def manifest_holds(entry: Path, folder: Path, portable: bool = False) -> bool:
    """Whether every file the entry's compile read (inside-folder ones under ``folder``) has the same content and
    every variable it read the same value; ``portable``: and none of those files lay outside its folder. An entry
    without a manifest never holds (it predates manifests, or its writer was killed)."""
    try:
        manifest = json.loads((entry / MANIFEST_FILE).read_text())
        files, env = manifest["files"], manifest["env"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if portable and not all(f["inside"] for f in files):
        return False
    if any(os.environ.get(name) != value for name, value in env.items()):
        return False
    return all(
        readlog.fingerprint(str(folder / f["path"] if f["inside"] else Path(f["path"]))) == f["fingerprint"]
        for f in files
    )


def _age(path: Path, now: float) -> float:
    try:
        return now - path.lstat().st_mtime
    except OSError:
        return 0.0


def sweep(now: float | None = None) -> list[Path]:
    """Delete stale leftovers of killed or failed runs: staging and replaced dirs older than ``STALE_STAGING_S``
    (of dumps and of check's inputs), failed compiles and command-mode dumps older than ``STALE_LEFTOVER_S``,
    finished MCP job dirs of the same age. Only names kernelpilot creates are touched; returns what was removed."""
    now = time.time() if now is None else now
    removed = []
    candidates: list[tuple[Path, float]] = []
    for folder in (cache_root() / "dumps", cache_root() / CHECK_INPUTS):
        for p in folder.iterdir() if folder.is_dir() else ():
            if not p.name.startswith(".") or p.is_symlink() or not p.is_dir():
                continue
            if p.name.startswith(".cmd-") or ".failed" in p.name:
                candidates.append((p, STALE_LEFTOVER_S))
            elif ".tmp" in p.name or ".old" in p.name:
                candidates.append((p, STALE_STAGING_S))
    locks = cache_root() / "locks"
    if locks.is_dir():  # a lock file is touched when taken; one untouched for a day guards no compile
        for p in locks.iterdir():
            if p.is_file() and not p.is_symlink() and _age(p, now) > STALE_LEFTOVER_S:
                p.unlink(missing_ok=True)
                removed.append(p)
    jobs = cache_root() / "mcp-jobs"
    if jobs.is_dir():
        candidates += [(p, STALE_LEFTOVER_S) for p in jobs.iterdir() if p.is_dir() and not p.is_symlink()]
    for path, limit in candidates:
        if _age(path, now) > limit:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
