"""Content-addressed cache of dump-ir results.

Key = source bytes + frontend + arch + options + compiler versions + kernelpilot version. An entry is a directory
with the artifacts and ``result.json``; it is written under a temporary name and renamed into place, so a crash
never leaves a half-written entry that looks like a success.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from tools import __version__
from tools.models.dump import DumpResult
from tools.toolchain import cache_root

RESULT_FILE = "result.json"


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
    if not result_file.exists():
        return None
    try:
        result = DumpResult.model_validate_json(result_file.read_text())
    except ValueError:
        return None
    if not all(Path(s.path).exists() for k in result.kernels for s in k.stages):
        return None
    return result.model_copy(update={"cache_hit": True})


def new_staging_dir(key: str) -> Path:
    staging = cache_root() / "dumps" / f".{key}.tmp{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def commit(staging: Path, key: str, result: DumpResult) -> DumpResult:
    """Rewrite the staging paths to the final entry, write result.json, and rename the entry into place."""
    final = entry_dir(key)
    text = result.model_dump_json(indent=1).replace(str(staging), str(final))
    (staging / RESULT_FILE).write_text(text)
    if final.exists():
        shutil.rmtree(final, ignore_errors=True)
    staging.rename(final)
    return DumpResult.model_validate_json(text)
