"""Each prediction carries its own evidence and band (issue 31): a prediction resting on nothing assumed prints its
device's validated band; one resting on an assumption says so in its summary line and its band is ``assumed``
(widened) or ``undetermined``; verdicts on predicted speed decide only outside the pair's band.

Kernels are ours (tests/data/predict), compiled here for sm_90 and predicted for the H200, whose machine file holds a
validated band (x0.855-x1.746 for a time, x0.788-x1.550 for a speedup)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.isa.machines import machine
from tools.models.outcome import Correctness
from tools.outcome import decide, speed_from_prediction
from tools.predict import band_of, predict_launch, predict_pair
from tools.predict.cli import predict_file
from tools.predict.evidence import Assumption, launch_band, pair_speedup_band, sass_atomic_assumptions

DATA = Path(__file__).resolve().parent / "data" / "predict"
H200 = band_of(machine("h200"))


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
    assert (p.band.low, p.band.high) == (0.855, 1.746)
    assert "band validated: measured / predicted x0.855-x1.746" in r.summary


@pytest.mark.slow
def test_a_loop_bound_reduced_from_loaded_lengths_is_undetermined_and_says_why():
    r = predict_file(DATA / "max_len_sum.py", "sm_90", device="h200")
    (p,) = r.launches
    # the bound is tl.max over a loaded block of lengths: not evaluated, so one iteration is assumed
    assert p.trips.source == "assumption" and p.trips.trips == 1
    assert p.band.status == "undetermined" and p.band.low is None and p.band.high is None
    assert any(w.startswith("the hot loop's trips are assumed") for w in p.band.rests_on)
    assert r.band.status == "undetermined"
    assert "band undetermined (the hot loop's trips are assumed" in r.summary and r.summary.endswith("measure on a GPU")


@pytest.mark.slow
def test_a_stated_trip_count_is_assumed_with_the_device_band_not_validated():
    (k,) = kernels("max_len_sum")
    p = predict_launch(k, device="h200", trips=64)
    assert p.trips.source == "assumption" and p.trips.trips == 64
    assert p.band.status == "assumed" and (p.band.low, p.band.high) == (0.855, 1.746)
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
    # bandwidth, 1.00x predicted, and the speedup band x0.788-x1.550 straddles 1
    pair, speed, (verdict, why) = _verdict("stream_copy", "column_tile_copy")
    assert pair.predicted_speedup == pytest.approx(1.0, abs=0.01)
    assert speed.verdict == "within-band" and verdict == "undetermined"
    assert why.startswith("neither faster nor slower beyond the prediction's band: predicted 1.00× (band 0.79–1.55")
    assert f"{pair.baseline_predicted_us:.1f} → {pair.predicted_us:.1f} µs" in why


@pytest.mark.slow
def test_a_predicted_margin_outside_the_band_decides():
    # the same copy by 132 persistent programs, each waiting on one block at a time: latency-bound, 61.2 us of kernel
    # time against the one-program-per-block copy's 32.3 (HBM-bound), 0.53x, and the whole speedup band
    # (0.53 x 0.788..1.550) lies under 1
    pair, speed, (verdict, why) = _verdict("stream_copy", "persistent_copy")
    assert pair.predicted_speedup == pytest.approx(0.529, abs=0.005)
    low, high = pair.speedup_band
    assert high == pytest.approx(pair.predicted_speedup * 1.55, abs=1e-3) and high < 1
    assert speed.verdict == "slower" and verdict == "fail" and "slower: predicted 0.53×" in why


@pytest.mark.slow
def test_a_side_with_an_assumed_trip_count_leaves_the_pair_undetermined_never_a_fail():
    pair, speed, (verdict, why) = _verdict("stream_copy", "max_len_sum")
    assert pair.speedup_band is None and speed.verdict == "undetermined" and verdict == "undetermined"
    assert "no error band for this pair: after: band undetermined (the hot loop's trips are assumed" in speed.note


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
