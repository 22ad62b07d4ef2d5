"""Atomics whose addresses come from loaded data (tools/predict/atomics.py ``data_dependent_floor``), on kernels
compiled for sm_90 on this CPU: the per-line pigeonhole floor of scattered lanes, the L2's sector rate with many lines
hot, a loaded index addressing a row (a run of contiguous elements), and a site in a loop counted as often as the
loop runs. The expected figures are computed from the H200 machine file's measured table, not from a GPU timing."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.isa.machines import machine
from tools.predict import predict_launch
from tools.predict.atomics import LINE_BYTES, atomic_sites, update_ns

SOURCE = """import torch
import triton
import triton.language as tl


@triton.jit
def bins(x_ptr, h_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(h_ptr + tl.load(x_ptr + offs), 1, sem="relaxed")


@triton.jit
def rows_add(idx_ptr, src_ptr, out_ptr, D, ROWS: tl.constexpr, BD: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    dst = tl.load(idx_ptr + rows).to(tl.int64)
    for start in range(0, D, BD):
        cols = start + tl.arange(0, BD)
        v = tl.load(src_ptr + rows[:, None].to(tl.int64) * D + cols[None, :])
        tl.atomic_add(out_ptr + dst[:, None] * D + cols[None, :], v)


@triton.jit
def block_bins(x_ptr, h_ptr, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(h_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + offs), BINS), sem="relaxed")


def kernelpilot_entry():
    n, nbins = 1 << 20, 4096
    x, h = torch.empty(n, dtype=torch.int32), torch.empty(nbins, dtype=torch.int32)
    t, d, r = 16384, 256, 1024
    idx, src, out = torch.empty(t, dtype=torch.int32), torch.empty((t, d)), torch.empty((r, d))
    return [{"kernel": bins, "args": (x, h), "kwargs": {"BLOCK": 1024}, "grid": (n // 1024,)},
            {"kernel": rows_add, "args": (idx, src, out, d), "kwargs": {"ROWS": 4, "BD": 64}, "grid": (t // 4,)},
            {"kernel": rows_add, "args": (idx, src, out, d), "kwargs": {"ROWS": 4, "BD": 256}, "grid": (t // 4,)},
            {"kernel": block_bins, "args": (x, h), "kwargs": {"BINS": 256, "BLOCK": 4096}, "grid": (n // 4096,)}]
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    path = Path(tmp_path_factory.mktemp("atomics_loaded")) / "loaded_atomics.py"
    path.write_text(SOURCE)
    return dump_ir(path, "sm_90").kernels


def _ttir(k) -> str:
    return Path(next(s.path for s in k.stages if s.name == "ttir")).read_text()


def _per_sector_ns(table: dict[str, float], kind: str, sector_bytes: int) -> float:
    lines, ns = max((float(k.split("/")[1]), v) for k, v in table.items() if k.startswith(f"{kind}/"))
    return ns / (lines * LINE_BYTES / sector_bytes)


@pytest.mark.slow
def test_a_loaded_index_addresses_a_run_of_the_elements_it_is_broadcast_over(compiled):
    hist, looped, _, _ = compiled
    (h,) = atomic_sites(_ttir(hist))
    # a histogram's bin: one loaded value per updated element (runs of one)
    assert h.data_dependent and h.data_elements == h.elements == 1024 and not h.in_loop
    (s,) = atomic_sites(_ttir(looped))
    # a scatter's row: 4 loaded row indices address 4 x 64 elements, inside the first (and only) scf.for
    assert s.data_dependent and s.data_elements == 4 and s.elements == 256
    assert s.in_loop and s.loop == 0 and s.arg == "out_ptr"


@pytest.mark.slow
def test_scattered_bins_take_the_larger_of_one_lines_pigeonhole_share_and_the_l2_sector_rate(compiled):
    p = predict_launch(compiled[0], device="h200")
    m = machine("h200")
    table, sector, lanes = m.table("same_address_atomic_ns"), int(m.value("memory_sector_bytes")), 32
    total, size = float(1 << 20), 4096 * 4
    # per address: 2**20 / 4096 = 256 updates (the figure); per 128-byte line (32 bins): 8192, one at a time
    assert p.figures.atomic_updates_per_address == 256
    serial = math.ceil(total / (size / LINE_BYTES)) * table["scalar/relaxed"] / 1e3
    # every warp instruction's 32 lanes land on ~31 of the 512 sectors of the bins: the L2's rate with many lines hot
    spread = size / sector
    sectors = total / lanes * spread * (1 - (1 - 1 / spread) ** lanes)
    rate = sectors * _per_sector_ns(table, "relaxed", sector) / 1e3
    assert rate > serial  # 4096 bins: the L2's rate binds, not one line
    assert p.figures.atomic_us == pytest.approx(rate)
    assert p.bound == "atomic_contention"
    # the data may be skewed (all values in one bin): the time is a floor, the band open above
    assert p.band.status == "assumed" and p.band.high is None
    assert any("pigeonhole" in n and "sector updates" in n for n in p.notes)


@pytest.mark.slow
def test_a_scattered_row_update_counts_its_sectors_once_per_loop_trip(compiled):
    _, looped, whole, _ = compiled
    a, b = (predict_launch(k, device="h200") for k in (looped, whole))
    m = machine("h200")
    table, sector = m.table("same_address_atomic_ns"), int(m.value("memory_sector_bytes"))
    # 16384 rows x 256 fp32 added to rows of out, fenced: every row update is whole sectors (1 KB = 32 sectors), so
    # the L2 takes 16384 x 32 sector updates at its many-lines rate, whether 4 loop trips of 64 columns or one of 256
    sectors = 16384 * 256 * 4 / sector
    assert a.figures.atomic_us == pytest.approx(sectors * _per_sector_ns(table, "acq_rel", sector) / 1e3)
    assert b.figures.atomic_us == pytest.approx(a.figures.atomic_us)
    # some address of the 1024 rows takes at least 16384 / 1024 = 16 updates (pigeonhole), far under the rate
    assert a.figures.atomic_updates_per_address == 16
    assert a.bound == b.bound == "atomic_contention"


@pytest.mark.slow
def test_block_local_bins_are_same_address_atomics_and_their_histogram_op_opens_the_band_above(compiled):
    p = predict_launch(compiled[3], device="h200")
    table = machine("h200").table("same_address_atomic_ns")
    # the counts go to bins 0..255 (no loaded address): every one of the 256 programs updates the same 8 lines
    (s,) = atomic_sites(_ttir(compiled[3]))
    assert not s.data_dependent and s.elements == 256
    assert p.figures.atomic_updates_per_address == 256
    assert p.figures.atomic_us == pytest.approx(256 * update_ns(table, "relaxed", 8, scalar=False) / 1e3)
    # tt.histogram's quarter-rate POPC and bank-conflicted ATOMS merges are not charged at their rates: a floor
    assert p.band.status == "assumed" and p.band.high is None
    assert any(r.startswith("tt.histogram") for r in p.band.rests_on)


def test_the_floor_of_loaded_bins_is_one_lines_share_when_few_lines_and_the_l2_rate_when_many():
    from tools.predict.atomics import AtomicSite, data_dependent_floor

    m = machine("h200")
    table, sector = m.table("same_address_atomic_ns"), int(m.value("memory_sector_bytes"))
    site = AtomicSite(op="add", axes=frozenset(), data_dependent=True, elements=1024, in_loop=False, sem="relaxed",
                      arg="h", data_elements=1024)  # fmt: skip
    # 4096 programs x 1024 scattered lanes into 256 int32 bins (8 lines): one line takes 2**22 / 8 updates, one at a
    # time, which outlasts the L2's rate over the ~21 sectors a warp instruction touches
    updates, us, note = data_dependent_floor(site, 4096, {"h": 1024}, table, 1.0, sector, 32)
    assert updates == (1 << 22) / 256
    assert us == pytest.approx((1 << 22) / 8 * table["scalar/relaxed"] / 1e3)
    assert "8 lines" in note and "skewed" in note
    # the same updates into 65536 bins (2048 lines): the line share falls to 2048, the L2's rate binds
    _, wide, _ = data_dependent_floor(site, 4096, {"h": 65536 * 4}, table, 1.0, sector, 32)
    spread = 65536 * 4 / sector
    rate = (1 << 22) / 32 * spread * (1 - (1 - 1 / spread) ** 32) * _per_sector_ns(table, "relaxed", sector) / 1e3
    assert wide == pytest.approx(rate) and wide > 2048 * table["scalar/relaxed"] / 1e3
    # a loop around the site: its trips multiply the updates; the tensor's size unknown: nothing timed
    looped = AtomicSite(**{**site.__dict__, "in_loop": True})
    assert data_dependent_floor(looped, 4096, {"h": 1024}, table, 4.0, sector, 32)[1] == pytest.approx(4 * us)
    assert data_dependent_floor(site, 4096, {}, table, 1.0, sector, 32) == (0.0, None, None)
