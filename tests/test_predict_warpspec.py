"""predict on a warp-specialised Hopper GEMM: tests/data/sm90/ws_gemm.py, compiled here for sm_90 by
Triton 3.9 (no GPU). At num_warps=4 the K loop is split into a 4-warp TMA producer (the default partition) and two
4-warp wgmma consumers: one block of 12 warps whose partitions run side by side in the SASS. At num_warps=8 the same
hint is not applied (the loop is software-pipelined as without it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.isa.sass import parse_sass
from tools.predict import predict_launch
from tools.predict.evidence import warpspec_assumptions
from tools.predict.warpspec import WS_UNREAD, map_sass, ttgir_partitions

KERNEL = Path(__file__).resolve().parent / "data" / "sm90" / "ws_gemm.py"


@pytest.fixture(scope="module")
def dumps():
    from tools.dump_ir import dump_ir

    return {k.name: k for k in dump_ir(KERNEL, "sm_90").kernels}


@pytest.fixture(scope="module")
def predicted(dumps):
    return {name: predict_launch(k, device="h200") for name, k in dumps.items()}


def _stage(k, name):
    return Path(next(s.path for s in k.stages if s.name == name)).read_text()


def _spec(k):
    spec = ttgir_partitions(_stage(k, "ttgir"))
    insts = parse_sass(Path(k.final_isa).read_text())[0].insts
    return spec, insts


def test_the_launch_starts_the_partitions_warps_not_the_num_warps_option(dumps, predicted):
    # metadata.num_warps is 12 (4 + 4 + 4); the launcher starts 12 x 32 threads, and occupancy follows them
    assert dumps["ws_tiled"].launch.block_threads == 384
    assert predicted["ws_tiled"].block_threads == 384
    assert predicted["ws_tiled"].figures.resident_waves_per_cu == 12  # 168 registers x 384 threads: one block
    assert dumps["ws8"].launch.block_threads == 256


def test_the_partitions_their_roles_and_setmaxnreg_registers_are_read(dumps):
    spec, insts = _spec(dumps["ws_tiled"])
    assert map_sass(spec, insts)
    got = [(p.name, p.warps, p.role, p.registers) for p in spec.partitions]
    # the PTX's setmaxnreg.dec 40 for the producer's loop and setmaxnreg.inc 232 in each consumer (requestedRegisters)
    assert got == [
        ("default", 4, "producer", 40),
        ("partition0", 4, "consumer", 232),
        ("partition1", 4, "consumer", 232),
    ]
    assert spec.stages == 3  # num_stages=3: the TMA buffers are 3 x 64x64 / 3 x 128x64 bf16


def test_no_partition_is_counted_twice_nor_the_dispatch_loop_taken_for_work(predicted):
    ws, plain = predicted["ws_tiled"], predicted["ws8"]
    # the same 128x128x512 products per tile in both: the tensor term must agree (before: each warp ran both
    # consumers' loops and the producer's, x12 warps)
    assert ws.figures.matrix_us == pytest.approx(plain.figures.matrix_us, rel=0.01)
    hot = [lp for lp in ws.loops if lp.hot]
    assert len(hot) == 1 and hot[0].trips == 8  # 512 / 64 K steps
    # the producer's loop merged into the first consumer's, the second consumer's own; no setmaxnreg retry loop
    # nor the workers' dispatch loop
    assert len(ws.loops) == 2 and all(lp.depth == 1 for lp in ws.loops)


def test_the_producers_bytes_in_flight_are_two_stages_ahead(predicted):
    # one stage: 8192 + 16384 + 8192 B (each consumer's 64x64 A box, the shared 128x64 B box); 3 stages, 2 ahead,
    # shared over the block's 12 warps (the mbarriers, 9 per stage here, are no count of stages)
    per_wave = predicted["ws_tiled"].figures.bytes_in_flight_per_wave
    assert per_wave == pytest.approx(32768 * 2 / 12, rel=0.02)


def test_a_warp_specialised_prediction_is_not_validated_and_says_why(predicted):
    band = predicted["ws_tiled"].band
    assert band.status != "validated"
    assert any(r.startswith("warp-specialised (ttg.warp_specialize)") for r in band.rests_on)
    assert any(n.startswith("warp-specialised: 3 partitions") for n in predicted["ws_tiled"].notes)


def test_a_hint_the_compiler_did_not_apply_is_said_and_modelled_as_the_plain_loop(predicted):
    p = predicted["ws8"]
    assert any(n.startswith("warp_specialize=True was not applied") and "num_warps=8" in n for n in p.notes)
    assert not any("warp-specialised" in r for r in p.band.rests_on)


def test_partitions_the_sass_does_not_show_leave_no_band(dumps):
    spec, insts = _spec(dumps["ws_tiled"])
    # the same SASS without its last worker body's setmaxnreg: two worker partitions, one body found
    last = max(n for n, i in enumerate(insts) if i.opcode.startswith("USETMAXREG.TRY_ALLOC"))
    assert not map_sass(spec, insts[:last])
    (a,) = warpspec_assumptions([f"{WS_UNREAD}: ..."])
    assert a.decides
