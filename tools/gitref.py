"""Git references as file inputs: ``HEAD:kernel.py`` (or ``main~2:src/k.py``) where a tool expects a file path.

Agents work in git workspaces; a baseline is the committed version of the file, not a copy named
``*_baseline.py``. :func:`resolve_file` turns either an existing path or a ``REV:PATH`` spec into a readable file:
a path is returned as is; a git spec is read with ``git show`` into a fresh temporary directory under the same
base name (frontends pick the language from the suffix, and reports show the name).

``PATH`` follows git's rule (relative to the repository root) and, when that names nothing, is retried relative to
the working directory (``git show REV:./PATH``), so ``HEAD:kernel.py`` works from a subdirectory too.

A REV is never an option: one starting with ``-`` is refused, the rest is resolved with ``git rev-parse --verify
--end-of-options`` to a commit hash before ``git show`` sees anything. In a confined call (the MCP server,
``tools.paths.confined_to``) PATH's place in the work tree must lie inside the roots, checked before git reads it:
a spec cannot read history from outside the directories the server may read.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from tools.errors import InputError, ToolchainError
from tools.executors import LOCAL
from tools.paths import current_roots, resolve

# REV:PATH: a non-empty rev, a colon, a non-empty path (a second colon would be git's ":stage:path" form).
_SPEC = re.compile(r"^(?P<rev>[^:\s][^:]*):(?P<path>[^:].*)$")
_GIT_TIMEOUT_S = 30.0


class GitFile(BaseModel):
    """A file read from git: where it came from and where its content now lies."""

    spec: str  # as the user wrote it, e.g. "HEAD:kernel.py"
    rev: str  # "HEAD"
    path: str  # the path git resolved, relative to the repository root
    commit: str  # full hash of the commit the rev named
    local_path: Path  # the temporary copy

    @property
    def label(self) -> str:
        """``HEAD:kernel.py (8eae375)``: the spec and the commit it named, for report headers."""
        return f"{self.spec} ({self.commit[:7]})"


def parse_spec(spec: str) -> tuple[str, str] | None:
    """``(rev, path)`` if ``spec`` reads as ``REV:PATH``, else None. Does not touch the filesystem or git."""
    m = _SPEC.match(spec.strip())
    if not m or re.fullmatch(r"[A-Za-z]", m["rev"]) and m["path"][:1] in "\\/":
        return None
    return m["rev"], m["path"]


def is_git_spec(spec: str | Path, cwd: Path | None = None) -> bool:
    """True when ``spec`` is not an existing file and reads as ``REV:PATH`` (an existing file always wins)."""
    text = str(spec)
    if (Path(cwd or ".") / text).exists():
        return False
    return parse_spec(text) is not None


def _git(args: list[str], cwd: Path) -> tuple[int, str, str]:
    result = LOCAL.run(["git", "-C", str(cwd), *args], timeout=_GIT_TIMEOUT_S)
    if result.timed_out:
        raise ToolchainError(f"git {' '.join(args)} did not finish in {_GIT_TIMEOUT_S:.0f} s", hint="retry")
    return result.returncode, result.stdout, result.stderr


def read_git_file(spec: str, dest_dir: Path, cwd: Path | None = None) -> GitFile:
    """Write the content of ``REV:PATH`` to ``dest_dir/<basename>`` and describe it.

    Raises InputError (not a git repository, unknown revision, no such path at that revision) with the fix.
    """
    parsed = parse_spec(spec)
    if parsed is None:
        raise InputError(
            f"'{spec}' is neither an existing file nor a git reference",
            hint="give a path, or REV:PATH such as HEAD:kernel.py (the committed version of kernel.py)",
        )
    rev, path = parsed
    if rev.startswith("-"):
        raise InputError(
            f"'{rev}' in '{spec}' starts with '-': a revision never does",
            hint="use HEAD, a branch, a tag or a commit hash (git log lists them), or a path to a copy of the file",
        )
    cwd = Path(cwd or ".").resolve()
    code, toplevel, err = _git(["rev-parse", "--show-toplevel"], cwd)
    if code != 0:
        raise InputError(
            f"'{spec}' looks like a git reference, but {cwd} is not inside a git repository",
            hint="run from the repository that holds the file, or pass a path to a copy of the baseline",
            details=err.strip(),
        )
    code, commit, err = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], cwd)
    if code != 0:
        raise InputError(
            f"'{rev}' in '{spec}' names no commit in this repository",
            hint="use HEAD, a branch, a tag or a commit hash (git log lists them)",
        )
    commit = commit.strip()
    # git's rule first (relative to the repository root), then relative to the working directory.
    candidates = [path] if path.startswith("./") or path.startswith("../") else [path, f"./{path}"]
    candidates = _inside_roots(candidates, Path(toplevel.strip()), cwd, spec)
    for candidate in candidates:
        code, content, _ = _git(["show", "--end-of-options", f"{commit}:{candidate}"], cwd)
        if code == 0:
            break
    else:
        # the listing is left out of a confined call: it would name files outside the roots
        code, listing, _ = (
            _git(["ls-tree", "-r", "--name-only", commit], cwd) if current_roots() is None else (1, "", "")
        )
        name = Path(path).name
        near = [p for p in listing.splitlines() if Path(p).name == name][:5] if code == 0 else []
        raise InputError(
            f"'{path}' does not exist at {rev} ({commit[:7]})",
            hint=(f"files named {name} at {rev}: {', '.join(near)}" if near else f"git ls-tree -r {rev} lists them")
            + "; the file may be new (not committed yet): commit it or pass the baseline as a path",
        )
    code, resolved, _ = _git(["rev-parse", "--show-prefix"], cwd)
    repo_path = candidate[2:] if candidate.startswith("./") else candidate
    if candidate.startswith("./") and code == 0:
        repo_path = resolved.strip() + repo_path
    dest_dir.mkdir(parents=True, exist_ok=True)
    local = dest_dir / Path(path).name
    local.write_text(content)
    return GitFile(spec=spec, rev=rev, path=repo_path, commit=commit, local_path=local)


def _inside_roots(candidates: list[str], toplevel: Path, cwd: Path, spec: str) -> list[str]:
    """The candidates whose place in the work tree (``./`` ones from ``cwd``, others from the repository root) lies
    inside the confined call's roots; all of them outside a confined call. None inside: the first one's error."""
    roots = current_roots()
    if roots is None:
        return candidates
    kept, first_error = [], None
    for candidate in candidates:
        place = (cwd if candidate.startswith(("./", "../")) else toplevel) / candidate
        try:
            resolve(place, roots=roots, what=f"the path of {spec} ({place})")
        except InputError as exc:
            first_error = first_error or exc
            continue
        kept.append(candidate)
    if not kept:
        raise first_error
    return kept


@contextmanager
def resolve_file(spec: str | Path, cwd: Path | None = None) -> Iterator[tuple[Path, GitFile | None]]:
    """Yield ``(path, git_file)`` for a path or a ``REV:PATH`` spec; a git copy is deleted on exit.

    ``git_file`` is None for a plain path (returned unchanged, existing or not: the caller's own checks apply).
    """
    if not is_git_spec(spec, cwd):
        yield (Path(cwd) / spec if cwd else Path(spec)), None
        return
    with tempfile.TemporaryDirectory(prefix="kernelpilot-gitref-") as tmp:
        git_file = read_git_file(str(spec), Path(tmp), cwd)
        yield git_file.local_path, git_file
