"""Where kernelpilot may read: one resolution function for every file it opens on a caller's behalf.

The CLI reads what its user names (no roots). The MCP server confines every call to its allowed roots by running it
inside ``confined_to(roots)``; from then on every file the engine opens — the argument, files found by scanning a
directory, sibling files — goes through ``resolve``/``guard``, which follow symlinks (nested ones included) and
refuse anything that lands outside the roots. Reading is refused for FIFOs and devices as well (``regular_file``):
they block or never end.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path

from tools.errors import InputError

ROOTS_ENV = "KERNELPILOT_ALLOWED_ROOTS"
_ROOTS: ContextVar[tuple[Path, ...] | None] = ContextVar("kernelpilot_roots", default=None)


def current_roots() -> tuple[Path, ...] | None:
    """The roots this call is confined to, or None (the CLI: its user's own files)."""
    return _ROOTS.get()


@contextlib.contextmanager
def confined_to(roots: Iterable[str | Path]) -> Iterator[tuple[Path, ...]]:
    """Confine every ``guard``/``resolve`` in this context (thread or task) to ``roots``."""
    resolved = tuple(Path(r).expanduser().resolve() for r in roots)
    token = _ROOTS.set(resolved)
    try:
        yield resolved
    finally:
        _ROOTS.reset(token)


def inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _outside_error(given: Path, resolved: Path, roots: tuple[Path, ...], what: str) -> InputError:
    via = f" (it is, or passes through, a symlink to {resolved})" if Path(os.path.abspath(given)) != resolved else ""
    return InputError(
        f"{what} {given}{via} is outside the directories this server may read ({', '.join(map(str, roots))})",
        hint=f"move it under the project directory, or add its directory to {ROOTS_ENV} (separated by "
        f"'{os.pathsep}') in the MCP server's environment and restart it",
    )


def resolve(
    path: str | Path,
    *,
    roots: Iterable[Path] | None = None,
    base: Path | None = None,
    what: str = "file",
) -> Path:
    """``path`` made absolute (against ``base``) with every symlink resolved, and checked against ``roots`` (the
    context's when not given; no check when there are none). Raises InputError naming the file and the roots."""
    if isinstance(path, str) and (not path or "\x00" in path):
        raise InputError(f"empty or invalid {what} path", hint="give an absolute path or one relative to the project")
    p = Path(path).expanduser()
    if not p.is_absolute() and base is not None:
        p = base / p
    resolved = p.resolve()
    active = tuple(roots) if roots is not None else current_roots()
    if active is not None and not inside(resolved, active):
        raise _outside_error(p, resolved, active, what)
    return resolved


def guard(path: str | Path, what: str = "file") -> Path:
    """The engine's check before it opens a file (its argument, or one it found by scanning): FIFOs and devices are
    refused everywhere (a reader would block or never end); in a confined call the resolved path must also lie
    inside the context's roots. Returns the path unchanged."""
    if current_roots() is not None:
        resolve(path, what=what)
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except OSError:
        return p  # missing: the caller says so in its own words
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        regular_file(p, what)
    return p


def guard_tree(directory: str | Path, what: str = "directory") -> Path:
    """``guard`` every entry under ``directory`` (without following symlinked directories out of it): a tool that
    reads several files of a directory must not be led outside the roots by any of them."""
    if current_roots() is None:
        return Path(directory)
    guard(directory, what)
    for dirpath, dirnames, filenames in os.walk(directory, followlinks=False):
        for name in dirnames + filenames:
            entry = Path(dirpath) / name
            if entry.is_symlink():
                guard(entry, f"file in {what}")
    return Path(directory)


def regular_file(path: Path, what: str = "file") -> os.stat_result:
    """``stat`` of ``path``, refusing anything but a regular file (a FIFO blocks a reader, a device never ends)."""
    try:
        st = path.stat()
    except OSError as exc:
        raise InputError(
            f"cannot read {what} {path}: {exc.strerror}", hint="check the path and its permissions"
        ) from exc
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{what} {path} is a directory", hint="give one of the files in it")
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        raise InputError(f"{what} {path} is {kind}, not a regular file", hint="give a regular text file")
    return st
