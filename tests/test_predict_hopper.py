"""predict on Hopper kernels as agents write them: TMA loads counted as the boxes each pipeline stage's
mbarrier expects, mbarrier waits not taken for loops, a persistent flatten=True loop with its real trips (tiles per
program x K steps), wgmma at the device's sustained rate, and --trips naming any loop by its source line.

The kernels: tests/data/sm90/tma_gemm.py (a tiled and a persistent bf16 TMA GEMM, 128x128x64 tiles, 4 warps, 3
stages), compiled here for sm_90 by Triton (no GPU needed)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tools.errors import InputError
from tools.isa.machines import device_for
from tools.isa.sass import find_loops, parse_sass
from tools.predict import predict_launch
from tools.predict.cli import parse_trips, trips_value
from tools.predict.loops import loop_names, override_trips
from tools.predict.nvidia import expect_tx_bytes, mbarrier_stages
from tools.predict.trips import TtirLoop

KERNEL = Path(__file__).resolve().parent / "data" / "sm90" / "tma_gemm.py"
BOX_BYTES = (128 * 64 + 128 * 64) * 2  # one stage: the A box (128x64 bf16) and the B box (128x64 bf16)


@pytest.fixture(scope="module")
def dumps():
    from tools.dump_ir import dump_ir

    return {k.name: k for k in dump_ir(KERNEL, "sm_90").kernels}


def _sass(k):
    return parse_sass(Path(k.final_isa).read_text())[0]


def test_trips_option_takes_one_plain_count_and_named_loops():
    given = [trips_value(v) for v in ("7", "31=124", "31.2=3")]
    assert given == [(None, 7.0), ("31", 124.0), ("31.2", 3.0)]
    assert parse_trips(given) == (7.0, {"31": 124.0, "31.2": 3.0})
    assert parse_trips(None) == (None, {})
    for bad, why in (("31=many", "with N a number"), ("31=0", "must be > 0"), ("=4", "names no loop")):
        with pytest.raises(argparse.ArgumentTypeError, match=why):
            trips_value(bad)
    with pytest.raises(InputError, match="a second plain count"):
        parse_trips([(None, 4.0), (None, 5.0)])


def test_a_named_loop_takes_the_stated_trips_and_the_loops_inside_scale_with_it():
    # a tile loop of 4 iterations around a K loop of 8 per tile (32 per program), the K loop on the same line twice
    loops = [
        TtirLoop(1, 4.0, 4.0, 0, line=31),
        TtirLoop(2, 32.0, 32.0, 32768, line=33),
        TtirLoop(1, 0.0, 0.0, 0, line=31),
    ]
    assert loop_names(loops) == ["31", "33", "31.2"]
    out, lines = override_trips(loops, {"31": 8})
    assert [(lp.trips, lp.max_trips) for lp in out] == [(8.0, 8.0), (64.0, 64.0), (0.0, 0.0)]
    assert lines == ["loop 31 (line 31): 8 iterations per program stated by --trips (4 evaluated)"]
    assert loops[0].trips == 4.0  # the plan given is left as it was
    with pytest.raises(LookupError, match=r"no loop named '40'; the loops: 31 \(depth 1, 4 iterations"):
        override_trips(loops, {"40": 2})


@pytest.mark.slow
def test_each_tma_stage_moves_the_boxes_its_barrier_expects(dumps):
    f = _sass(dumps["tiled"])
    (loop,) = find_loops(f)
    body = range(loop.first, loop.last + 1)
    # SYNCS.ARRIVE.TRANS64 (mbarrier.arrive.expect_tx) with the byte count of the two UTMALDG boxes it waits for
    assert sum(expect_tx_bytes(f.insts, n) for n in body) == BOX_BYTES
    assert sum(1 for n in body if f.insts[n].root == "UTMALDG") == 2
    assert mbarrier_stages(f.insts) == 3  # num_stages=3: one mbarrier per shared-memory stage
    p = predict_launch(dumps["tiled"], device="h200")
    # two stages ahead of the one waited for, shared by the block's 4 warps: 2 x 32768 / 4 (not 128 B per warp)
    assert p.figures.bytes_in_flight_per_wave == 2 * BOX_BYTES / 4
    # per program: the loop's 8 stages of 32768 B and the prologue's 2 (the stages it fills before the loop; the
    # loop's last two copies are predicated off, counted all the same), its 128x128 bf16 C box stored by UTMASTG
    # (the size from the TTGIR's tensor descriptor), and the 3 descriptors' 4-byte ATOMG.EXCH per lane x 4 warps
    assert p.figures.bytes_requested == 64 * ((8 + 2) * BOX_BYTES + 128 * 128 * 2 + 3 * 4 * 128)


@pytest.mark.slow
def test_mbarrier_retries_are_not_loops(dumps):
    for name, loops in (("tiled", 1), ("persistent", 2)):
        f = _sass(dumps[name])
        backward = [i for i in f.insts if i.target in f.labels and f.labels[i.target] < i.index]
        assert any("TRYWAIT" in i.opcode for i in f.insts) and len(backward) > loops  # the retries are there
        found = find_loops(f)
        assert len(found) == loops, name  # the K loop (tiled); the merged loop and its empty-K copy (persistent)
        assert all(any(f.insts[n].root != "SYNCS" and f.insts[n].root != "BRA" for n in range(lp.first, lp.last + 1))
                   for lp in found)  # fmt: skip


@pytest.mark.slow
def test_a_flattened_persistent_loop_runs_tiles_per_program_times_k_steps(dumps):
    p = predict_launch(dumps["persistent"], device="h200")
    # 64 tiles over 16 programs = 4 tiles each, 512 / 64 = 8 K steps per tile: 32 iterations of the merged loop
    assert (p.trips.source, p.trips.trips, p.trips.max_trips) == ("loop-bounds", 32.0, 32.0)
    assert "4 outer x the inner loop's steps = 32 iterations per program" in p.trips.detail
    assert any("counted once per tile: x0.1250 per merged iteration" in n for n in p.notes)
    # per program the merged loop's 32 stages (its epilogue's C box once per tile: 4) and the prologue's 2, as in
    # the tiled kernel, and the descriptors' writes
    assert p.figures.bytes_requested == pytest.approx(16 * ((32 + 2) * BOX_BYTES + 4 * 128 * 128 * 2 + 3 * 4 * 128))
    # the trips are evaluated, not assumed: the band rests on no trip count, only (16 programs on 132 SMs) on the
    # part-filled GPU when the launch is latency-bound
    assert all(why.startswith("memory-latency bound on 16 of 132 SMs") for why in p.band.rests_on), p.band.rests_on


@pytest.mark.slow
def test_trips_names_the_merged_loop_by_its_source_line(dumps):
    p = predict_launch(dumps["persistent"], device="h200", loop_trips={"31": 16})
    assert p.trips.trips == 16.0 and p.band.status == "assumed"
    assert "loop 31 (line 31): 16 iterations per program stated by --trips (32 evaluated)" in p.trips.detail
    with pytest.raises(InputError) as err:
        predict_launch(dumps["persistent"], device="h200", loop_trips={"99": 4})
    # the merged loop takes the plain line; its empty-K copy (0 iterations: K > 0) the same line's second name
    assert "31 (depth 1, 32 iterations per program evaluated)" in err.value.message
    assert "31.2 (depth 1, 0 iterations per program evaluated)" in err.value.message


@pytest.mark.slow
def test_wgmma_runs_at_the_sustained_share_of_the_tensor_peak(dumps):
    m = device_for("sm_90", "h200")
    p = predict_launch(dumps["tiled"], device="h200")
    assert any(i.opcode.startswith("HGMMA") for i in _sass(dumps["tiled"]).insts)
    # one program per SM (64 on 64 SMs), 8 K steps of 128x128x64 multiply-adds at 4096 FLOP/clk x 0.74 (measured)
    rate = m.table("tensor_flops_per_cycle")["bf16"] * m.value("wgmma_sustained_fraction")
    cycles = 8 * 2 * 128 * 128 * 64 / rate
    assert p.figures.matrix_us == pytest.approx(cycles / m.clock_hz * 1e6, rel=1e-3)


TMA_RUN = Path(__file__).resolve().parents[1] / "benchmarks" / "predict_data" / "h200-2026-12-02-tma.tgz"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """The H200 run of the TMA GEMMs (Triton 3.6 there): each variant's recorded cubin, SASS and launch."""
    import tarfile

    out = tmp_path_factory.mktemp("tma-run")
    with tarfile.open(TMA_RUN, "r:gz") as tar:
        tar.extractall(out, filter="data")
    return out / "predict_data"


