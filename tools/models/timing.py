"""Timing results: one callable's per-call times and an interleaved A/B comparison (``tools.profilers.timing``
measures them; prefetch-data-load's ``--verify`` and the outcome model report them)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class TimingStats(BaseModel):
    """Per-call times of one callable, in microseconds."""

    samples: int
    median_us: float
    mean_us: float
    min_us: float
    max_us: float
    q1_us: float
    q3_us: float
    iqr_us: float
    median_ci_us: tuple[float, float] = Field(description="95% bootstrap confidence interval of the median")
    rel_spread: float = Field(description="IQR / median: above ~0.05 the measurement is noisy")


class Timing(BaseModel):
    """What ``time_callable`` measured and how."""

    device: str
    warmup: int
    flush_bytes: int = Field(description="bytes written between calls to evict L2 (0 = no flush)")
    stats: TimingStats
    times_us: list[float]


class Comparison(BaseModel):
    """An interleaved A/B measurement; ``speedup`` > 1 means the candidate is faster than the baseline."""

    summary: str
    device: str
    rounds: int
    baseline: TimingStats
    candidate: TimingStats
    speedup: float = Field(description="median(baseline) / median(candidate)")
    speedup_ci: tuple[float, float] = Field(description="95% bootstrap confidence interval of the speedup")
    verdict: str = Field(description="faster | slower | inconclusive (the candidate relative to the baseline)")
    threshold: float = Field(description="relative change below which a difference is called inconclusive")
