"""Find and load task folders: ``evals/tasks/<id>/task.yaml`` (or ``task.json``). Adding a task is adding a folder."""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from evals.models import TaskSpec
from tools.errors import InputError

TASKS_DIR = Path(__file__).resolve().parent / "tasks"


@dataclass(frozen=True)
class Task:
    """A loaded task: its spec and where its folder is."""

    spec: TaskSpec
    dir: Path

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def workspace(self) -> Path:
        return self.dir / "workspace"

    @property
    def solution(self) -> Path:
        return self.dir / "solution.patch"

    @property
    def reference_changed_lines(self) -> int:
        """Lines the reference solution adds or removes (``+``/``-`` lines of solution.patch, headers excluded)."""
        return patch_changed_lines(self.solution.read_text(errors="replace"))


def patch_changed_lines(patch: str) -> int:
    """Added plus removed lines of a unified diff; the ``+++``/``---`` file headers are not changes."""
    n = 0
    for line in patch.splitlines():
        if line.startswith(("+++ ", "--- ")):
            continue
        if line.startswith(("+", "-")):
            n += 1
    return n


def load_task(folder: Path) -> Task:
    """Load and validate one task folder; InputError names the file and the field that is wrong."""
    folder = folder.resolve()
    spec_file = next((folder / n for n in ("task.yaml", "task.yml", "task.json") if (folder / n).exists()), None)
    if spec_file is None:
        raise InputError(f"{folder} has no task.yaml or task.json", hint="see evals/README.md, 'Adding a task'")
    text = spec_file.read_text()
    try:
        data = json.loads(text) if spec_file.suffix == ".json" else yaml.safe_load(text)
        spec = TaskSpec.model_validate(data)
    except (yaml.YAMLError, ValueError) as exc:
        first = exc.errors()[0] if isinstance(exc, ValidationError) else None
        where = ".".join(str(p) for p in first["loc"]) if first else ""
        raise InputError(
            f"{spec_file}: invalid task{f' at {where}' if where else ''}: {first['msg'] if first else exc}",
            hint="compare with evals/tasks/*/task.yaml and evals/models.py:TaskSpec",
        ) from exc
    if spec.id != folder.name:
        raise InputError(f"{spec_file}: id '{spec.id}' differs from the folder name '{folder.name}'")
    ws = folder / "workspace"
    for f in spec.baseline:
        if not (ws / f).is_file():
            raise InputError(f"{spec_file}: baseline file {f} is not in {ws}")
        if not is_editable(f, spec.editable):
            raise InputError(f"{spec_file}: baseline file {f} is not covered by 'editable'")
    if spec.correctness and not (ws / spec.correctness.reference).is_file():
        raise InputError(f"{spec_file}: correctness.reference {spec.correctness.reference} is not in {ws}")
    if not (folder / "solution.patch").is_file():
        raise InputError(f"{folder} has no solution.patch", hint="every task ships its reference answer")
    for trap in spec.expected.traps:
        if not (folder / "traps" / trap.file).is_file():
            raise InputError(f"{spec_file}: expected.traps names {trap.file}, which is not in {folder / 'traps'}")
    return Task(spec, folder)


def is_editable(path: str, patterns: list[str]) -> bool:
    """Whether a workspace-relative path matches one of the task's ``editable`` globs."""
    return any(fnmatch.fnmatchcase(path, p) for p in patterns)


def _task_folders(root: Path) -> list[Path]:
    return [p.parent for p in sorted(root.glob("*/task.*")) if p.suffix in {".yaml", ".yml", ".json"}]


def load_tasks(
    selectors: list[str] | None = None, root: Path = TASKS_DIR, tasks_dirs: list[str | Path] | None = None
) -> list[Task]:
    """Every task under ``root`` and under each of ``tasks_dirs`` (folders kept outside the repository, e.g. a private
    split: a folder of task folders, or one task folder), sorted by id, filtered by selectors: an id, a glob over
    ids, a track name (``amd-static``/``gpu-runtime``), a tag (``tag:open-ended``), or a path to a task folder. Two tasks with one id are an
    error (a private task must not silently shadow a public one)."""
    all_tasks = [load_task(f) for f in _task_folders(root)]
    where = {t.id: t.dir for t in all_tasks}
    for d in tasks_dirs or []:
        d = Path(d).expanduser()
        if not d.is_dir():
            raise InputError(
                f"--tasks-dir {d}: not a folder", hint="give a folder of task folders (<id>/task.yaml, workspace/, …)"
            )
        folders = [d] if any((d / n).is_file() for n in ("task.yaml", "task.yml", "task.json")) else _task_folders(d)
        if not folders:
            raise InputError(
                f"--tasks-dir {d}: no task folder in it", hint="each task is <id>/task.yaml (+ workspace/)"
            )
        for f in folders:
            t = load_task(f)
            if t.id in where:
                raise InputError(
                    f"task id '{t.id}' is defined twice: {where[t.id]} and {t.dir}",
                    hint="give the private task a new id (its folder name and the id in task.yaml)",
                )
            where[t.id] = t.dir
            all_tasks.append(t)
    all_tasks.sort(key=lambda t: t.id)
    if not selectors:
        return all_tasks
    chosen: dict[str, Task] = {}
    for sel in selectors:
        for part in sel.split(","):
            part = part.strip()
            if not part:
                continue
            if Path(part).is_dir() and any(Path(part).glob("task.*")):
                t = load_task(Path(part))
                chosen[t.id] = t
                continue
            tag = part[len("tag:") :] if part.startswith("tag:") else None
            hits = [
                t
                for t in all_tasks
                if (tag is not None and tag in t.spec.tags)
                or (tag is None and (t.spec.track == part or fnmatch.fnmatchcase(t.id, part)))
            ]
            if not hits:
                ids = ", ".join(t.id for t in all_tasks)
                raise InputError(
                    f"no task matches '{part}'",
                    hint=f"tasks: {ids}; tracks: amd-static, gpu-runtime; a tag as tag:NAME (e.g. tag:open-ended)",
                )
            chosen.update((t.id, t) for t in hits)
    return sorted(chosen.values(), key=lambda t: t.id)
