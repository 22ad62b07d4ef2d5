"""What a child process that runs the user's code read: the files (with their content hashes) and the environment
variables, so a cached result is reused only while all of them are unchanged (tools/cache.py checks the record).

The compile child (``tools.frontends._pyrunner``) and check's inputs child call ``start()`` before they import the
user's file and ``write()`` when it succeeded. Files come from two places: an audit hook on ``open`` (a dot-file
the kernel reads, a config found on ``PYTHONPATH``; a file it tried to open and did not find is recorded as missing,
so creating it later is a change) and every imported module's ``__file__`` (``importlib.import_module("pkg.x")``, a
parent folder's module, whose source may be read from ``__pycache__`` without an ``open``). Left out: the Python
installation (stdlib, site-packages), kernelpilot's own package and its editable-install metadata, the child's
output folder, files the process wrote itself, temporary files gone by the end, and ``/proc``, ``/sys``, ``/dev``. Environment variables are
recorded by name when Python code reads one from ``os.environ`` (``os.getenv``, ``os.environ.get``, ``in``);
C code's ``getenv`` is not seen, which is why each frontend also declares the variables its compiler reads.

Standard library only (tools.files is too): it runs before the user's imports in a child whose start-up time counts.
"""

from __future__ import annotations

import hashlib
import json
import os
import site
import sys
import sysconfig
from pathlib import Path

from tools.files import write_atomic

READS_FILE = "reads.json"
MISSING = "missing"  # a file the code tried to open that did not exist
_HASHED_MAX = 64 << 20  # a larger file is recorded by size and mtime, not read twice

_files: dict[str, str] = {}  # absolute path → sha256 (or MISSING, or size:mtime), as found when first opened
_written: set[str] = set()
_env: set[str] = set()
_skip: tuple[str, ...] = ()


def fingerprint(path: str) -> str:
    """The file's content hash; ``MISSING`` when it does not exist; its size and mtime when it is very large."""
    try:
        st = os.stat(path)
        if st.st_size > _HASHED_MAX:
            return f"large:{st.st_size}:{st.st_mtime_ns}"
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except FileNotFoundError:
        return MISSING
    except OSError as exc:  # a directory, a permission error: never the same as a readable file
        return f"unreadable:{exc.errno}"


def skipped_dirs(extra: list[str | Path], keep: Path) -> tuple[str, ...]:
    """Folders whose files are not recorded: the Python installation, kernelpilot's package, ``extra``; a folder that
    holds ``keep`` (the user's own folder) is never skipped, whatever the installation's layout."""
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, "/proc", "/sys", "/dev"}
    dirs |= {p for p in sysconfig.get_paths().values() if p}
    dirs |= set(getattr(site, "getsitepackages", list)()) | {site.getusersitepackages()}
    tools = Path(__file__).resolve().parent
    dirs.add(str(tools))  # tools/: versioned by kernelpilot's version in the key
    # an editable install's metadata beside tools/ (read by every entry-point scan: torch's and triton's backend
    # discovery), versioned the same way; recorded, it was a file outside every kernel's folder, so no entry was
    # ever portable to a copy of the folder elsewhere
    dirs |= {str(p) for p in tools.parent.glob("kernelpilot*.egg-info")}
    dirs |= {str(e) for e in extra}
    keep = keep.resolve()
    out = []
    for d in dirs:
        real = os.path.realpath(d)
        if real != "/" and not (keep == Path(real) or Path(real) in keep.parents):
            out.append(real.rstrip("/") + "/")
    return tuple(sorted(set(out)))


def _audit(event: str, args: tuple) -> None:
    if event != "open":
        return
    path, _mode, flags = args
    if not isinstance(path, (str, bytes, os.PathLike)):
        return  # an open file descriptor
    try:
        path = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return
    if path.startswith(_skip) or "/__pycache__/" in path:
        return
    if isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
        _written.add(path)
    elif path not in _files:
        _files[path] = MISSING  # fingerprint() opens it too: this event must not recurse
        _files[path] = fingerprint(path)


class _RecordingEnviron(os._Environ):  # os.environ's own class: every read goes through __getitem__
    def __getitem__(self, key):
        if isinstance(key, str):  # a bytes key raises below, as it would without the record
            _env.add(key)
        return super().__getitem__(key)


def start(skip: tuple[str, ...]) -> None:
    """Record from now on (once per process: an audit hook cannot be removed)."""
    global _skip
    _skip = skip
    os.environ.__class__ = _RecordingEnviron
    sys.addaudithook(_audit)


def reads() -> dict:
    """``{"files": {path: fingerprint}, "env": [names]}`` as of now: opened files and imported modules' sources."""
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str):
            continue
        path = os.path.abspath(file)
        if path not in _files and not path.startswith(_skip) and "/__pycache__/" not in path:
            _files[path] = fingerprint(path)
    files = {
        p: h
        for p, h in sorted(_files.items())
        if p not in _written and (h == MISSING or os.path.lexists(p))  # a temporary file, gone by now, is no input
    }
    return {"files": files, "env": sorted(_env)}


def write(out_dir: Path) -> None:
    """Write ``reads()`` to ``out_dir/reads.json`` (atomically: the parent never sees half a record)."""
    write_atomic(out_dir / READS_FILE, json.dumps(reads()))
