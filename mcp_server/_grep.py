"""Line paging with bounded memory, and the regex search that read-artifact runs in a killable child.

A user's pattern can backtrack for hours (``(a+)+$``); Python's ``re`` cannot be interrupted, so the search runs
as ``python -m mcp_server._grep FILE OFFSET LIMIT MAX_CHARS PATTERN`` under a deadline and is killed past it.
Stdlib only: the child starts in a few tens of milliseconds.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import BinaryIO

MAX_LINE_CHARS = 8000  # a longer line is cut (and says so): one page must stay a page


def iter_lines(f: BinaryIO, max_chars: int = MAX_LINE_CHARS) -> Iterator[str]:
    """Lines of a binary file, decoded, each cut to ``max_chars``; memory stays bounded whatever the file holds."""
    cap = max_chars * 4  # bytes: the longest UTF-8 encoding of max_chars characters
    while True:
        raw = f.readline(cap)
        if not raw:
            return
        dropped = 0
        if not raw.endswith(b"\n"):  # longer than cap (or the last line): skip to its end, counting
            while more := f.readline(1 << 16):
                if more.endswith(b"\n"):
                    dropped += len(more) - 1
                    break
                dropped += len(more)
        text = raw.rstrip(b"\r\n").decode(errors="replace")
        if len(text) > max_chars:
            dropped += len(text[max_chars:].encode())
            text = text[:max_chars]
        yield text + (f" … [{dropped} more bytes on this line]" if dropped else "")


def search(path: str, offset: int, limit: int, max_chars: int, pattern: str) -> dict:
    """Matching lines from ``offset`` (each prefixed by its 0-based number), at most ``limit`` / ``max_chars``."""
    regex = re.compile(pattern)
    out: list[str] = []
    chars = 0
    next_offset = None
    total = 0
    with open(path, "rb") as f:
        for i, line in enumerate(iter_lines(f)):
            total = i + 1
            if next_offset is not None or i < offset:
                continue
            if len(out) >= limit:
                next_offset = i
                continue
            if regex.search(line):
                entry = f"{i}: {line}"
                if chars + len(entry) + 1 > max_chars and out:
                    next_offset = i
                    continue
                out.append(entry)
                chars += len(entry) + 1
    return {"lines": out, "next_offset": next_offset, "total_lines": total}


if __name__ == "__main__":
    file, off, lim, cap, pat = sys.argv[1:6]
    print(json.dumps(search(file, int(off), int(lim), int(cap), pat)))
