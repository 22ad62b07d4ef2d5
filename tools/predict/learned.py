"""A learned, bounded correction of a prediction, for devices whose measured validation data fitted one (issue 31).

The model's own figures of a call (each term's share of its longest launch's time, the bound, occupancy, rounds,
bytes in flight, the trips' evidence: ``featurize``) go through boosted regression trees that a device's
``tools/isa/machines/<name>.correction.json`` holds (fitted by ``benchmarks/predict_learned.py`` on that device's
measured corpora; the file names them and the held-out figures it was judged by). The trees give log(measured /
predicted); the correction multiplies the model's time by that factor, capped at ``cap`` either way and never below
the launches' hard floors (DRAM bytes at peak bandwidth, tensor work at peak, the model's own device floor). Bounds
resting on their own measured tables (atomics, launch and block-launch rates) are left alone. The model's time is
never replaced: the estimate is printed beside it with its evidence.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

from tools.isa.machines import Machine
from tools.models.predict import LaunchPrediction, LearnedEstimate

TERMS = ("issue_us", "valu_us", "matrix_us", "lds_us", "hbm_us", "l2_us", "latency_us", "tail_us", "atomic_us",
         "block_launch_us", "launch_overhead_us")  # fmt: skip
BOUNDS = ("memory_latency", "hbm_bandwidth", "valu", "atomic_contention", "issue", "l2_bandwidth", "block_launch",
          "tensor", "tail", "lds", "launch_overhead")  # fmt: skip
TRIPS = ("loop-bounds", "no-loop", "assumption")
# each rests on its own measured device table (atomic sweeps, launch rates), which the term shares do not describe
UNCORRECTED = frozenset({"atomic_contention", "launch_overhead", "block_launch"})


def _log(x, floor=1e-3) -> float:
    return math.log(max(float(x or 0.0), floor))


def feature_names() -> list[str]:
    return (["log_pred"] + [f"share_{t}" for t in TERMS] + [f"bound_{b}" for b in BOUNDS] + [f"trips_{t}" for t in TRIPS]
            + ["log_waves", "log_blocks", "log_rounds", "active_share", "log_programs", "log_threads",
               "log_inflight_wave", "log_requested_over_moved", "log_unique_over_moved", "log_iter_cycles",
               "log_trips", "launches", "log_local", "log_atomic_updates"])  # fmt: skip


def launch_row(p: LaunchPrediction) -> dict:
    """One modelled launch as the features read it (the shape benchmarks/predict_features.py writes)."""
    return {"predicted_us": p.predicted_us, "bound": p.bound, "trips": p.trips.source, "programs": p.programs,
            "block_threads": p.block_threads, "figures": p.figures.model_dump()}  # fmt: skip


def longest(launches: list[dict]) -> dict:
    """The launch whose figures stand for the call (the one that takes longest)."""
    return max(launches, key=lambda p: p["predicted_us"] or 0.0)


def featurize(total_us: float, launches: list[dict], cus: int) -> list[float]:
    """The model's own figures of a call of ``launches`` (``launch_row``s) predicted at ``total_us``."""
    launch = longest(launches)
    f, t = launch["figures"], launch["predicted_us"] or 1e-3
    moved = f.get("bytes_moved") or 0.0
    x = [_log(total_us)]
    x += [_log((f.get(term) or 0.0) / t, 1e-4) for term in TERMS]
    x += [1.0 if launch["bound"] == b else 0.0 for b in BOUNDS]
    x += [1.0 if launch["trips"] == s else 0.0 for s in TRIPS]
    x += [
        _log(f.get("resident_waves_per_cu"), 1),
        _log(f.get("resident_blocks_per_cu"), 1),
        _log(f.get("rounds"), 1),
        (f.get("active_cus") or 0) / cus,
        _log(launch.get("programs"), 1),
        _log(launch.get("block_threads"), 1),
        _log(f.get("bytes_in_flight_per_wave"), 1),
        _log((f.get("bytes_requested") or 0.0) / moved, 1e-3) if moved else 0.0,
        _log((f.get("unique_tensor_bytes") or 0.0) / moved, 1e-3) if moved else 0.0,
        _log(f.get("iteration_cycles"), 1),
        _log(f.get("trips"), 1),
        float(len(launches)),
        math.log1p(f.get("local_bytes") or 0.0),
        math.log1p(f.get("atomic_updates_per_address") or 0.0),
    ]
    return x


