"""Git workspaces: a fresh repository per (task, agent) at a pinned base commit, the agent's change captured as a diff
from that commit (untracked files included), the diff checked against the task's allowlist, and applied to a second
fresh copy for scoring — the agent never touches the copy that is scored.

The base commit is deterministic (fixed author and dates), so the same task files always give the same hash.

What the agent or a task folder controls is not trusted:

* every git command the harness runs goes through ``run_git``: no system or global config, fsmonitor and hooks
  switched off on the command line, no external diff or textconv, a clean environment (no ``GIT_*`` variable of the
  caller's leaks in), the git directory and work tree given explicitly, and a timeout;
* the change is captured with the harness's own copy of the base repository's ``.git`` (``create_workspace``'s
  ``keep_git``), kept outside the workspace: nothing the agent writes into its ``.git`` (config, hooks,
  ``core.worktree``, a rewritten index or HEAD) is read;
* task files are copied by ``copy_task_files``, which never follows a symbolic link out of the task folder.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from evals.catalog import Task, is_editable
from tools.errors import InputError
from tools.executors import run_process

_ENV = {
    "GIT_AUTHOR_NAME": "kernelpilot-eval",
    "GIT_AUTHOR_EMAIL": "eval@kernelpilot.invalid",
    "GIT_COMMITTER_NAME": "kernelpilot-eval",
    "GIT_COMMITTER_EMAIL": "eval@kernelpilot.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
}
GIT_TIMEOUT_S = 120.0
# repository settings that would run a command or change what the harness's git reads, overridden on every call
_GIT_OVERRIDES = [
    "-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null", "-c", "core.attributesFile=/dev/null",
    "-c", "core.untrackedCache=false", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false",
    "-c", "protocol.allow=never",
]  # fmt: skip


class GitFailed(RuntimeError):
    """A harness git command failed, or ran past its deadline (``timed_out``)."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


def git_env() -> dict[str, str]:
    """The whole environment of a harness git command: PATH, HOME and locale, no system or global config, the fixed
    identity and dates; nothing else of the caller's (a hook's ``GIT_DIR``, ``GIT_CONFIG_*``) leaks in."""
    env = {k: os.environ[k] for k in ("PATH", "HOME", "TMPDIR") if k in os.environ}
    env.update(LC_ALL="C", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_TERMINAL_PROMPT="0", **_ENV)
    return env


def run_git(work_tree: Path, *args: str, git_dir: Path | None = None, timeout: float = GIT_TIMEOUT_S) -> str:
    """``git ARGS`` on ``work_tree`` with ``git_dir`` (default ``work_tree/.git``), both explicit so that git discovers
    nothing; the one way the harness runs git. Returns stdout; raises ``GitFailed`` (git's last error line)."""
    git_dir = git_dir or work_tree / ".git"
    argv = ["git", *_GIT_OVERRIDES, f"--git-dir={git_dir}", f"--work-tree={work_tree}", *args]
    res = run_process(argv, timeout=timeout, env=git_env(), cwd=work_tree)
    if res.timed_out:
        raise GitFailed(f"git {args[0]} ran past its {timeout:.0f} s deadline in {work_tree}", timed_out=True)
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["(no message)"])[-1][:300]
        raise GitFailed(f"git {args[0]} failed in {work_tree}: {last}")
    return res.stdout


def copy_task_files(task: Task, src: Path, dest: Path | None) -> None:
    """Copy ``src`` (a folder of the task) to ``dest`` (None: only check it), without ``__pycache__``/``*.pyc``. A symbolic link that
    resolves inside the task folder is copied as the file or folder it points to (the copy holds no links); one
    that points outside the task folder, dangles or loops, and anything but files and folders, is refused with an
    InputError naming the task: task folders come from ``--tasks-dir``, i.e. from other people."""
    root = task.dir.resolve()

    def refuse(rel: str, why: str) -> InputError:
        return InputError(
            f"task {task.id}: {rel} {why}", hint=f"put the file itself into the task folder {task.dir}, not a link"
        )

    def copy(folder: Path, to: Path | None, rel: str, depth: int) -> None:
        if depth > 40:
            raise refuse(rel, "nests folders more than 40 deep through symbolic links (a loop?)")
        if to is not None:
            to.mkdir(parents=True, exist_ok=True)
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.name == "__pycache__" or entry.name.endswith(".pyc"):
                continue
            here, name = Path(entry.path), f"{rel}/{entry.name}"
            target = here
            if here.is_symlink():
                try:
                    target = here.resolve(strict=True)
                except (OSError, RuntimeError):
                    raise refuse(name, f"is a symbolic link to {os.readlink(here)} that does not resolve") from None
                if not target.is_relative_to(root):
                    raise refuse(name, f"is a symbolic link to {target}, outside the task folder")
            if target.is_dir():
                copy(target, None if to is None else to / entry.name, name, depth + 1)
            elif target.is_file():
                if to is not None:
                    shutil.copyfile(target, to / entry.name)
                    shutil.copymode(target, to / entry.name)
            else:
                raise refuse(name, "is neither a regular file nor a folder")

    rel = os.path.relpath(src, task.dir)
    if src.is_symlink() and not src.resolve().is_relative_to(root):
        raise refuse(rel, f"is a symbolic link to {src.resolve()}, outside the task folder")
    copy(src, dest, rel, 0)


