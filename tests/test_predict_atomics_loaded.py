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
    # at 32 x 8192 / 2**20 = 0.25 lanes of a warp instruction per line: the sweep's sparsest row (1 lane), clamped
    serial = math.ceil(total / (size / LINE_BYTES)) * table["lanes/relaxed/1"] / 1e3
    # every warp instruction's 32 lanes land on ~31 of the 512 sectors of the bins: the L2's rate with many lines hot
    spread = size / sector
    sectors = total / lanes * spread * (1 - (1 - 1 / spread) ** lanes)
    rate = sectors * _per_sector_ns(table, "relaxed", sector) / 1e3
    # 4096 bins: the two are within 10 % (the sweep's sparsest lanes row, 1 lane per line, is clamped here; below it
    # the L2's rate binds: atomic_sweep --only lanes, K=8192); the larger is the floor
    assert abs(rate / serial - 1) < 0.15
    assert p.figures.atomic_us == pytest.approx(max(rate, serial))
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
    # 4096 programs x 1024 scattered lanes into 256 int32 bins (8 lines): one line takes 2**22 / 8 updates, 4 lanes of
    # each warp instruction on it, at the lanes rate interpolated in log2 between the sweep's 1 and 8 lanes, which
    # outlasts the L2's rate over the ~21 sectors a warp instruction touches and the hottest address's 2**14
    updates, us, note = data_dependent_floor(site, 4096, {"h": 1024}, table, 1.0, sector, 32)
    assert updates == (1 << 22) / 256
    ns = table["lanes/relaxed/1"] + (table["lanes/relaxed/8"] - table["lanes/relaxed/1"]) * 2 / 3
    assert us == pytest.approx((1 << 22) / 8 * ns / 1e3)
    assert "8 lines" in note and "skewed" in note and "4.0 lanes" in note
    # the same updates into 65536 bins (2048 lines): the line share falls to 2048, the L2's rate binds
    _, wide, _ = data_dependent_floor(site, 4096, {"h": 65536 * 4}, table, 1.0, sector, 32)
    spread = 65536 * 4 / sector
    rate = (1 << 22) / 32 * spread * (1 - (1 - 1 / spread) ** 32) * _per_sector_ns(table, "relaxed", sector) / 1e3
    assert wide == pytest.approx(rate) and wide > 2048 * table["lanes/relaxed/1"] / 1e3
    # a loop around the site: its trips multiply the updates; the tensor's size unknown: nothing timed
    looped = AtomicSite(**{**site.__dict__, "in_loop": True})
    assert data_dependent_floor(looped, 4096, {"h": 1024}, table, 4.0, sector, 32)[1] == pytest.approx(4 * us)
    assert data_dependent_floor(site, 4096, {}, table, 1.0, sector, 32) == (0.0, None, None)