def floor_factor(total_us: float, launches: list[dict], peak_share: float) -> float:
    """The lowest factor the correction may apply: the launches' hard floors over the model's time (``hbm_us`` is at
    the achievable bandwidth; ``peak_share`` = achievable / peak brings it to the peak)."""
    floor = sum(max((p["figures"].get("hbm_us") or 0.0) * peak_share, p["figures"].get("matrix_us") or 0.0,
                    p["figures"].get("floor_us") or 0.0) for p in launches)  # fmt: skip
    return floor / total_us if total_us else 0.0


def bounded(total_us: float, launches: list[dict], log_factor: float, cap: float, peak_share: float) -> float:
    """The corrected time: ``total_us`` x exp(log_factor) capped to [1/cap, cap], never below the floors; a call
    whose longest launch has an UNCORRECTED bound keeps its time."""
    if longest(launches)["bound"] in UNCORRECTED:
        return total_us
    factor = min(max(math.exp(log_factor), 1 / cap), cap)
    return total_us * max(factor, floor_factor(total_us, launches, peak_share))


def evaluate(trees: dict, x: list[float]) -> float:
    """log(measured / predicted) by the exported trees: ``base + rate * sum(tree(x))``; a node is ``[feature,
    threshold, left, right]`` (left when x[feature] < threshold) or a leaf value."""
    total = 0.0
    for node in trees["trees"]:
        while isinstance(node, list):
            node = node[2] if x[node[0]] < node[1] else node[3]
        total += node
    return trees["base"] + trees["rate"] * total


def correction_path(m: Machine) -> Path:
    return Path(m.path).with_name(f"{m.name}.correction.json")


@cache
def _load(path: str, mtime_ns: int) -> dict:
    return json.loads(Path(path).read_text())


def correction_of(m: Machine) -> dict | None:
    """The device's fitted correction, or None where its validation data fitted none."""
    path = correction_path(m)
    if not m.path or not path.is_file():
        return None
    data = _load(str(path), path.stat().st_mtime_ns)
    return data if data.get("features") == feature_names() else None  # another feature set: not ours to apply


def learned_estimate(m: Machine, launches: list[LaunchPrediction], total_us: float | None) -> LearnedEstimate | None:
    """The corrected time of a call of ``launches`` predicted at ``total_us`` on ``m``, with its evidence; None
    where the device has no correction or nothing was predicted."""
    data = correction_of(m)
    modelled = [p for p in launches if not p.not_modelled and p.predicted_us is not None]
    if data is None or not total_us or not modelled:
        return None
    rows = [launch_row(p) for p in modelled]
    peak_share = m.value("hbm_achievable_gbs") / m.value("hbm_peak_gbs")
    if (bound := longest(rows)["bound"]) in UNCORRECTED:
        return LearnedEstimate(corrected_us=None, factor=None, applied=False, source=data["source"],
                               why=f"not corrected: {bound}-bound predictions rest on their own measured "
                               "table, which the correction was not fitted on")  # fmt: skip
    raw = evaluate(data, featurize(total_us, rows, int(m.value("compute_units"))))
    us = bounded(total_us, rows, raw, data["cap"], peak_share)
    band = data.get("band") or {}
    return LearnedEstimate(corrected_us=round(us, 3), factor=round(us / total_us, 4), applied=True,
                           source=data["source"], why=data["held_out"],
                           band=(band["low"], band["high"]) if band else None, band_source=band.get("source"))  # fmt: skip
