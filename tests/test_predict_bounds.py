"""predict is bounded by work and by its --timeout: the trip evaluator samples deep nests of runtime loops (and says
so in the evidence), the model's rounds do not grow with the grid, and the whole call stops at --timeout."""

from __future__ import annotations

import math
import time

import pytest

from tools.dump_ir import dump_ir
from tools.predict import bounds
from tools.predict.cli import predict_file
from tools.predict.trips import ttir_loops

NEST = """
import torch
import triton
import triton.language as tl


@triton.jit
def nest(x_ptr, out_ptr, a, b, c, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(a):
        for j in range(b):
            for k in range(c):
                INNER
    tl.store(out_ptr + pid * BLOCK + offs, acc)


def kernelpilot_entry():
    return {"kernel": nest, "args": (torch.randn(4 * 64), torch.zeros(GRID * 64), 64, 64, 64),
            "kwargs": {"BLOCK": 64, "num_warps": 1}, "grid": (GRID,)}
"""
THREE = "acc += tl.load(x_ptr + ((i + j + k) % 4) * BLOCK + offs)"
FOUR = "for m in range(c):\n                    acc += tl.load(x_ptr + ((i + j + k + m) % 4) * BLOCK + offs)"

WIDE = """
import torch
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def kernelpilot_entry():
    return {"kernel": scale, "args": (torch.randn(1024), torch.zeros(1024), 1024),
            "kwargs": {"BLOCK": 64, "num_warps": 1}, "grid": GRID}
"""


def _kernel(folder, name: str, text: str) -> str:
    path = folder / f"{name}.py"
    path.write_text(text)
    return str(path)


@pytest.fixture(scope="module")
def nests(tmp_path_factory):
    """Three and four nested runtime loops of 64 iterations each over 256 programs, compiled once (gfx942)."""
    folder = tmp_path_factory.mktemp("nests")
    files = {depth: _kernel(folder, f"nest{depth}", NEST.replace("INNER", inner).replace("GRID", "256"))
             for depth, inner in ((3, THREE), (4, FOUR))}  # fmt: skip
    return {depth: (path, dump_ir(path, "gfx942").kernels[0]) for depth, path in files.items()}


def _ttir(kernel) -> str:
    return open(next(s.path for s in kernel.stages if s.name == "ttir")).read()


@pytest.mark.slow
@pytest.mark.parametrize("depth", [3, 4])
def test_nested_runtime_loops_are_sampled_within_seconds_and_the_evidence_says_so(nests, depth):
    path, _ = nests[depth]
    t0 = time.monotonic()
    got = predict_file(path, "gfx942", timeout=60)  # the compile is cached: this is the evaluation and the model
    elapsed = time.monotonic() - t0
    # 256 programs x 64**depth iterations were walked in full before: minutes; the walk is now capped at 2**20 ops
    assert elapsed < 15, elapsed
    trips = got.launches[0].trips
    assert trips.source == "loop-bounds" and "nested runtime loops: fewer programs and at most" in trips.detail
    assert "the samples are assumed representative" in trips.detail and got.predicted_us is not None


@pytest.mark.slow
def test_sampled_trips_of_constant_bounds_are_exact(nests):
    _, kernel = nests[4]
    loops, detail = ttir_loops(_ttir(kernel), {"2": 64, "3": 64, "4": 64}, [256])
    # every bound is 64: a sample of the iterations scaled to the trips gives 64, 64**2, 64**3, 64**4 per program
    assert [(lp.depth, lp.trips) for lp in loops] == [(1, 64), (2, 64**2), (3, 64**3), (4, 64**4)]
    assert detail.startswith("scf.for bounds evaluated on the example arguments for 32 of 256 programs")


@pytest.mark.slow
def test_the_trip_evaluator_stops_at_the_timeout_naming_the_option(nests):
    _, kernel = nests[3]
    with bounds.TimeLimit(0), pytest.raises(bounds.PredictTimeout) as exc:
        ttir_loops(_ttir(kernel), {"2": 64, "3": 64, "4": 64}, [256])
    assert exc.value.message == "predict ran past its --timeout of 0s while evaluating the loop bounds"
    assert "kernelpilot predict --timeout" in exc.value.hint


@pytest.mark.slow
@pytest.mark.parametrize("grid", [(2**31 - 1, 65535, 65535), (2**31 - 1,)])
def test_the_largest_grids_predict_in_seconds_with_every_round_counted(tmp_path, grid):
    path = _kernel(tmp_path, "wide", WIDE.replace("GRID", repr(grid)))
    dump_ir(path, "gfx942")
    t0 = time.monotonic()
    got = predict_file(path, "gfx942", timeout=60)
    elapsed = time.monotonic() - t0
    assert elapsed < 10, elapsed  # one pass per round before: 31 s for (2**31-1,), hours for the 3-D grid
    p = got.launches[0]
    # blocks run in rounds of 304 CUs x the resident blocks per CU (MI300X); the last round is partial
    assert p.programs == math.prod(grid)
    assert p.figures.rounds == math.ceil(p.programs / (304 * p.figures.resident_blocks_per_cu))


def test_full_rounds_are_counted_once_each_without_a_pass_per_round():
    from tools.isa.machines import device_for
    from tools.predict.model import LaunchShape, WaveWork, predict

    m = device_for("gfx942")  # MI300X: 304 CUs; 8 resident blocks per CU here, so 2432 blocks a round
    work = WaveWork(issue_once=1000, valu_once=800, global_bytes_once=256, load_bytes_once=256, in_flight_bytes=256)

    def figures(programs):
        t0 = time.monotonic()
        _, _, f = predict(work, LaunchShape(programs, 1, 8), m, 1.0, 1.0)
        return f, time.monotonic() - t0

    one, _ = figures(2432)
    many, seconds = figures(2432 * 10**12 + 1)  # 10**12 full rounds and one block in a last round
    assert seconds < 1 and many.rounds == 10**12 + 1
    # the issue time of 10**12 full rounds is exactly 10**12 times one round's, plus the last round's one block
    last, _ = figures(1)
    assert many.issue_us == pytest.approx(one.issue_us * 10**12 + last.issue_us, rel=1e-12)


@pytest.mark.slow
def test_a_cpu_engine_run_past_its_share_of_the_timeout_gives_way_to_the_loop_bounds(tmp_path):
    # 4 programs: few enough for the CPU engine, which would run 64**3 iterations a wave for minutes
    path = _kernel(tmp_path, "nest_small", NEST.replace("INNER", THREE).replace("GRID", "4"))
    dump_ir(path, "gfx942")
    t0 = time.monotonic()
    got = predict_file(path, "gfx942", timeout=8)
    assert time.monotonic() - t0 < 8
    p = got.launches[0]
    assert p.trips.source == "loop-bounds" and p.predicted_us is not None
    assert any(n.startswith("not run to its end on the CPU engine: stopped after") for n in p.notes), p.notes
