"""Which files the server may touch: the project directory, KERNELPILOT_ALLOWED_ROOTS and (to read) the cache.

Stdio servers start with whatever cwd the host chose, so relative paths are resolved against the project directory
(``KERNELPILOT_PROJECT_DIR``, then ``CLAUDE_PROJECT_DIR``, then the cwd) and every error names the base it used.
The environment is read on each call, so a host (or a test) can change it without restarting the server.
"""

from __future__ import annotations

import os
from pathlib import Path

from tools.errors import InputError
from tools.paths import ROOTS_ENV, resolve
from tools.toolchain import cache_root

__all__ = ["ROOTS_ENV", "allowed_roots", "confine", "project_dir"]


def project_dir() -> Path:
    base = os.environ.get("KERNELPILOT_PROJECT_DIR") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    return Path(base).expanduser().resolve()


def allowed_roots(*, artifacts: bool = False) -> list[Path]:
    """Inputs may live under these; ``artifacts=True`` adds the kernelpilot cache (dumps, traces) for reading."""
    roots = [project_dir()]
    roots += [Path(p).expanduser().resolve() for p in os.environ.get(ROOTS_ENV, "").split(os.pathsep) if p.strip()]
    if artifacts:
        roots.append(cache_root().expanduser().resolve())
    return roots


def confine(path: str, *, what: str = "file", must_exist: bool = True, artifacts: bool = False) -> Path:
    """Resolve ``path`` (symlinks included) and insist that it lies under an allowed root."""
    base = project_dir()
    resolved = resolve(path, roots=allowed_roots(artifacts=artifacts), base=base, what=what)
    if must_exist and not resolved.exists():
        rel = (
            "" if Path(path).expanduser().is_absolute() else f" (relative paths start at the project directory {base})"
        )
        raise InputError(f"{what} not found: {resolved}{rel}", hint="check the path; absolute paths always work")
    return resolved
