"""Large outputs (IR stages, ISA, liveness tables, traces) stay in files; tools return links and read pages.

URIs:
- ``kernelpilot://dump/{dump_id}/{kernel}/{stage}`` — a dump-ir stage (``dump_id`` is the cache entry's name);
- ``kernelpilot://artifact/{run_id}/{name}`` — a file an analysis wrote with ``save``.
Both accept ``?offset=N&limit=M`` (lines) as resources; the ``read-artifact`` tool pages the same way.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from pydantic import BaseModel, Field

from mcp_server.paths import confine
from tools.errors import InputError
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
    """The dump id for a dump-ir output directory inside the cache, else None."""
    p = Path(out_dir).resolve()
    return p.name if p.parent == dumps_dir().resolve() else None


def dump_uri(dump_id: str, kernel: str, stage: str) -> str:
    return DUMP_URI.format(dump_id=dump_id, kernel=kernel, stage=stage)


def resolve_dump(dump_id: str, kernel: str, stage: str) -> Path:
    """The file behind a dump URI: read from the entry's result.json, else found by stage name."""
    from tools.frontends.base import stage_name

    entry = dumps_dir() / dump_id
    if "/" in dump_id or dump_id in {"", ".", ".."} or not entry.is_dir():
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


def read_page(
    path: Path, *, offset: int = 0, limit: int = PAGE_LINES, pattern: str | None = None, uri: str | None = None
) -> ArtifactPage:
    """Lines ``offset .. offset+limit`` of a text file (or, with ``pattern``, the matching lines from ``offset``)."""
    path = confine(str(path), what="artifact", artifacts=True)
    if path.is_dir():
        raise InputError(f"{path} is a directory", hint="give one of the files listed in the tool result")
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise InputError(f"{path} is a binary file ({len(data)} bytes)", hint="read its text stages instead")
    all_lines = data.decode(errors="replace").splitlines()
    offset, limit = max(offset, 0), max(1, min(limit, 5000))
    regex = None
    if pattern:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise InputError(f"bad pattern {pattern!r}: {exc}", hint="pattern is a Python regular expression") from exc
    out: list[str] = []
    chars, i = 0, offset
    while i < len(all_lines) and len(out) < limit:
        line = all_lines[i]
        if regex is None or regex.search(line):
            entry = line if regex is None else f"{i}: {line}"
            if chars + len(entry) + 1 > PAGE_CHARS and out:
                break
            out.append(entry)
            chars += len(entry) + 1
        i += 1
    next_offset = i if i < len(all_lines) else None
    where = f"lines {offset}-{i - 1} of {len(all_lines)}" if i > offset else f"no lines at offset {offset}"
    found = f", {len(out)} matching /{pattern}/" if regex else ""
    steps = [f"read-artifact with offset={next_offset} for the next page"] if next_offset is not None else []
    return ArtifactPage(
        summary=f"{path.name}: {where}{found}",
        next_steps=steps,
        path=str(path),
        uri=uri,
        offset=offset,
        lines=len(out),
        total_lines=len(all_lines),
        next_offset=next_offset,
        pattern=pattern,
        text="\n".join(out),
    )
