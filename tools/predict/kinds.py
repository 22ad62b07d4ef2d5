"""The kind of a prediction, and the band its kind's validation residuals give (issue 31).

A prediction's band is the 10th-90th percentile of measured / predicted time over the validation's predictions of
the same kind (``PredictionKind`` in tools.models.predict, one closed set), read from the machine file's
``kind_bands`` block, which ``benchmarks/predict_bands.py --write`` computes from recorded GPU data and writes with
its source (data sets, counts, date, predictor commit). The kind is read from the model's own figures: the first of
``KIND_RULES`` that holds. A kind with too few residuals in the file (``status: too_few``) falls back to the
device-wide band (the table's ``device_wide``, every kind's residuals together; else the file's ``band``) and says so (``assumed``, the reason in ``rests_on``); a device without ``kind_bands`` keeps its
device-wide band; an unvalidated device stays ``unvalidated``.

A pair's speedup band: both sides of one kind, with that class of pairs validated, the same-kind pairs' residuals
(measured / predicted speedup; the two sides' errors move together); otherwise the two sides' time bands composed
(measured speedup / predicted = before's ratio / after's ratio, each side in its own band). Each side's assumptions
widen it as they widen that side's time band.

Pure functions of figures the predictor already has and of the machine file's data: no compiler, no file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

from tools.models.predict import Band, PredictionKind

KINDS: tuple[str, ...] = get_args(PredictionKind)

_LAUNCH_BOUNDS = ("launch_overhead", "block_launch", "tail")
_LOADED_TRIPS = "read from the example tensors"  # tools.predict.trips: loop bounds loaded from recorded tensor values


def _atomic(bound, figures, trips, assumption_kinds) -> bool:
    return bound == "atomic_contention" or bool(figures.atomic_updates_per_address) or "atomic" in assumption_kinds


# (kind, what it means, test on (bound, figures, trips, kinds the assumptions name)): the first that holds is the kind
KIND_RULES: tuple[tuple[str, str, Callable[..., bool]], ...] = (
    ("atomic", "global atomics shared by programs, or whose addresses the model cannot count", _atomic),
    (
        "stated_trips",
        "the hot loop's trips are stated, not read from the code",
        lambda b, f, t, k: "stated_trips" in k,
    ),
    (
        "loaded_trips",
        "loop bounds loaded from tensors, evaluated on the example values",
        lambda b, f, t, k: _LOADED_TRIPS in (t.detail or ""),
    ),
    ("launch", "bound by the launch overhead, the block launch rate or the last round", lambda b, f, t, k: b in _LAUNCH_BOUNDS),
    ("tensor", "bound by tensor-core / MFMA time", lambda b, f, t, k: b in ("tensor", "mfma")),
    ("latency", "bound by memory latency (bytes in flight / DRAM latency)", lambda b, f, t, k: b == "memory_latency"),
    ("bandwidth", "bound by HBM or L2 bandwidth", lambda b, f, t, k: b in ("hbm_bandwidth", "l2_bandwidth")),
    ("compute", "bound by instruction issue, VALU or LDS time", lambda b, f, t, k: True),
)  # fmt: skip


def kind_of(bound: str | None, figures, trips, assumption_kinds: set[str] | frozenset = frozenset()) -> str:
    """The prediction's kind: the first ``KIND_RULES`` entry whose test holds on its bound, figures (LaunchFigures),
    trip evidence (TripEvidence) and the kinds its assumptions name (``evidence.Assumption.kind``)."""
    return next(kind for kind, _, test in KIND_RULES if test(bound, figures, trips, assumption_kinds))


def _residuals_words(table: dict, n: int, kind: str) -> str:
    return (
        f"{n} {table.get('device') or '?'} residuals of kind {kind} (benchmarks/predict_bands.py, "
        f"{table.get('date') or '?'}, predictor {str(table.get('predictor') or '?')[:9]})"
    )


def kind_band(device: Band, table: dict | None, kind: str) -> Band:
    """The band of a prediction of ``kind`` before its assumptions: the kind's residual quantiles from ``table`` (a
    machine file's ``kind_bands``); with too few residuals the device-wide band, ``assumed``, saying so; without a
    table the device's band; an unvalidated device's band as it is."""
    if device.status != "validated":
        return device.model_copy(update={"kind": kind})
    if not table:
        return device.model_copy(update={"kind": kind, "residuals": "the device-wide band (no kind_bands in its file)"})
    entry = (table.get("kinds") or {}).get(kind) or {"status": "too_few", "n": 0}
    n = int(entry.get("n") or 0)
    if entry.get("status") == "validated":
        return Band(
            low=entry["low"],
            high=entry["high"],
            status="validated",
            source=table.get("source") or device.source,
            note=device.note,
            kind=kind,
            residuals=_residuals_words(table, n, kind),
        )
    least = table.get("min_residuals", "?")
    wide = table.get("device_wide") or {}
    ends = {}
    if wide.get("status") == "validated":
        ends = {"low": wide["low"], "high": wide["high"], "source": table.get("source") or device.source}
    return device.model_copy(
        update={
            **ends,
            "status": "assumed",
            "kind": kind,
            "residuals": f"the device-wide band: kind {kind} has {n} residual(s) (fewer than {least})",
            "rests_on": [
                f"kind {kind}: only {n} validation residual(s) (fewer than {least}): the device-wide band, not the "
                "kind's"
            ],
        }
    )


def pair_band(
    speedup: float, before: Band, after: Band, device: Band, table: dict | None
) -> tuple[float | None, float | None] | None:
    """A predicted speedup's band (before / after) from both sides' bands; None when a side is undetermined or
    unvalidated (or the device has no band for it); a side None where an assumption opens it."""
    if device.status != "validated" or any(b.status in ("undetermined", "unvalidated") for b in (before, after)):
        return None
    b_lo, b_hi = before.widened
    a_lo, a_hi = after.widened
    same = ((table or {}).get("pairs") or {}).get("same_kind") or {}
    if table and before.kind == after.kind and same.get("status") == "validated":
        base = (same["speedup_low"], same["speedup_high"])
    elif table:  # the two sides' bands composed: their widening is already in them
        base, (b_lo, b_hi, a_lo, a_hi) = (1.0, 1.0), (before.low, before.high, after.low, after.high)
    elif device.speedup_low and device.speedup_high:  # no kind bands: the device's pairs band, as before
        base = (device.speedup_low, device.speedup_high)
    else:
        return None
    low = speedup * base[0] * b_lo / a_hi if b_lo and a_hi else None
    high = speedup * base[1] * b_hi / a_lo if b_hi and a_lo else None
    if low is None and high is None:
        return None
    return (round(low, 4) if low else None, round(high, 4) if high else None)
