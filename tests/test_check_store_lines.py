"""A planted bug that changes values only (no access moves) is reported with the source line of the store that wrote
the first mismatching element, on each side: check tracks, per output byte, the last store to it.

Our own Triton kernel (tests/data/check/triton_two_stores.py, compiled in the test) stores ``2 x`` at one line and
``x + 1`` at another; AFTER plants ``+ 1`` in the second and moves it two lines down, so each side's line differs.
"""

from __future__ import annotations

import pytest

from tools.check.compare import check

from .conftest import REPO

TWO_STORES = REPO / "tests" / "data" / "check" / "triton_two_stores.py"


def _line(text: str, marker: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if marker in line)


@pytest.mark.slow
def test_a_value_only_bug_names_the_store_line_of_each_side(tmp_path):
    before = tmp_path / "before.py"
    after = tmp_path / "after.py"
    text = TWO_STORES.read_text()
    before.write_text(text)
    after.write_text(text.replace("BUG = tl.constexpr(0)", "BUG = tl.constexpr(1)\n# a rewrite's two extra lines\n"))
    rep = check(before, after)
    b_line = _line(before.read_text(), "# the incremented copy")
    a_line = _line(after.read_text(), "# the incremented copy")
    assert (b_line, a_line) == (18, 20)
    # out[:100] = 2x agrees; out[100:] = x + 1 is x + 2 in AFTER: all 100 differ, the first at out[100]
    assert rep.verdict == "different"
    first = rep.cases[0].mismatches[0]
    assert (first.index, int(first.after) - int(first.before)) == ([100], 1)
    assert (first.before_store, first.after_store) == (f"before.py:{b_line}", f"after.py:{a_line}")
    assert rep.reason.endswith(f"(stored by BEFORE at before.py:{b_line}, AFTER at after.py:{a_line})"), rep.reason


def test_agreeing_elements_are_not_reported_and_same_stays_same(tmp_path):
    before = tmp_path / "before.py"
    before.write_text(TWO_STORES.read_text())
    rep = check(before, before)
    assert rep.verdict == "same" and rep.cases[0].mismatches == [], rep.reason
    assert rep.cases[0].buffers[0].elements == 200
