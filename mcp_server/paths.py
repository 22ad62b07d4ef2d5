"""Which files the server may touch: the project directory, KERNELPILOT_ALLOWED_ROOTS and (to read) the cache.

Stdio servers start with whatever cwd the host chose, so relative paths are resolved against the project directory
(``KERNELPILOT_PROJECT_DIR``, then ``CLAUDE_PROJECT_DIR``, then the cwd) and every error names the base it used.
The environment is read on each call, so a host (or a test) can change it without restarting the server.
"""

from __future__ import annotations

import os
from pathlib import Path

from tools.errors import InputError
from tools.toolchain import cache_root

ROOTS_ENV = "KERNELPILOT_ALLOWED_ROOTS"


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
    if not path or "\x00" in path:
        raise InputError(f"empty or invalid {what} path", hint="give an absolute path or one relative to the project")
    base = project_dir()
    p = Path(path).expanduser()
    resolved = (p if p.is_absolute() else base / p).resolve()
    roots = allowed_roots(artifacts=artifacts)
    if not any(resolved.is_relative_to(r) for r in roots):
        raise InputError(
            f"{what} {resolved} is outside the directories this server may read ({', '.join(map(str, roots))})",
            hint=f"move it under the project directory, or add its directory to {ROOTS_ENV} "
            f"(separated by '{os.pathsep}') in the MCP server's environment and restart it",
        )
    if must_exist and not resolved.exists():
        rel = "" if p.is_absolute() else f" (relative paths start at the project directory {base})"
        raise InputError(f"{what} not found: {resolved}{rel}", hint="check the path; absolute paths always work")
    return resolved