@pytest.mark.slow
def test_wgmma_groups_and_their_waits_are_read_from_the_sass(dumps, recorded):
    from tools.predict.artifacts import read_variant

    # Triton 3.9 here: one group of HGMMAs per K step, waited down to one outstanding (gsb0, 0x1)
    p = predict_launch(dumps["tiled"], device="h200")
    assert "wgmma: 1 group(s) and 1 wait(s) per hot-loop iteration, 0 of them to completion" in " ".join(p.notes)
    # Triton 3.6 on the H200, the same tiled source at 2048x2048x16384: each HGMMA its own group, waited to 0
    (k,) = read_variant(recorded / "pair.tmalongk.before")
    p = predict_launch(k, device="h200")
    assert "wgmma: 4 group(s) and 4 wait(s) per hot-loop iteration, every group waited to completion" in " ".join(
        p.notes
    )
    # the persistent kernel's epilogue drains the pipe once per tile: not counted as the loop's wait
    (k,) = read_variant(recorded / "pair.tmalongk.persist")
    p = predict_launch(k, device="h200")
    assert "wgmma: 1 group(s) and 1 wait(s) per hot-loop iteration, 0 of them to completion" in " ".join(p.notes)


@pytest.mark.slow
def test_a_warp_waits_for_a_wgmma_group_only_at_the_wait_that_drains_it(dumps, recorded):
    from tools.predict.artifacts import read_variant
    from tools.predict.nvidia import inst_cost, wgmma_chain

    m = device_for("sm_90", "h200")
    dep = m.value("dependent_issue_cycles")
    # one HGMMA.64x256x16 of a warpgroup: 2 x 64 x 256 x 16 FLOP over its 4 warps at 1024 x 0.74 FLOP/clk per warp
    group = 2 * 64 * 256 * 16 / 4 / (m.table("tensor_flops_per_cycle")["bf16"] / 4 * 0.74)
    (k,) = read_variant(recorded / "pair.tmalongk.before")  # Triton 3.6: 4 groups per K step, each waited to 0
    f = parse_sass(Path(k.final_isa).read_text())[0]
    costs = [inst_cost(i, m) for i in f.insts]
    wgmma_chain(f.insts, costs, dep)
    (loop,) = find_loops(f)
    body = range(loop.first, loop.last + 1)
    waits = [costs[n].chain for n in body if f.insts[n].opcode.startswith("WARPGROUP.DEPBAR")]
    assert waits == [pytest.approx(dep + group)] * 4
    assert all(costs[n].chain == dep for n in body if f.insts[n].opcode.startswith("HGMMA"))
    # Triton 3.9's persistent loop here: the wait keeps one group outstanding, committed an iteration earlier
    f = _sass(dumps["persistent"])
    costs = [inst_cost(i, m) for i in f.insts]
    wgmma_chain(f.insts, costs, dep)
    hot = max(find_loops(f), key=lambda lp: lp.last - lp.first)
    kept = [n for n in range(hot.first, hot.last + 1) if "gsb0, 0x1" in f.insts[n].operands]
    assert kept and all(costs[n].chain == dep for n in kept)


