"""Large outputs (IR stages, ISA, liveness tables, traces) stay in files; tools return links and read pages.

URIs:
- ``kernelpilot://dump/{dump_id}/{kernel}/{stage}`` — a dump-ir stage (``dump_id`` is the cache entry's name);
- ``kernelpilot://artifact/{run_id}/{name}`` — a file an analysis wrote with ``save``.
Both accept ``?offset=N&limit=M`` (lines) as resources; the ``read-artifact`` tool pages the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

from pydantic import BaseModel, Field

from mcp_server._grep import iter_lines
from mcp_server.paths import confine
from tools.errors import InputError
from tools.executors import LOCAL
from tools.paths import regular_file
from tools.toolchain import cache_root

DUMP_URI = "kernelpilot://dump/{dump_id}/{kernel}/{stage}"
ARTIFACT_URI = "kernelpilot://artifact/{run_id}/{name}"
PAGE_LINES = 400
PAGE_CHARS = 24_000  # ~6k tokens: one page always fits a tool result budget
_URI = re.compile(r"^kernelpilot://(dump|artifact)/([^/?]+)/([^/?]+)(?:/([^/?]+))?$")


class ArtifactPage(BaseModel):
    """One page of a text artifact, by lines."""

    summary: str
    next_steps: list[str] = Field(default_factory=list)
    path: str
    uri: str | None = None
    offset: int = Field(description="first line returned (0-based)")
    lines: int = Field(description="number of lines returned")
    total_lines: int
    next_offset: int | None = Field(None, description="pass as offset to read the next page; null at the end")
    pattern: str | None = None
    text: str = Field(description="the lines; with a pattern, each is prefixed by its 0-based line number")


def dumps_dir() -> Path:
    return cache_root() / "dumps"


def dump_id_of(out_dir: str) -> str | None:
    """The dump id for a dump-ir output directory inside the cache, else None: ``<key>-<variant>`` for an entry at
    ``dumps/<key>/<variant>`` (tools/cache.py), one URI segment either way."""
    p = Path(out_dir).resolve()
    root = dumps_dir().resolve()
    if p.parent.parent == root:
        return f"{p.parent.name}-{p.name}"
    return p.name if p.parent == root else None


def _dump_entry(dump_id: str) -> Path | None:
    parts = dump_id.split("-")
    if not 1 <= len(parts) <= 2 or not all(x and all(c in "0123456789abcdef" for c in x) for x in parts):
        return None
    entry = dumps_dir().joinpath(*parts)
    return entry if entry.is_dir() else None


def dump_uri(dump_id: str, kernel: str, stage: str) -> str:
    return DUMP_URI.format(dump_id=dump_id, kernel=kernel, stage=stage)


def resolve_dump(dump_id: str, kernel: str, stage: str) -> Path:
    """The file behind a dump URI: read from the entry's result.json, else found by stage name."""
    from tools.frontends.base import stage_name

    entry = _dump_entry(dump_id)
    if entry is None:
        raise InputError(f"no dump '{dump_id}' in the cache", hint="run dump-ir again; its result lists the URIs")
    result = entry / "result.json"
    if result.exists():
        for k in json.loads(result.read_text()).get("kernels", []):
            if k["name"] == kernel:
                for s in k["stages"]:
                    if s["name"] == stage:
                        return Path(s["path"])
    for p in sorted(entry.rglob("*")):
        if p.is_file() and p.parent.name == kernel and stage_name(p) == stage:
            return p
    raise InputError(
        f"dump {dump_id} has no stage '{stage}' for kernel '{kernel}'",
        hint="use a stage name listed in the dump-ir result (e.g. final_isa, llvm_ir, ttgir)",
    )


def save(run_id: str, name: str, text: str) -> str:
    """Write an analysis artifact into the cache and return its URI."""
    d = cache_root() / "artifacts" / run_id
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)
    return ARTIFACT_URI.format(run_id=run_id, name=name)


