"""Source attribution: an instruction's ``.loc`` (with its inlined-at chain, parsed by ``tools.isa.amdgcn``) told in
the user's words: the innermost user line, the outermost user call site, and the library function it is inside.
Shared by the AMDGCN and SASS reports (``tools.isa.sass`` builds the same ``SourceLoc`` from nvdisasm's comments)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from tools import paths
from tools.errors import InputError
from tools.isa.amdgcn import SourceLoc

# Directories of library code: installed Python packages (triton.language, flydsl), ROCm/HIP headers.
LIBRARY_DIR_MARKERS = ("site-packages", "dist-packages", "/lib/python", "/opt/rocm", "/include/hip")


def is_library_frame(loc: SourceLoc) -> bool:
    """True for a position inside library code (an installed package or a toolkit header), not the user's."""
    d = loc.directory.replace("\\", "/")
    return any(m in d for m in LIBRARY_DIR_MARKERS)


@dataclass(slots=True)
class SourceAttribution:
    """Where an instruction comes from, in the user's words.

    ``user``: the innermost position in the user's files; ``call_site``: the outermost user call site when it differs
    (a helper called from two places is told apart); ``inside``: the library function the instruction is part of
    (``tl.sum``), with ``library`` its innermost library position.
    """

    user: SourceLoc | None
    call_site: SourceLoc | None = None
    inside: str | None = None
    library: SourceLoc | None = None

    def __str__(self) -> str:
        if self.user is None:
            return str(self.library) if self.library else "(no .loc)"
        text = str(self.user)
        if self.call_site is not None:
            text += f" via {self.call_site}"
        if self.library is not None:
            text = f"(inside {self.inside or self.library.file} at {text})"
        return text


_source_lines_cache: dict[tuple[str, int], list[str] | None] = {}


def source_lines(path: str) -> list[str] | None:
    """The lines of a source file, cached by path and modification time (a long-lived server sees edits)."""
    try:
        paths.guard(path, "source file named by .loc")  # a confined (MCP) call reads only inside its roots
        key = (path, os.stat(path).st_mtime_ns)
    except (OSError, InputError):
        return None
    if key not in _source_lines_cache:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                _source_lines_cache[key] = fh.read().splitlines()
        except OSError:
            _source_lines_cache[key] = None
    return _source_lines_cache[key]


_CALLEE_RE = re.compile(r"([A-Za-z_][\w.]*)\s*\(")
_DEF_RE = re.compile(r"^(\s*)def\s+(\w+)\s*\(")


def callee_at(call: SourceLoc) -> str | None:
    """The dotted name called at a call site (``tl.sum``), read from the source at the site's column."""
    lines = source_lines(call.path)
    if not lines or not 0 < call.line <= len(lines):
        return None
    text = lines[call.line - 1]
    m = _CALLEE_RE.match(text, max(call.column - 1, 0)) if call.column else None
    return m.group(1) if m else None


def _enclosing_def(loc: SourceLoc) -> str | None:
    """The ``def`` whose body holds a library position (``sum`` for triton/language/standard.py:314)."""
    lines = source_lines(loc.path)
    if not lines or not 0 < loc.line <= len(lines):
        return None
    indent = len(lines[loc.line - 1]) - len(lines[loc.line - 1].lstrip())
    for text in reversed(lines[: loc.line - 1]):
        m = _DEF_RE.match(text)
        if m and len(m.group(1)) < indent:
            prefix = "tl." if "triton/language" in loc.directory.replace("\\", "/") else ""
            return prefix + m.group(2)
    return None


def attribute_loc(loc: SourceLoc | None) -> SourceAttribution:
    """Walk a ``.loc``'s inlining chain to the user's innermost line and outermost call site.

    A frame is the user's unless its directory is library code (:func:`is_library_frame`). Library frames inside the
    user's line are summarised by the function the user called (read from the user's source at the call column, else
    the library's enclosing ``def``).
    """
    if loc is None:
        return SourceAttribution(user=None)
    frames = loc.frames
    user_idx = [n for n, f in enumerate(frames) if not is_library_frame(f)]
    if not user_idx:
        return SourceAttribution(user=None, library=loc)
    first, last = user_idx[0], user_idx[-1]
    user = frames[first]
    call_site = frames[last] if last != first and str(frames[last]) != str(user) else None
    if first == 0:
        return SourceAttribution(user=user, call_site=call_site)
    inside = callee_at(user) or _enclosing_def(frames[first - 1])
    return SourceAttribution(user=user, call_site=call_site, inside=inside, library=loc)
