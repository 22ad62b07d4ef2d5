"""Content-addressed cache of dump-ir results.

Key = source bytes + frontend + arch + options + compiler versions + kernelpilot version. An entry is a directory
with the artifacts and ``result.json``; it is written under a unique temporary name and renamed into place, so a
crash never leaves a half-written entry that looks like a success, and parallel compiles of one kernel agree: the
first rename wins and every other writer takes the winner's entry (same key, same content).
Staging and failed directories left by killed processes are swept by age (``sweep``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import uuid
from pathlib import Path

from tools import __version__
from tools.models.dump import DumpResult
from tools.toolchain import cache_root

RESULT_FILE = "result.json"
# A compile may run for up to 2 h (the MCP timeout's ceiling): staging younger than that may still be in use.
STALE_STAGING_S = 3 * 3600
STALE_LEFTOVER_S = 24 * 3600  # failed compiles (kept for their log) and command-mode dumps


def cache_key(
    source: Path, source_bytes: bytes, frontend: str, arch: str, options: dict, versions: dict[str, str]
) -> str:
    """The source's path is part of the key: the ISA's ``.file``/``.loc`` lines name it, so identical bytes in
    another file must not reuse a dump whose debug info points elsewhere."""
    h = hashlib.sha256()
    h.update(source_bytes)
    h.update(json.dumps([str(source), frontend, arch, options, versions, __version__], sort_keys=True).encode())
    return h.hexdigest()[:24]


def entry_dir(key: str) -> Path:
    return cache_root() / "dumps" / key


def lookup(key: str) -> DumpResult | None:
    result_file = entry_dir(key) / RESULT_FILE
    try:
        result = DumpResult.model_validate_json(result_file.read_text())
    except (OSError, ValueError):
        return None
    if not all(Path(s.path).exists() for k in result.kernels for s in k.stages):
        return None
    return result.model_copy(update={"cache_hit": True})


def new_staging_dir(key: str) -> Path:
    """A fresh directory no other process or thread uses (pid and a random part in its name)."""
    root = cache_root() / "dumps"
    root.mkdir(parents=True, exist_ok=True)
    staging = root / f".{key}.tmp{os.getpid()}-{uuid.uuid4().hex[:8]}"
    staging.mkdir()
    return staging


def commit(staging: Path, key: str, result: DumpResult) -> DumpResult:
    """Rewrite the staging paths to the final entry, write result.json, and rename the entry into place.

    Another writer having published the same key first is success: its entry is returned and ours discarded. A
    broken entry under the key (no readable result.json) is moved aside and replaced.
    """
    final = entry_dir(key)
    text = result.model_dump_json(indent=1).replace(str(staging), str(final))
    (staging / RESULT_FILE).write_text(text)
    for _ in range(3):
        try:
            staging.rename(final)  # atomic; fails when final exists and is not empty
            return DumpResult.model_validate_json(text)
        except OSError:
            if not final.exists():
                raise
        winner = lookup(key)
        if winner is not None:
            shutil.rmtree(staging, ignore_errors=True)
            return winner.model_copy(update={"cache_hit": False})
        aside = final.with_name(f".{key}.failed{os.getpid()}-{uuid.uuid4().hex[:8]}")
        try:
            final.rename(aside)
        except OSError:
            continue  # someone else moved or replaced it: look again
        shutil.rmtree(aside, ignore_errors=True)
    raise OSError(f"could not publish cache entry {final}")


def _age(path: Path, now: float) -> float:
    try:
        return now - path.lstat().st_mtime
    except OSError:
        return 0.0


def sweep(now: float | None = None) -> list[Path]:
    """Delete stale leftovers of killed or failed runs: staging dirs older than ``STALE_STAGING_S``, failed
    compiles and command-mode dumps older than ``STALE_LEFTOVER_S``, finished MCP job dirs of the same age.
    Only names kernelpilot creates are touched; returns what was removed."""
    now = time.time() if now is None else now
    removed = []
    dumps = cache_root() / "dumps"
    candidates: list[tuple[Path, float]] = []
    if dumps.is_dir():
        for p in dumps.iterdir():
            if not p.name.startswith(".") or p.is_symlink() or not p.is_dir():
                continue
            if p.name.startswith(".cmd-") or ".failed" in p.name:
                candidates.append((p, STALE_LEFTOVER_S))
            elif ".tmp" in p.name:
                candidates.append((p, STALE_STAGING_S))
    jobs = cache_root() / "mcp-jobs"
    if jobs.is_dir():
        candidates += [(p, STALE_LEFTOVER_S) for p in jobs.iterdir() if p.is_dir() and not p.is_symlink()]
    for path, limit in candidates:
        if _age(path, now) > limit:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed
