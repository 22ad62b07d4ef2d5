"""An unrolled loop's straight-line remainder, and a gather's bytes (tools/predict/work.py ``straight_remainders``,
tools/predict/floors.py ``gather_assumptions``), on an embedding gather written here and compiled for sm_90 on this
CPU: ptxas unrolls its column loop (trip count known only at run time) 4x and leaves the last ``trips mod 4``
iterations to a 2x and a 1x copy behind branches; each copy is counted as often as the remainder runs it, the loop
``trips // 4`` times. The table is read at addresses from loaded indices: its footprint is at most what it loads,
and the band says its distinct rows are not counted."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.predict import predict_launch
from tools.predict.work import remainder_weights

HEADER = "import torch\nimport triton\nimport triton.language as tl\n\n\n"

GATHER = """
@triton.jit
def gather_rows(idx_ptr, table_ptr, out_ptr, T, D, ROWS: tl.constexpr, BD: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    rmask = rows < T
    idx = tl.load(idx_ptr + rows, mask=rmask, other=0).to(tl.int64)
    for start in range(0, D, BD):
        cols = start + tl.arange(0, BD)
        m = rmask[:, None] & (cols[None, :] < D)
        v = tl.load(table_ptr + idx[:, None] * D + cols[None, :], mask=m)
        tl.store(out_ptr + rows[:, None].to(tl.int64) * D + cols[None, :], v, mask=m)


def kernelpilot_entry():
    t, d, v = 65536, {d}, 1 << 18
    idx = torch.zeros(t, dtype=torch.int32)
    table, out = torch.empty((v, d), dtype=torch.bfloat16), torch.empty((t, d), dtype=torch.bfloat16)
    return {{"kernel": gather_rows, "args": (idx, table, out, t, d), "kwargs": {{"ROWS": 16, "BD": 128,
            "num_warps": 4}}, "grid": (t // 16,)}}
"""


@cache
def _compiled(d: int, root: str):
    path = Path(root) / f"gather_d{d}.py"
    path.write_text(HEADER + GATHER.format(d=d))
    (k,) = dump_ir(path, "sm_90").kernels
    return k


@pytest.fixture(scope="module")
def gather(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("remainder"))
    return lambda d: _compiled(d, root)


def test_remainder_copies_run_by_the_binary_digits_of_trips_mod_the_unroll():
    assert remainder_weights(1, 4, [2, 1]) == [0.0, 1.0]
    assert remainder_weights(7, 4, [2, 1]) == [1.0, 1.0]
    assert remainder_weights(8, 4, [2, 1]) == [0.0, 0.0]
    assert remainder_weights(5, 4, [1, 1, 1]) == pytest.approx([1 / 3] * 3)  # not ptxas's layout: each its share
    # a mean over programs of unequal trips: no program's remainder is known (the loop's trips / 4 do the mean)
    assert remainder_weights(2.5, 4, [2, 1]) is None


def _moved_by_source(d: int) -> float:
    """What the source's loads and stores request: each of 65536 rows read and written once (bf16), and the
    indices, which 128 lanes load for 16 rows (two 32-lane requests of 4 B per warp)."""
    t = 65536
    return 2 * t * d * 2 + (t // 16) * 4 * 2 * 32 * 4


@pytest.mark.slow
@pytest.mark.parametrize(("d", "loop_trips", "copies"), [(128, 0, "0 of the 4x loop + 1 in the copies"),
                                                         (896, 1, "1 of the 4x loop + 3 in the copies"),
                                                         (1024, 2, "2 of the 4x loop + 0 in the copies")])  # fmt: skip
def test_an_unrolled_loops_straight_line_remainder_runs_trips_mod_the_unroll(gather, d, loop_trips, copies):
    p = predict_launch(gather(d), device="h200")
    note = next(n for n in p.notes if "its remainder is straight-line code" in n)
    assert "(2x + 1x copies behind branches)" in note and copies in note
    (loop,) = p.loops
    assert loop.trips == loop_trips  # trips // 4, not trips / 4 beside every copy once
    # every copy counted once (the old reading) requested 4 copies' bytes for d=128, (7/4 + 3) / 7 of them for 896
    assert p.figures.bytes_requested == pytest.approx(_moved_by_source(d), rel=0.01)


@pytest.mark.slow
def test_a_gathers_footprint_is_at_most_what_it_loads_and_its_distinct_rows_widen_the_band_low(gather):
    p = predict_launch(gather(128), device="h200")
    # the table (67 MB) is read at 65536 loaded indices x 128 bf16: at most 16.8 MB of it, so the 84 MB of its
    # tensors once (17.5 us at peak) is no floor of a ~10 us prediction
    assert not any("once at peak HBM bandwidth" in r for r in p.band.rests_on)
    (why,) = [r for r in p.band.rests_on if "a gather" in r]
    assert why.startswith("table_ptr:") and "16.8 MB" in why and "not counted" in why
    assert p.band.status == "assumed" and p.band.widened[0] < 1.0 and p.band.widened[1] == 1.0
