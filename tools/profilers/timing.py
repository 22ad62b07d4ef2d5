"""Time a callable on the GPU the way a kernel engineer would: warm up, flush the caches, time each call with device
events, and report the median with its spread; compare two callables interleaved and say whether the difference is
real.

torch is imported only when a GPU timing is asked for. The statistics are pure functions of lists of numbers.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from typing import NamedTuple

from tools.errors import ToolchainError
from tools.models.timing import Comparison, Timing, TimingStats

# MI300's Infinity Cache is 256 MB; a flush buffer must be larger than every cache level in the way.
AMD_FLUSH_BYTES = 512 * 1024 * 1024
NVIDIA_MIN_FLUSH_BYTES = 256 * 1024 * 1024


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


class CallTiming(NamedTuple):
    """One timed call: device time of the call (microseconds) and what it returned."""

    event_us: float
    output: object


class HostCheck(NamedTuple):
    """One call made with the GPU idle: its device time and the host's time around call + device-wide synchronise,
    both in microseconds (the host's includes the launch; see ``EventTimer.host_call``)."""

    event_us: float
    host_us: float
    output: object


class EventTimer:
    """THE definition of how kernelpilot times a call on a GPU, used by ``time_callable``/``compare_callables`` (one
    interpreter), ``tools.profilers.gpu_child`` (``run_pair``, one process per side) and the eval harness's timing
    processes (``evals.harness.child``).

    ``round(fn, calls)``: before the round a short GPU sleep is queued (``torch.cuda._sleep``) so that the host gets
    ahead; then per call (inputs from ``prepare`` made first, outside the window) the L2 flush, a start event, the
    call and an end event are queued with no synchronise in between, and the events are read after one synchronise
    at the end. The GPU is busy while the host launches, so each window holds the call's GPU work and not the host's
    launch of it: with the GPU idle at the start event, the window also held the Python/launcher overhead (75-190 us
    on an H100 for the eval tasks), which cut measured speedups by up to half and made two processes running the same
    code differ by up to 25 % for their whole life (benchmarks/RESULTS.md, session 4).

    ``host_call(fn)``: one call with the GPU idle and host time around call + device-wide synchronise; comparing it
    with the call's event time shows work the call leaves running outside the timed stream (side streams).

    The event class, its methods, the synchronise call, the sleep and the host clock are bound when the timer is
    made: a kernel module imported afterwards cannot change what is measured, and ``tampered()`` names what it
    replaced."""

    SLEEP_AHEAD_US = 400.0  # per call of a round: more than an eval task's slowest launch (~190 us on an H100)

    def __init__(self, flush_l2: bool, device=None) -> None:
        import time

        torch = self.torch = torch_gpu()
        self.device = torch.device("cuda", torch.cuda.current_device() if device is None else device)
        self.name = torch.cuda.get_device_name(self.device)
        self.flush_bytes = flush_bytes_for_device(torch, self.device) if flush_l2 else 0
        self.buffer = torch.empty(self.flush_bytes, dtype=torch.uint8, device=self.device) if flush_l2 else None
        self._bound = {
            "torch.cuda.Event": (torch.cuda, "Event", torch.cuda.Event),
            "torch.cuda.Event.record": (torch.cuda.Event, "record", torch.cuda.Event.record),
            "torch.cuda.Event.elapsed_time": (torch.cuda.Event, "elapsed_time", torch.cuda.Event.elapsed_time),
            "torch.cuda.synchronize": (torch.cuda, "synchronize", torch.cuda.synchronize),
            "time.perf_counter": (time, "perf_counter", time.perf_counter),
        }
        self._event, self._sync, self._clock = torch.cuda.Event, torch.cuda.synchronize, time.perf_counter
        self._record, self._elapsed = torch.cuda.Event.record, torch.cuda.Event.elapsed_time
        self._sleep = getattr(torch.cuda, "_sleep", None)
        if self._sleep is not None:
            self._bound["torch.cuda._sleep"] = (torch.cuda, "_sleep", self._sleep)
        self._cycles_per_us = self._calibrate_sleep()

    def _calibrate_sleep(self) -> float | None:
        """GPU clock cycles per microsecond of ``torch.cuda._sleep`` (None where torch has no such call)."""
        if self._sleep is None:
            return None
        self._sleep(1000)  # first call loads the kernel
        start, end = self._new_events()
        self._record(start)
        self._sleep(1_000_000)
        self._record(end)
        self._sync(self.device)
        us = self._elapsed(start, end) * 1000.0
        return 1_000_000 / us if us > 0 else None

    def _new_events(self):
        return self._event(enable_timing=True), self._event(enable_timing=True)

    def _flush(self) -> None:
        if self.buffer is not None:
            self.buffer.zero_()

    def sleep_ahead(self, calls: int) -> None:
        """Queue a GPU sleep long enough for the host to launch ``calls`` calls before the GPU reaches them."""
        if self._cycles_per_us:
            self._sleep(int(self._cycles_per_us * self.SLEEP_AHEAD_US * max(1, calls)))

    def _queue(self, fn: Callable[..., object], args: tuple = ()):
        """Flush, then start event, call, end event, with nothing synchronised in between: (start, end, output)."""
        self._flush()
        start, end = self._new_events()
        self._record(start)
        out = fn(*args)
        self._record(end)
        return start, end, out

    def once(self, fn: Callable[[], object]):
        """One queued call (see ``_queue``); returns the event pair, read later by ``read``."""
        return self._queue(fn)[:2]

    def round(self, fn: Callable[..., object], calls: int, prepare: Callable[[int], tuple] | None = None):
        """``calls`` calls of ``fn(*prepare(j))`` queued behind a GPU sleep (see the class), each flushed and timed;
        returns a ``CallTiming`` per call after one synchronise."""
        self.sleep_ahead(calls)
        pending = [self._queue(fn, prepare(j) if prepare is not None else ()) for j in range(calls)]
        self._sync(self.device)
        return [CallTiming(self._elapsed(s, e) * 1000.0, out) for s, e, out in pending]

    def host_call(self, fn: Callable[..., object], *args) -> HostCheck:
        """One call with the GPU idle at its start: event time on the current stream and host time around the call
        and a device-wide synchronise, so that work on other streams shows as host time above event time."""
        self._flush()
        self._sync(self.device)
        start, end = self._new_events()
        t0 = self._clock()
        self._record(start)
        out = fn(*args)
        self._record(end)
        self._sync()
        t1 = self._clock()
        return HostCheck(self._elapsed(start, end) * 1000.0, (t1 - t0) * 1e6, out)

    def warm(self, fn: Callable[[], object], warmup: int) -> None:
        for _ in range(warmup):
            fn()
        self._sync(self.device)

    def read(self, events) -> list[float]:
        self._sync(self.device)
        return [self._elapsed(s, e) * 1000.0 for s, e in events]

    def tampered(self) -> list[str]:
        """The timing functions replaced since the timer was made (by a kernel module, say)."""
        return [name for name, (owner, attr, orig) in self._bound.items() if getattr(owner, attr) is not orig]


def time_callable(
    fn: Callable[[], object], *, iters: int = 100, warmup: int = 10, flush_l2: bool = True, device=None
) -> Timing:
    """Time ``fn()`` ``iters`` times on the current GPU with events around each call, L2 flushed before each."""
    if iters < 1:
        raise ValueError("iters must be >= 1")
    runner = EventTimer(flush_l2, device)
    runner.warm(fn, warmup)
    times = [c.event_us for c in runner.round(fn, iters)]
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
    events: dict[str, list] = {"baseline": [], "candidate": []}
    fns = {"baseline": baseline, "candidate": candidate}
    runner.sleep_ahead(2 * rounds)
    for i in range(rounds):
        for role in abba(i, ("baseline", "candidate")):
            events[role].append(runner.once(fns[role]))
    return compare_times(
        runner.read(events["baseline"]), runner.read(events["candidate"]), device=runner.name, threshold=threshold
    )


def abba(i: int, pair: tuple[str, str]) -> tuple[str, str]:
    """The order of the two sides in round ``i``: AB, BA, AB... (drift and thermal state hit both alike; an even
    number of rounds puts each side first equally often). Used by every A/B loop: ``compare_callables``,
    ``gpu_runner.run_pair`` and the eval harness."""
    return pair if i % 2 == 0 else (pair[1], pair[0])
