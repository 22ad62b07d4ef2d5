"""Git workspaces: a fresh repository per (task, agent) at a pinned base commit, the agent's change captured as a diff
from that commit (untracked files included), the diff checked against the task's allowlist, and applied to a second
fresh copy for scoring — the agent never touches the copy that is scored.

The base commit is deterministic (fixed author and dates), so the same task files always give the same hash.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import git

from evals.catalog import Task, is_editable

_ENV = {
    "GIT_AUTHOR_NAME": "kernelpilot-eval",
    "GIT_AUTHOR_EMAIL": "eval@kernelpilot.invalid",
    "GIT_COMMITTER_NAME": "kernelpilot-eval",
    "GIT_COMMITTER_EMAIL": "eval@kernelpilot.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
}


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


def _repo(path: Path) -> git.Repo:
    repo = git.Repo.init(path)
    with repo.config_writer() as cw:
        cw.set_value("user", "name", _ENV["GIT_AUTHOR_NAME"])
        cw.set_value("user", "email", _ENV["GIT_AUTHOR_EMAIL"])
        cw.set_value("commit", "gpgsign", "false")
        cw.set_value("core", "autocrlf", "false")
    return repo


def create_workspace(task: Task, dest: Path) -> str:
    """Copy the task's ``workspace/`` into a new repository at ``dest``; return the base commit hash."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(task.workspace, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    repo = _repo(dest)
    repo.git.add("-A")
    with repo.git.custom_environment(**_ENV):
        repo.git.commit("-q", "-m", f"base: task {task.id}", "--no-verify")
    return repo.head.commit.hexsha


def capture_diff(workspace: Path, base: str, editable: list[str]) -> DiffCheck:
    """Everything that differs from ``base`` in the working tree, tracked or not, as one binary-safe patch."""
    repo = git.Repo(workspace)
    # The agent may have committed, branched or reset: compare the working tree, whatever HEAD now is, with base.
    repo.git.add("-A", "--force", "--", ".")
    patch = repo.git.diff("--cached", "--binary", "--no-renames", "--no-color", base)
    names = repo.git.diff("--cached", "--name-status", "--no-renames", base).splitlines()
    changed, problems = [], []
    for line in names:
        status, _, path = line.partition("\t")
        changed.append(path)
        full = workspace / path
        if full.is_symlink():
            problems.append(f"{path} is a symbolic link; tasks take regular files only")
    outside = [p for p in changed if not is_editable(p, editable)]
    return DiffCheck(patch + ("\n" if patch and not patch.endswith("\n") else ""), changed, outside, problems)


def apply_patch(workspace: Path, patch: str) -> None:
    """Apply a captured patch to a fresh workspace (raises git.GitCommandError when it does not apply)."""
    if not patch.strip():
        return
    patch_file = workspace.parent / f".{workspace.name}.patch"
    patch_file.write_text(patch)
    try:
        git.Repo(workspace).git.apply("--binary", "--whitespace=nowarn", str(patch_file))
    finally:
        patch_file.unlink(missing_ok=True)


def scoring_copy(task: Task, patch: str, dest: Path) -> str:
    """A fresh base workspace at ``dest`` with ``patch`` applied; returns the base commit (same as the agent's)."""
    base = create_workspace(task, dest)
    apply_patch(dest, patch)
    shutil.rmtree(dest / ".git")  # the scored copy is plain files: nothing in git history can be consulted
    return base
