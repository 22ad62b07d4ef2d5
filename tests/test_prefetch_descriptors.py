"""prefetch-data-load warns when a look-ahead load goes through a buffer descriptor without bounds (FlyDSL's default,
num_records 0xFFFFFFFF) with an index nobody clamped: the bundled paged-decode prefetch, before and after its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.prefetch import analyze_prefetch

FIXED = Path(__file__).resolve().parents[1] / "examples" / "prefetch" / "flydsl_paged_decode" / "prefetched.py"
LOOKAHEAD = "block_id(fx.Int32(i) + 2)"
BOUND = ", num_records_bytes=n_blocks * 4"


def _variant(tmp: Path, clamp: bool) -> Path:
    """The example as it was (FlyDSL's default descriptor for the table), with or without a clamp of the look-ahead
    index."""
    text = FIXED.read_text()
    assert LOOKAHEAD in text and BOUND in text
    text = text.replace(BOUND, "")
    if clamp:
        text = text.replace(LOOKAHEAD, "block_id(fx.min(fx.Int32(i) + 2, n_blocks - 1))")
    out = tmp / "prefetched.py"
    out.write_text(text)
    return out


@pytest.mark.slow
def test_the_unclamped_table_lookahead_is_warned_about(tmp_path):
    # The example as it was: block_table[i + 2] is looked up through the default descriptor (s_mov_b32 s14, -1 copied
    # into the table descriptor's third dword) with an offset from the loop counter (8 + 4 i) and no min: in the last
    # iteration it reads past the table.
    hot = analyze_prefetch(_variant(tmp_path, clamp=False), arch="gfx942").loops[0]
    assert len(hot.warnings) == 1
    w = hot.warnings[0]
    assert w.startswith("look-ahead load [49] `buffer_load_dword v10, v10, s[4:7], 0 offen` prefetched.py:43:24")
    assert "without bounds (num_records 0xFFFFFFFF" in w and "fx.min(i + 2, n - 1)" in w


@pytest.mark.slow
def test_a_clamped_index_is_not_warned_about(tmp_path):
    # the clamp alone (default descriptor kept): the offset chain holds the s_min_i32
    hot = analyze_prefetch(_variant(tmp_path, clamp=True), arch="gfx942").loops[0]
    assert hot.warnings == []


def test_the_fixed_example_is_not_warned_about():
    # the table's descriptor carries its size (num_records = n_blocks * 4, from s_lshl_b32): reads past it return 0
    hot = analyze_prefetch(FIXED, arch="gfx942").loops[0]
    assert hot.verdict == "prefetched" and hot.warnings == []