def test_skewed_bins_recorded_in_the_example_take_their_hottest_lines_and_addresses_updates():
    from tools.predict.atomics import AtomicSite, data_dependent_floor

    table = machine("h200").table("same_address_atomic_ns")
    site = AtomicSite(op="add", axes=frozenset(), data_dependent=True, elements=1024, in_loop=False, sem="acq_rel",
                      arg="h", data_elements=1024, data_args=frozenset({"x"}))  # fmt: skip
    n = 1 << 20  # 1024 programs x 1024 lanes, each element of x read once
    # uniform over 2048 bins would be 512 updates a line; the example put 90 % of x in bin 0: its line takes 945000
    # updates, 29 lanes of a warp instruction on it (the lanes rate at 32: 0.226 ns), and bin 0 alone 943000, one at a
    # time (0.735 ns): the address binds
    counts = {"1": 943_000, "16": 944_000, "32": 945_000, "64": 946_000, "128": 948_000}
    updates, us, note = data_dependent_floor(site, 1024, {"h": 2048 * 4}, table, 1.0, 32, 32, {"x": (n, counts)})
    assert updates == 943_000
    assert us == pytest.approx(943_000 * table["address/acq_rel"] / 1e3)
    assert "945000 of the example's 1048576 indices in x fall in one 128-byte line of h" in note
    assert "skewed" not in note
    # the same kernel without recorded values: the pigeonhole's 512 a line (far less), said to be a floor
    _, plain, plain_note = data_dependent_floor(site, 1024, {"h": 2048 * 4}, table, 1.0, 32, 32)
    assert plain < us / 10 and "more when the data is skewed" in plain_note
    # a launch reading each index twice (a loop of 2 trips around the site): twice the hottest line's updates
    looped = AtomicSite(**{**site.__dict__, "in_loop": True})
    assert data_dependent_floor(looped, 1024, {"h": 8192}, table, 2.0, 32, 32, {"x": (n, counts)})[0] == 1_886_000
    # indices from two arguments, or counts for another argument: the pigeonhole, not the skew
    two = AtomicSite(**{**site.__dict__, "data_args": frozenset({"x", "y"})})
    assert data_dependent_floor(two, 1024, {"h": 8192}, table, 1.0, 32, 32, {"x": (n, counts)})[1] == plain
    assert data_dependent_floor(site, 1024, {"h": 8192}, table, 1.0, 32, 32, {"y": (n, counts)})[1] == plain


SKEWED = """import torch
import triton
import triton.language as tl


@triton.jit
def hist(x_ptr, h_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(h_ptr + tl.load(x_ptr + offs), 1)


def kernelpilot_entry():
    n, nbins = 1 << 20, 2048
    g = torch.Generator().manual_seed(3)
    uniform = torch.randint(0, nbins, (n,), generator=g, dtype=torch.int32)
    skewed = torch.where(torch.rand(n, generator=g) < 0.9, torch.zeros_like(uniform), uniform)
    h = torch.zeros(nbins, dtype=torch.int32)
    return [{"kernel": hist, "args": (x, h), "kwargs": {"BLOCK": 1024}, "grid": (n // 1024,)} for x in (uniform, skewed)]
"""


@pytest.mark.slow
def test_a_histogram_of_skewed_example_data_is_predicted_at_its_hottest_bins_rate(tmp_path):
    import torch

    path = tmp_path / "skewed_hist.py"
    path.write_text(SKEWED)
    uniform, skewed = dump_ir(path, "sm_90").kernels
    x = {a.name: a for a in skewed.launch.arguments}["x_ptr"]
    # the compile child counted the example's indices: every d of 1, 16, 32, 64, 128 as torch counts them here
    ns = {}
    exec(compile(SKEWED, str(path), "exec"), ns)  # the same seeded tensors (the kernel is not launched)
    data = ns["kernelpilot_entry"]()[1]["args"][0].to(torch.int64)
    assert x.hottest == {str(d): int(torch.bincount(torch.div(data, d, rounding_mode="floor")).max()) for d in
                         (1, 16, 32, 64, 128)}  # fmt: skip
    a, b = (predict_launch(k, device="h200") for k in (uniform, skewed))
    table = machine("h200").table("same_address_atomic_ns")
    # skewed: bin 0's ~944000 updates one at a time (0.735 ns each), about 0.69 ms; uniform: the L2's rate binds
    assert b.figures.atomic_us == pytest.approx(x.hottest["1"] * table["address/acq_rel"] / 1e3)
    assert b.predicted_us > 10 * a.predicted_us
    assert any("the example's skew" in n for n in b.notes)
    # the uniform example's counts are recorded too: its hottest line holds about its pigeonhole share, n / 64 lines
    top = {a.name: a for a in uniform.launch.arguments}["x_ptr"].hottest["32"]
    assert (1 << 20) / 64 <= top < 1.1 * (1 << 20) / 64
    assert any(f"{top} of the example's 1048576 indices" in n for n in a.notes)
