"""The GPU timer's statistics (pure) and its failure where no GPU is present."""

from __future__ import annotations

import pytest

from tools.errors import ToolchainError
from tools.profilers.timing import AMD_FLUSH_BYTES, bootstrap_ci, compare_times, summarize_times, time_callable


def test_summarize_times_quartiles():
    s = summarize_times([5.0, 1.0, 3.0, 2.0, 4.0, 100.0])
    # sorted 1 2 3 4 5 100: median 3.5, q1 at pos 1.25 -> 2.25, q3 at pos 3.75 -> 4.75
    assert (s.median_us, s.q1_us, s.q3_us, s.iqr_us, s.min_us, s.max_us) == (3.5, 2.25, 4.75, 2.5, 1.0, 100.0)
    lo, hi = s.median_ci_us
    assert 1.0 <= lo <= 3.5 <= hi <= 100.0


def test_bootstrap_is_reproducible():
    values = [float(i % 7) for i in range(50)]
    assert bootstrap_ci(values, seed=1) == bootstrap_ci(values, seed=1)


def test_compare_verdicts():
    base = [10.0 + 0.01 * (i % 5) for i in range(40)]
    fast = [8.0 + 0.01 * (i % 5) for i in range(40)]
    c = compare_times(base, fast)
    assert c.verdict == "faster" and c.speedup == pytest.approx(10.02 / 8.02) and c.speedup_ci[0] > 1.02
    assert compare_times(fast, base).verdict == "slower"
    assert compare_times(base, list(reversed(base))).verdict == "inconclusive"


def test_flush_exceeds_mi300_infinity_cache():
    assert AMD_FLUSH_BYTES >= 2 * 256 * 1024 * 1024


def test_no_gpu_is_a_toolchain_error():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(ToolchainError, match="no GPU is visible to torch"):
        time_callable(lambda: None)
