"""Writing a file so that no reader ever sees half of it: one way, used by every writer in kernelpilot."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path | str, data: str | bytes, *, mode: int | None = None, durable: bool = False) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder, renamed over ``path`` in one step:
    a reader sees the old file or the new one, and a writer killed halfway leaves no partial ``path``. Writers in
    other threads or processes each get their own temporary name (the last rename wins, and every one is whole).
    ``mode``: the new file's permission bits (created with them, so a private key is never readable by others, even
    for a moment); default 0o666 less the umask, as ``open`` makes a file. ``durable``: fsync before the rename (results a
    crash must not lose). The folder is created if missing. Returns ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # created 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def _umask() -> int:
    """This process's umask, read without changing it (``os.umask`` sets it for every thread while it is asked)."""
    with contextlib.suppress(OSError, ValueError, StopIteration):
        status = Path("/proc/self/status").read_text()
        return int(next(line for line in status.splitlines() if line.startswith("Umask:")).split()[1], 8)
    return 0o022