def run_id_for(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


def resolve_uri(uri: str) -> Path:
    m = _URI.match(uri)
    if not m:
        raise InputError(
            f"not a kernelpilot artifact URI: {uri}",
            hint=f"URIs look like {DUMP_URI} or {ARTIFACT_URI}; or pass path instead",
        )
    kind, a, b, c = m.groups()
    if kind == "dump" and c:
        return resolve_dump(a, b, c)
    if kind == "artifact" and not c and ".." not in (a, b):
        p = cache_root() / "artifacts" / a / b
        if p.is_file():
            return p
    raise InputError(f"no artifact at {uri}", hint="run the tool again; its result lists the URIs")


PATTERN_TIMEOUT_ENV = "KERNELPILOT_PATTERN_TIMEOUT_S"


def _total_lines(path: Path, chunk: int = 1 << 20) -> int:
    """Lines in the file (a last line without a newline counts), counted chunk by chunk: bounded memory."""
    n, last = 0, b"\n"
    with open(path, "rb") as f:
        while data := f.read(chunk):
            n += data.count(b"\n")
            last = data[-1:]
    return n + (last != b"\n")


def _page(path: Path, offset: int, limit: int) -> tuple[list[str], int, int | None]:
    """(lines, total_lines, next_offset), reading the file only up to the end of the page."""
    out: list[str] = []
    chars, next_offset = 0, None
    with open(path, "rb") as f:
        for i, line in enumerate(iter_lines(f)):
            if i < offset:
                continue
            if len(out) >= limit or (out and chars + len(line) + 1 > PAGE_CHARS):
                next_offset = i
                break
            out.append(line)
            chars += len(line) + 1
    return out, _total_lines(path), next_offset


def _grep(path: Path, offset: int, limit: int, pattern: str) -> dict:
    """The pattern search in a child with a deadline: a backtracking pattern costs seconds, never the server."""
    budget = float(os.environ.get(PATTERN_TIMEOUT_ENV, "10"))
    root = str(Path(__file__).resolve().parents[1])
    argv = [sys.executable, "-m", "mcp_server._grep", str(path), str(offset), str(limit), str(PAGE_CHARS), pattern]
    res = LOCAL.run(argv, timeout=budget, env={"PYTHONPATH": root}, max_capture=4 * PAGE_CHARS + 65536)
    if res.timed_out:
        raise InputError(
            f"pattern /{pattern[:200]}/ ran longer than {budget:g} s on {path.name} and was stopped",
            hint="simplify it (nested quantifiers such as (a+)+ backtrack without end), or page without a pattern",
        )
    try:
        return json.loads(res.stdout)
    except ValueError:
        raise InputError(
            f"searching {path.name} for /{pattern[:200]}/ failed",
            hint="check the pattern (a Python regular expression)",
            details=res.stderr[-2000:],
        ) from None


def read_page(
    path: Path, *, offset: int = 0, limit: int = PAGE_LINES, pattern: str | None = None, uri: str | None = None
) -> ArtifactPage:
    """Lines ``offset .. offset+limit`` of a text file (or, with ``pattern``, the matching lines from ``offset``).

    Memory stays bounded whatever the file: it is read only up to the page (then its newlines counted), lines are
    cut at ``MAX_LINE_CHARS``, FIFOs and devices are refused, and a pattern runs in a child under a deadline.
    """
    path = confine(str(path), what="artifact", artifacts=True)
    regular_file(path, "artifact")
    with open(path, "rb") as f:
        head = f.read(8192)
    if b"\x00" in head:
        raise InputError(f"{path} is a binary file ({path.stat().st_size} bytes)", hint="read its text stages instead")
    offset, limit = max(offset, 0), max(1, min(limit, 5000))
    if pattern:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise InputError(f"bad pattern {pattern!r}: {exc}", hint="pattern is a Python regular expression") from exc
        found = _grep(path, offset, limit, pattern)
        out, total, next_offset = found["lines"], found["total_lines"], found["next_offset"]
        last = (next_offset if next_offset is not None else total) - 1
    else:
        out, total, next_offset = _page(path, offset, limit)
        last = (next_offset if next_offset is not None else total) - 1
    where = f"lines {offset}-{last} of {total}" if last >= offset else f"no lines at offset {offset}"
    found_note = f", {len(out)} matching /{pattern}/" if pattern else ""
    steps = [f"read-artifact with offset={next_offset} for the next page"] if next_offset is not None else []
    return ArtifactPage(
        summary=f"{path.name}: {where}{found_note}",
        next_steps=steps,
        path=str(path),
        uri=uri,
        offset=offset,
        lines=len(out),
        total_lines=total,
        next_offset=next_offset,
        pattern=pattern,
        text="\n".join(out),
    )
