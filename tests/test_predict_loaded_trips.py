"""Loop bounds read from tensors: a Triton kernel whose loop bound is loaded from a tensor argument
(``ctx_len = tl.load(lens + pid)``, then ``for i in range(0, ctx_len, BLOCK)``) gets its trips per program from the
example tensor's values, recorded with the launch; without them the bound is assumed, and the band says so.

The kernel is a paged-decode-like row sum (tests/data/predict/loaded_len_sum.py), compiled here for sm_90."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.predict import predict_launch

DATA = Path(__file__).resolve().parent / "data" / "predict"


def test_only_small_integer_cpu_tensors_keep_their_values():
    import torch

    from tools.frontends._triton_jit import MAX_RECORDED_VALUES, tensor_values

    assert tensor_values(torch.tensor([[3, 1], [4, 1]], dtype=torch.int64)) == [3, 1, 4, 1]  # flattened, in order
    assert tensor_values(torch.ones(4)) is None  # floats are data, not lengths
    assert tensor_values(torch.zeros(MAX_RECORDED_VALUES + 1, dtype=torch.int32)) is None  # a table, not a batch
    # torch.empty under fill_uninitialized (what the compile child sets before the entry runs): the dtype's maximum in
    # every element, so an uninitialised tensor's memory is never read as lengths
    assert tensor_values(torch.full((4,), torch.iinfo(torch.int32).max, dtype=torch.int32)) is None


@cache
def kernel():
    (k,) = dump_ir(DATA / "loaded_len_sum.py", "sm_90").kernels
    return k


def _with_lengths(values: list[int] | None):
    k = kernel().model_copy(deep=True)
    lens = next(a for a in k.launch.arguments if a.name == "lens_ptr")
    lens.values = values
    return k


@pytest.mark.slow
def test_the_launch_records_a_small_integer_tensors_values():
    lens = next(a for a in kernel().launch.arguments if a.name == "lens_ptr")
    # lens = (p + 1) x 1024 for the 128 programs; the float tensors' values are not kept
    assert lens.values == [(p + 1) * 1024 for p in range(128)]
    assert next(a for a in kernel().launch.arguments if a.name == "x_ptr").values is None


@pytest.mark.slow
def test_trips_follow_the_loaded_lengths():
    p = predict_launch(kernel(), device="h200")
    # program p runs (p + 1) x 1024 / 1024 = p + 1 iterations: mean 64.5, longest 128; ptxas unrolled the loop 4x
    # (4 x 4096 B per iteration and a counter stepping 4096), so the ISA loop runs 64.5 / 4 and 128 / 4 times
    assert p.trips.source == "loop-bounds" and p.trips.trips == 64.5 / 4 and p.trips.max_trips == 128 / 4
    assert "values loaded from lens_ptr read from the example tensors" in p.trips.detail
    # kind loaded_trips: the H200 validation holds 2 such residuals (fewer than 8), so the device-wide band, assumed,
    # saying so (tools/predict/kinds.py)
    assert p.band.kind == "loaded_trips" and p.band.status == "assumed"
    assert p.band.rests_on[-1].startswith("kind loaded_trips: only 2 validation residual(s) (fewer than 8)")
    # four times the lengths: four times the loop, and (latency-bound, the longest program's chain) nearly four
    # times the kernel time (the work outside the loop does not grow)
    longer = predict_launch(_with_lengths([(q + 1) * 4096 for q in range(128)]), device="h200")
    assert longer.trips.trips == 64.5 and longer.trips.max_trips == 128
    assert longer.bound == p.bound == "memory_latency"
    overhead = p.figures.launch_overhead_us
    assert 3.9 < (longer.predicted_us - overhead) / (p.predicted_us - overhead) < 4.0


@pytest.mark.slow
def test_without_recorded_values_the_loaded_bound_is_assumed_and_not_validated():
    p = predict_launch(_with_lengths(None), device="h200")
    assert p.trips.source == "assumption" and p.trips.trips == 1
    assert p.band.status == "undetermined"


@pytest.mark.slow
def test_a_length_past_the_tensor_is_not_read():
    # 64 values for 128 programs: programs 64..127 read past the recorded tensor, their bound stays unknown
    p = predict_launch(_with_lengths([1024] * 64), device="h200")
    assert p.trips.source == "assumption" and p.band.status == "undetermined"


@pytest.mark.slow
def test_an_uninitialised_offsets_tensor_is_not_read_as_values():
    # gated_tiles.py's offsets come from torch.empty: the compile child fills them with INT32_MAX, so they are not
    # recorded and the loaded condition stays undecided (the output-bound cap of its own test applies)
    (k,) = dump_ir(DATA / "gated_tiles.py", "sm_90").kernels
    offsets = next(a for a in k.launch.arguments if a.name == "offsets_ptr")
    assert offsets.values is None
