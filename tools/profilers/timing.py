"""Time a callable on the GPU the way a kernel engineer would: warm up, flush the caches, time each call with device
events, and report the median with its spread; compare two callables interleaved and say whether the difference is
real.

torch is imported only when a GPU timing is asked for. The statistics are pure functions of lists of numbers.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from tools.errors import ToolchainError

# MI300's Infinity Cache is 256 MB; a flush buffer must be larger than every cache level in the way.
AMD_FLUSH_BYTES = 512 * 1024 * 1024
NVIDIA_MIN_FLUSH_BYTES = 256 * 1024 * 1024


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


# --- statistics (pure) -------------------------------------------------------------------------------------------


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of already sorted values (numpy's default method)."""
    if not sorted_values:
        raise ValueError("no samples")
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bootstrap_ci(
    values: Sequence[float],
    stat: Callable[[Sequence[float]], float] = statistics.median,
    *,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``stat`` over ``values`` (seeded, so reports are reproducible)."""
    rng = random.Random(seed)
    n = len(values)
    estimates = sorted(stat([values[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    alpha = (1 - confidence) / 2
    return _quantile(estimates, alpha), _quantile(estimates, 1 - alpha)


def summarize_times(times_us: Sequence[float], *, seed: int = 0) -> TimingStats:
    """Median, quartiles, extremes and a bootstrap CI of the median."""
    if not times_us:
        raise ValueError("no samples")
    s = sorted(times_us)
    med = statistics.median(s)
    q1, q3 = _quantile(s, 0.25), _quantile(s, 0.75)
    return TimingStats(
        samples=len(s),
        median_us=med,
        mean_us=statistics.fmean(s),
        min_us=s[0],
        max_us=s[-1],
        q1_us=q1,
        q3_us=q3,
        iqr_us=q3 - q1,
        median_ci_us=bootstrap_ci(s, seed=seed),
        rel_spread=(q3 - q1) / med if med else 0.0,
    )


def compare_times(
    baseline_us: Sequence[float],
    candidate_us: Sequence[float],
    *,
    device: str = "",
    threshold: float = 0.02,
    resamples: int = 1000,
    seed: int = 0,
) -> Comparison:
    """Speedup of candidate over baseline with a bootstrap CI; the verdict needs the whole CI beyond ``threshold``."""
    rng = random.Random(seed)
    na, nb = len(baseline_us), len(candidate_us)
    ratios = sorted(
        statistics.median([baseline_us[rng.randrange(na)] for _ in range(na)])
        / statistics.median([candidate_us[rng.randrange(nb)] for _ in range(nb)])
        for _ in range(resamples)
    )
    ci = (_quantile(ratios, 0.025), _quantile(ratios, 0.975))
    a, b = summarize_times(baseline_us, seed=seed), summarize_times(candidate_us, seed=seed)
    speedup = a.median_us / b.median_us
    if ci[0] > 1 + threshold:
        verdict = "faster"
    elif ci[1] < 1 / (1 + threshold):
        verdict = "slower"
    else:
        verdict = "inconclusive"
    summary = (
        f"candidate {b.median_us:.2f} us vs baseline {a.median_us:.2f} us (median of {min(na, nb)}): "
        f"speedup {speedup:.3f}x, 95% CI [{ci[0]:.3f}, {ci[1]:.3f}] -> {verdict}"
    )
    return Comparison(
        summary=summary,
        device=device,
        rounds=min(na, nb),
        baseline=a,
        candidate=b,
        speedup=speedup,
        speedup_ci=ci,
        verdict=verdict,
        threshold=threshold,
    )


# --- GPU timing ----------------------------------------------------------------------------------------------------


def torch_gpu():
    """torch with a usable GPU, or a ToolchainError that says what is missing."""
    try:
        import torch
    except ImportError as exc:
        raise ToolchainError(
            "GPU timing needs torch, which is not installed",
            hint="install a CUDA or ROCm build of torch (pip install torch --index-url https://download.pytorch.org/whl/...)",
        ) from exc
    if not torch.cuda.is_available():
        build = "ROCm" if getattr(torch.version, "hip", None) else ("CUDA" if torch.version.cuda else "CPU-only")
        raise ToolchainError(
            f"no GPU is visible to torch ({build} build {torch.__version__})",
            hint="run on a GPU host (kernelpilot doctor shows what this machine has); a CPU-only torch cannot time kernels",
        )
    return torch


def flush_bytes_for_device(torch, device) -> int:
    """A flush buffer larger than every cache between the SMs/CUs and HBM."""
    if getattr(torch.version, "hip", None):
        return AMD_FLUSH_BYTES
    l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 0
    return max(4 * l2, NVIDIA_MIN_FLUSH_BYTES)


class EventTimer:
    """Times single calls on one GPU with device events, flushing L2 before each call (a buffer larger than every
    cache level is zeroed). ``warm`` runs a callable untimed; ``once`` returns an event pair, read by ``read`` after
    one synchronize: the calls of a round are queued back to back, as a kernel engineer times them.

    Used by ``time_callable``/``compare_callables`` (one interpreter) and by ``tools.profilers.gpu_child`` (one process
    per side, see ``tools.profilers.gpu_runner``): one definition of how a call is timed."""

    def __init__(self, flush_l2: bool, device=None) -> None:
        self.torch = torch_gpu()
        self.device = self.torch.device("cuda", self.torch.cuda.current_device() if device is None else device)
        self.name = self.torch.cuda.get_device_name(self.device)
        self.flush_bytes = flush_bytes_for_device(self.torch, self.device) if flush_l2 else 0
        self.buffer = (
            self.torch.empty(self.flush_bytes, dtype=self.torch.uint8, device=self.device) if flush_l2 else None
        )

    def once(self, fn: Callable[[], object]):
        """Flush, then time one call; returns the event pair (read after a synchronize)."""
        torch = self.torch
        if self.buffer is not None:
            self.buffer.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        return start, end

    def warm(self, fn: Callable[[], object], warmup: int) -> None:
        for _ in range(warmup):
            fn()
        self.torch.cuda.synchronize(self.device)

    def read(self, events) -> list[float]:
        self.torch.cuda.synchronize(self.device)
        return [s.elapsed_time(e) * 1000.0 for s, e in events]


def time_callable(
    fn: Callable[[], object], *, iters: int = 100, warmup: int = 10, flush_l2: bool = True, device=None
) -> Timing:
    """Time ``fn()`` ``iters`` times on the current GPU with events around each call, L2 flushed before each."""
    if iters < 1:
        raise ValueError("iters must be >= 1")
    runner = EventTimer(flush_l2, device)
    runner.warm(fn, warmup)
    times = runner.read([runner.once(fn) for _ in range(iters)])
    return Timing(
        device=runner.name,
        warmup=warmup,
        flush_bytes=runner.flush_bytes,
        stats=summarize_times(times),
        times_us=times,
    )


def compare_callables(
    baseline: Callable[[], object],
    candidate: Callable[[], object],
    *,
    rounds: int = 50,
    warmup: int = 10,
    flush_l2: bool = True,
    threshold: float = 0.02,
    device=None,
) -> Comparison:
    """Interleave the two callables (ABBA order, so clock drift and thermal state hit both alike) and compare."""
    runner = EventTimer(flush_l2, device)
    runner.warm(baseline, warmup)
    runner.warm(candidate, warmup)
    a_events, b_events = [], []
    for i in range(rounds):
        if i % 2 == 0:
            a_events.append(runner.once(baseline))
            b_events.append(runner.once(candidate))
        else:
            b_events.append(runner.once(candidate))
            a_events.append(runner.once(baseline))
    return compare_times(runner.read(a_events), runner.read(b_events), device=runner.name, threshold=threshold)
