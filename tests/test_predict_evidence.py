"""Each prediction carries its own evidence and band: a prediction resting on nothing assumed prints its
kind's validated band (the validation residuals of predictions of the same kind, tools/predict/kinds.py); one resting
on an assumption says so in its summary line and its band is ``assumed`` (widened) or ``undetermined``; verdicts on
predicted speed decide only outside the pair's band, built from both sides' kinds.

Kernels are ours (tests/data/predict), compiled here for sm_90 and predicted for the H200, whose machine file holds a
validated device band (x0.855-x1.746 for a time, x0.788-x1.550 for a speedup) and per-kind bands
(benchmarks/predict_bands.py on the committed H200 data: bandwidth x0.9642-x1.3894 over 49 residuals, latency
x0.771-x1.6013 over 34, stated_trips x0.887-x2.2886 over 14; pairs of one kind x0.849-x1.2842 over 45)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.isa.machines import machine
from tools.models.outcome import Correctness
from tools.models.predict import LaunchFigures, TripEvidence
from tools.outcome import decide, speed_from_prediction
from tools.predict import band_of, predict_launch, predict_pair
from tools.predict.cli import predict_file
from tools.predict.evidence import Assumption, launch_band, pair_speedup_band, sass_atomic_assumptions
from tools.predict.kinds import KIND_RULES, kind_band, kind_of
from tools.predict.kinds import KINDS as KIND_NAMES

DATA = Path(__file__).resolve().parent / "data" / "predict"
H200 = band_of(machine("h200"))
KINDS = machine("h200").kind_bands


def kind_ends(kind: str) -> tuple[float, float]:
    e = KINDS["kinds"][kind]
    return e["low"], e["high"]


@cache
def kernels(name: str):
    return dump_ir(DATA / f"{name}.py", "sm_90").kernels


def test_the_h200_device_band_is_the_validated_one_these_tests_widen():
    assert (H200.status, H200.low, H200.high, H200.speedup_low, H200.speedup_high) == (
        "validated", 0.855, 1.746, 0.788, 1.550,
    )  # fmt: skip


@pytest.mark.slow
def test_a_plain_copy_rests_on_nothing_assumed_and_prints_validated():
    r = predict_file(DATA / "stream_copy.py", "sm_90", device="h200")
    (p,) = r.launches
    assert p.trips.source == "no-loop" and p.band.status == "validated" and p.band.rests_on == []
    # HBM-bound, loop bounds known: kind bandwidth, whose 49 H200 residuals give x0.9642-x1.3894
    assert p.bound == "hbm_bandwidth" and p.band.kind == "bandwidth"
    assert (p.band.low, p.band.high) == kind_ends("bandwidth") == (0.9642, 1.3894)
    assert (
        "band validated, kind bandwidth: measured / predicted x0.9642-x1.3894 (10th-90th percentile of 49 h200 "
        "residuals of kind bandwidth (benchmarks/predict_bands.py" in r.summary
    )
    assert r.band.kind == "bandwidth" and r.model_dump()["band"]["residuals"].startswith("49 h200 residuals")


@pytest.mark.slow
def test_a_loop_bound_reduced_from_loaded_lengths_is_undetermined_and_says_why():
    r = predict_file(DATA / "max_len_sum.py", "sm_90", device="h200")
    (p,) = r.launches
    # the bound is tl.max over a loaded block of lengths: not evaluated, so one iteration is assumed
    assert p.trips.source == "assumption" and p.trips.trips == 1
    assert p.band.status == "undetermined" and p.band.low is None and p.band.high is None
    assert any(w.startswith("the hot loop's trips are assumed") for w in p.band.rests_on)
    assert r.band.status == "undetermined"
    # an assumed (not stated) trip count: the kind is its bound's, and no band
    assert p.band.kind == "launch" and "band undetermined, kind launch (the hot loop's trips are assumed" in r.summary
    assert r.summary.endswith("measure on a GPU")


@pytest.mark.slow
def test_a_stated_trip_count_is_assumed_with_the_stated_trips_kinds_band():
    (k,) = kernels("max_len_sum")
    p = predict_launch(k, device="h200", trips=64)
    assert p.trips.source == "assumption" and p.trips.trips == 64
    # the validation's stated-trips predictions (CUDA tasks, trips from their bytes) missed by up to x2.29
    assert p.band.kind == "stated_trips" and p.band.status == "assumed"
    assert (p.band.low, p.band.high) == kind_ends("stated_trips") == (0.887, 2.2886)
    assert p.band.rests_on[0] == "the hot loop's trips are stated (--trips 64), not read from the code"


def test_an_assumption_widens_the_band_by_what_it_can_cost():
    # an unroll of 19 read from bytes alone: 19x as many iterations if the bytes were a replicated load instead
    unroll = Assumption("unroll 19x from bytes", high=19.0)
    b = launch_band(H200, [unroll])
    assert (b.status, b.low, b.high) == ("assumed", 0.855, round(1.746 * 19, 4))
    # contention not counted: a floor, open above
    b = launch_band(H200, [Assumption("atomics from loaded data", high=None)])
    assert (b.status, b.low, b.high) == ("assumed", 0.855, None)
    # an unvalidated device stays unvalidated, with what the prediction rests on listed
    mi = band_of(machine("mi300x"))
    b = launch_band(mi, [unroll])
    assert b.status == "unvalidated" and b.rests_on == ["unroll 19x from bytes"]


def test_a_speedup_band_widens_with_each_side_and_opens_where_a_side_is_open():
    b = launch_band(H200, [Assumption("x", high=2.0)])
    # after's time up to 2x its validated top: the speedup can be 2x lower; before's: 2x higher
    assert pair_speedup_band(1.0, H200, b, H200) == (round(0.788 / 2, 4), 1.55)
    assert pair_speedup_band(1.0, b, H200, H200) == (0.788, round(1.55 * 2, 4))
    opened = launch_band(H200, [Assumption("y", high=None)])
    assert pair_speedup_band(1.0, H200, opened, H200) == (None, 1.55)
    undetermined = launch_band(H200, [Assumption("z", low=None, high=None, decides=True)])
    assert pair_speedup_band(1.0, H200, undetermined, H200) is None


def _verdict(before: str, after: str):
    pair = predict_pair(kernels(before), kernels(after), arch="sm_90", device="h200", kernel_time=True)
    speed = speed_from_prediction(pair)
    return pair, speed, decide([], Correctness(checked=True, ok=True, source="check", note="same"), speed)


@pytest.mark.slow
def test_a_predicted_margin_inside_the_band_is_undetermined_with_both_times():
    # the row-major copy against a tiled copy of a column-major matrix of the same bytes: both 134217728 B at HBM
    # bandwidth (both sides of kind bandwidth), 1.00x predicted, and the same-kind pairs' band x0.849-x1.2842
    # straddles 1
    pair, speed, (verdict, why) = _verdict("stream_copy", "column_tile_copy")
    assert pair.predicted_speedup == pytest.approx(1.0, abs=0.01)
    same = KINDS["pairs"]["same_kind"]
    assert pair.speedup_band == pytest.approx(
        (pair.predicted_speedup * same["speedup_low"], pair.predicted_speedup * same["speedup_high"]), abs=1e-3
    )
    assert speed.verdict == "within-band" and verdict == "undetermined"
    assert why.startswith("neither faster nor slower beyond the prediction's band: predicted 1.00× (band 0.85–1.28")
    assert f"{pair.baseline_predicted_us:.1f} → {pair.predicted_us:.1f} µs" in why


@pytest.mark.slow
def test_a_predicted_margin_outside_the_band_decides():
    # the same copy by 132 persistent programs, each waiting on one block at a time: latency-bound, 61.2 us of kernel
    # time against the one-program-per-block copy's 32.3 (HBM-bound), 0.53x. The sides are of two kinds, so their
    # time bands compose: measured speedup / predicted lies in [bandwidth low / latency high, bandwidth high /
    # latency low] = [0.9642 / 1.6013, 1.3894 / 0.771], and 0.53 x 1.802 = 0.95 is still under 1
    pair, speed, (verdict, why) = _verdict("stream_copy", "persistent_copy")
    assert pair.predicted_speedup == pytest.approx(0.529, abs=0.005)
    (bw_lo, bw_hi), (lat_lo, lat_hi) = kind_ends("bandwidth"), kind_ends("latency")
    low, high = pair.speedup_band
    assert low == pytest.approx(pair.predicted_speedup * bw_lo / lat_hi, abs=1e-3)
    assert high == pytest.approx(pair.predicted_speedup * bw_hi / lat_lo, abs=1e-3) and high < 1
    assert speed.verdict == "slower" and verdict == "fail" and "slower: predicted 0.53×" in why


@pytest.mark.slow
def test_a_side_with_an_assumed_trip_count_leaves_the_pair_undetermined_never_a_fail():
    pair, speed, (verdict, why) = _verdict("stream_copy", "max_len_sum")
    assert pair.speedup_band is None and speed.verdict == "undetermined" and verdict == "undetermined"
    assert "no error band for this pair: after: band undetermined, kind launch (the hot loop's trips are assumed" in (
        speed.note
    )


@pytest.mark.slow
def test_global_atomics_in_a_cuda_kernels_sass_open_the_band_above(tmp_path):
    # a histogram: each thread adds 1 to the bin its byte names (a global atomicAdd, REDG in the SASS); without TTIR
    # nothing tells how many updates meet at one bin, so the prediction is a floor
    src = tmp_path / "hist.cu"
    src.write_text(
        "__global__ void hist(const unsigned char *x, int *bins, long n) {\n"
        "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
        "  if (i < n) atomicAdd(&bins[x[i]], 1);\n"
        "}\n"
    )
    (k,) = dump_ir(src, "sm_90").kernels
    (found,) = sass_atomic_assumptions(Path(k.final_isa).read_text(), k.name)
    assert found.high is None and found.text.startswith("1 global atomic instruction(s) in the SASS")
    assert launch_band(H200, [found]).status == "assumed"


# ---- kinds and their bands (tools/predict/kinds.py) -------------------------------------------------------------


def test_the_kind_is_the_first_rule_that_holds_on_the_models_own_figures():
    assert [k for k, _, _ in KIND_RULES] == list(KIND_NAMES)  # one table, in PredictionKind's order
    loop = TripEvidence(source="loop-bounds", trips=8, detail="scf.for bounds evaluated on the example arguments")
    plain = LaunchFigures()
    assert kind_of("hbm_bandwidth", plain, loop) == kind_of("l2_bandwidth", plain, loop) == "bandwidth"
    assert kind_of("memory_latency", plain, loop) == "latency"
    assert kind_of("tensor", plain, loop) == "tensor" and kind_of("issue", plain, loop) == "compute"
    assert kind_of("block_launch", plain, loop) == kind_of("launch_overhead", plain, loop) == "launch"
    # evidence outranks the bound: loaded lengths, stated trips, then atomics above all
    loaded = loop.model_copy(
        update={"detail": loop.detail + " (values loaded from lens read from the example tensors)"}
    )
    assert kind_of("memory_latency", plain, loaded) == "loaded_trips"
    stated = TripEvidence(source="assumption", trips=64, detail="--trips 64 (stated)")
    assert kind_of("hbm_bandwidth", plain, stated, {"stated_trips"}) == "stated_trips"
    assert kind_of("hbm_bandwidth", plain, stated) == "bandwidth"  # assumed, not stated: its band is undetermined
    shared = LaunchFigures(atomic_updates_per_address=4096)
    assert kind_of("hbm_bandwidth", shared, stated, {"stated_trips"}) == "atomic"
    assert kind_of("hbm_bandwidth", plain, loop, {"atomic"}) == "atomic"  # an atomic assumption (SASS, loaded address)


def test_a_kind_with_too_few_residuals_falls_back_to_the_device_wide_band_and_says_so():
    # three launch-bound variants in the H200 validation: fewer than 8, so the device-wide band (all 103
    # calibrating residuals) is printed, assumed, the reason in rests_on
    assert KINDS["kinds"]["launch"] == {"status": "too_few", "n": 3}
    b = kind_band(H200, KINDS, "launch")
    wide = KINDS["device_wide"]
    assert (b.status, b.low, b.high, b.kind) == ("assumed", wide["low"], wide["high"], "launch")
    assert b.rests_on == [
        "kind launch: only 3 validation residual(s) (fewer than 8): the device-wide band, not the kind's"
    ]
    # a validated kind: its own quantiles, validated, naming the residuals
    b = kind_band(H200, KINDS, "latency")
    assert (b.status, b.low, b.high) == ("validated", *kind_ends("latency"))
    assert b.residuals.startswith("34 h200 residuals of kind latency (benchmarks/predict_bands.py, ")
    # AMD stays unvalidated whatever a table says; a device without a table keeps its device band
    mi = band_of(machine("mi300x"))
    assert kind_band(mi, KINDS, "latency").status == "unvalidated"
    assert (kind_band(H200, {}, "latency").low, kind_band(H200, {}, "latency").status) == (0.855, "validated")


def test_a_pairs_speedup_band_uses_both_sides_kinds():
    bw, lat = kind_band(H200, KINDS, "bandwidth"), kind_band(H200, KINDS, "latency")
    same = KINDS["pairs"]["same_kind"]
    # one kind on both sides: the same-kind pairs' residuals
    assert pair_speedup_band(2.0, bw, bw, H200, KINDS) == (
        round(2 * same["speedup_low"], 4), round(2 * same["speedup_high"], 4),
    )  # fmt: skip
    # two kinds: each side in its own band, before's ratio over after's
    assert pair_speedup_band(2.0, bw, lat, H200, KINDS) == (
        round(2 * bw.low / lat.high, 4), round(2 * bw.high / lat.low, 4),
    )  # fmt: skip
    # an assumption on one side widens it by its factor, opens it where open
    wide = launch_band(bw, [Assumption("unroll 3x from bytes", high=3.0)])
    assert wide.widened == (1.0, 3.0) and wide.kind == "bandwidth"
    assert pair_speedup_band(2.0, bw, wide, H200, KINDS) == (
        round(2 * same["speedup_low"] / 3, 4), round(2 * same["speedup_high"], 4),
    )  # fmt: skip
    opened = launch_band(bw, [Assumption("contention not counted", high=None)])
    assert pair_speedup_band(2.0, opened, bw, H200, KINDS)[1] is None
