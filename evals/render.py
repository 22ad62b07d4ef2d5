"""Text that goes into the leaderboard's and the A/B report's pages: figures and names, written once for both."""

from __future__ import annotations

import html
import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def md_cell(text: str) -> str:
    """``text`` (an agent name, a task id: whatever a result file says) as one Markdown table cell or heading that
    shows it literally: HTML escaped (``&lt;script&gt;``, never a tag), ``|`` escaped (it would end the cell; the
    backslash escaped first so that ``a\\|`` cannot unescape it), and newlines or other control characters made one
    space (they would end the row)."""
    text = html.escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|")
    return _CONTROL.sub(" ", text)


def times(x: float, digits: int = 2) -> str:
    """A speedup as printed: ``1.50``; one too large for fixed digits in three significant ones (``1e+308``)."""
    return f"{x:.{digits}f}" if abs(x) < 1e6 else f"{x:.3g}"