def check_task_files(task: Task) -> None:
    """Refuse the task (InputError) when its ``workspace/`` links out of the task folder; run before any agent, so
    that a bad task folder stops the run at once rather than failing each attempt."""
    copy_task_files(task, task.workspace, None)


@dataclass
class DiffCheck:
    """The agent's change: the patch text, the files it touches, and those outside the allowlist."""

    patch: str
    changed: list[str]
    outside: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.outside and not self.problems


def create_workspace(task: Task, dest: Path, *, keep_git: Path | None = None) -> str:
    """Copy the task's ``workspace/`` into a new repository at ``dest``; return the base commit hash. ``keep_git``:
    also keep a copy of the fresh ``.git`` there, outside ``dest``, for ``capture_diff`` after an agent worked in
    ``dest``."""
    if dest.exists():
        shutil.rmtree(dest)
    copy_task_files(task, task.workspace, dest)
    run_git(dest, "init", "-q")
    for key, value in (("user.name", _ENV["GIT_AUTHOR_NAME"]), ("user.email", _ENV["GIT_AUTHOR_EMAIL"]),
                       ("commit.gpgsign", "false"), ("core.autocrlf", "false")):  # fmt: skip
        run_git(dest, "config", key, value)  # for the agent's own git commands in its workspace
    run_git(dest, "add", "-A")
    run_git(dest, "commit", "-q", "--no-verify", "-m", f"base: task {task.id}")
    if keep_git is not None:
        shutil.rmtree(keep_git, ignore_errors=True)
        shutil.copytree(dest / ".git", keep_git, symlinks=True)
    return run_git(dest, "rev-parse", "HEAD").strip()


def capture_diff(workspace: Path, base: str, editable: list[str], *, git_dir: Path) -> DiffCheck:
    """Everything that differs from ``base`` in the working tree, tracked or not, as one binary-safe patch.
    ``git_dir`` is the harness's own copy of the base repository (``create_workspace(keep_git=…)``): the agent's
    ``.git`` is never read, whatever HEAD, index, config or hooks it now holds."""
    # The agent may have committed, branched or reset: compare the working tree, whatever its HEAD, with base.
    run_git(workspace, "add", "-A", "--force", "--", ".", git_dir=git_dir)
    diff = ("diff", "--cached", "--no-ext-diff", "--no-textconv", "--no-renames", "--no-color")
    patch = run_git(workspace, *diff, "--binary", base, git_dir=git_dir)
    names = run_git(workspace, *diff, "--name-status", "-z", base, git_dir=git_dir).split("\0")
    changed, problems = [], []
    for path in names[1::2]:  # -z: status NUL path NUL …
        changed.append(path)
        if (workspace / path).is_symlink():
            problems.append(f"{path} is a symbolic link; tasks take regular files only")
    outside = [p for p in changed if not is_editable(p, editable)]
    return DiffCheck(patch + ("\n" if patch and not patch.endswith("\n") else ""), changed, outside, problems)


def apply_patch(workspace: Path, patch: str) -> None:
    """Apply a captured patch to a fresh workspace (raises GitFailed when it does not apply)."""
    if not patch.strip():
        return
    patch_file = workspace.parent / f".{workspace.name}.patch"
    patch_file.write_text(patch)
    try:
        run_git(workspace, "apply", "--binary", "--whitespace=nowarn", str(patch_file))
    finally:
        patch_file.unlink(missing_ok=True)


def scoring_copy(task: Task, patch: str, dest: Path) -> str:
    """A fresh base workspace at ``dest`` with ``patch`` applied; returns the base commit (same as the agent's)."""
    base = create_workspace(task, dest)
    apply_patch(dest, patch)
    shutil.rmtree(dest / ".git")  # the scored copy is plain files: nothing in git history can be consulted
    return base
