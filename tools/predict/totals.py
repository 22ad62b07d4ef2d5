"""A call's launches summed: the total and its bound, the band of the sum, and a launch's kernel time without the
fixed launch overhead (what the verdicts compare)."""

from __future__ import annotations

from tools.isa.arch import is_amd
from tools.isa.machines import Machine
from tools.models.predict import Band, LaunchPrediction
from tools.predict.evidence import band_of, combined_band
from tools.predict.terms import TERMS

# the terms a kernel's own time can be bound by, under a launch-overhead bound (tools.predict.terms)
KERNEL_TERMS = ("memory_latency", "hbm_bandwidth", "l2_bandwidth", "block_launch", "atomic_contention", "issue",
                "valu", "matrix", "lds")  # fmt: skip


def total_of(launches: list[LaunchPrediction]) -> tuple[float | None, str | None]:
    """The launches' summed time and the bound of the longest one; None if any launch is undetermined, except
    library ops that are ``not_modelled`` (left out of the sum, see ``not_modelled_notes``) beside a modelled one."""
    modelled = [p for p in launches if not p.not_modelled]
    if not modelled or any(p.predicted_us is None for p in modelled):
        return None, None
    longest = max(modelled, key=lambda p: p.predicted_us)
    return round(sum(p.predicted_us for p in modelled), 3), longest.bound


def not_modelled_notes(launches: list[LaunchPrediction]) -> list[str]:
    """One line per launch the total leaves out, and why."""
    return [f"launch {i} {p.name}: not modelled ({p.not_modelled})" for i, p in enumerate(launches) if p.not_modelled]


def sum_band(m: Machine, launches: list[LaunchPrediction]) -> Band:
    """The band of a call's summed time: its modelled launches' bands combined (``evidence.combined_band``)."""
    modelled = [p for p in launches if not p.not_modelled]
    times = [p.predicted_us or 0.0 for p in modelled]
    longest = times.index(max(times)) if times else 0
    return combined_band(band_of(m), [p.band for p in modelled], [p.name for p in modelled], longest)


def kernel_us(p: LaunchPrediction) -> float:
    """One launch's predicted GPU time without the device's fixed per-launch overhead."""
    return p.predicted_us - (p.figures.launch_overhead_us or 0.0)


def kernel_bound(p: LaunchPrediction) -> str | None:
    """What bounds the kernel itself: the model's bound, or under a launch-overhead bound its largest term."""
    if p.bound != "launch_overhead":
        return p.bound
    terms = {t.name: getattr(p.figures, t.field) or 0.0 for t in TERMS if t.name in KERNEL_TERMS}
    largest = max(terms, key=terms.get)
    if largest == "matrix":  # the matrix term's bound names its unit, as the model's does
        return "mfma" if is_amd(p.arch) else "tensor"
    return largest