@pytest.mark.slow
def test_a_wait_that_drains_the_wgmma_pipe_adds_the_device_files_drain_latency(dumps, recorded):
    from tools.predict.artifacts import read_variant
    from tools.predict.nvidia import inst_cost, wgmma_chain

    m = device_for("sm_90", "h200")
    dep, drain = m.value("dependent_issue_cycles"), m.value("wgmma_drain_cycles")
    assert drain > 0 and "generated" in m.figures["wgmma_drain_cycles"][1]  # calibrated on gen GEMMs, not these
    (k,) = read_variant(recorded / "pair.tmalongk.before")  # Triton 3.6: 4 groups per K step, each waited to 0
    f = parse_sass(Path(k.final_isa).read_text())[0]
    (loop,) = find_loops(f)
    body = [n for n in range(loop.first, loop.last + 1) if f.insts[n].opcode.startswith("WARPGROUP.DEPBAR")]
    plain = [inst_cost(i, m) for i in f.insts]
    wgmma_chain(f.insts, plain, dep)
    drained = [inst_cost(i, m) for i in f.insts]
    wgmma_chain(f.insts, drained, dep, drain)
    assert [drained[n].chain - plain[n].chain for n in body] == [pytest.approx(drain)] * 4
    p = predict_launch(k, device="h200")
    assert f"adds the device file's wgmma_drain_cycles ({drain:g}" in " ".join(p.notes)
    # a wait keeping one group outstanding (Triton 3.9's persistent loop, compiled here) drains nothing: no latency
    f = _sass(dumps["persistent"])
    costs = [inst_cost(i, m) for i in f.insts]
    wgmma_chain(f.insts, costs, dep, drain)
    hot = max(find_loops(f), key=lambda lp: lp.last - lp.first)
    kept = [n for n in range(hot.first, hot.last + 1) if "gsb0, 0x1" in f.insts[n].operands]
    assert kept and all(costs[n].chain == dep for n in kept)
