"""The cp.async pipeline depth (Triton's ``num_stages``) in bytes in flight: a pipelined loop waits with
``DEPBAR.LE SB0, N``, which leaves N commit groups outstanding, the loads of the iterations ahead; so num_stages - 1
iterations' loads are in flight at the wait (Little's law), and a latency-bound GEMM loop's time falls with each
stage.

The GEMM is examples/prefetch/triton_dot/baseline.py (one 32x32 C tile per program, 256 programs of 4 warps, 256
K-iterations of a 32-wide tl.dot: latency-bound, its tiles re-read from L2) with NUM_STAGES 1 to 4, compiled here
for sm_90 and predicted for the H200."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.isa.sass import SassInst
from tools.predict import predict_kernels
from tools.predict.nvidia import pipeline_bytes

GEMM = Path(__file__).resolve().parents[1] / "examples" / "prefetch" / "triton_dot" / "baseline.py"


def _depbar(operands: str) -> SassInst:
    return SassInst(index=0, addr=0, opcode="DEPBAR.LE", operands=operands, text=f"DEPBAR.LE {operands}", source=None)


def test_a_wait_that_leaves_groups_outstanding_counts_their_bytes_in_flight():
    # two commit groups (A's and B's tile, 512 B per warp each) per iteration
    assert pipeline_bytes(_depbar("SB0, 0x0"), 1024, 2) == 1024  # num_stages 2: the groups it waits for
    assert pipeline_bytes(_depbar("SB0, 0x2"), 1024, 2) == 2048  # num_stages 3: one more iteration's two groups
    assert pipeline_bytes(_depbar("SB0, 0x4"), 1024, 2) == 3072  # num_stages 4: two more


@pytest.fixture(scope="module")
def stages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stages")
    out = {}
    text = GEMM.read_text()
    assert "\nNUM_STAGES = 1\n" in text
    for n in (1, 2, 3, 4):
        path = folder / f"gemm_stages{n}.py"
        path.write_text(text.replace("\nNUM_STAGES = 1\n", f"\nNUM_STAGES = {n}\n"))
        (out[n],) = predict_kernels(dump_ir(path, "sm_90").kernels, arch="sm_90", device="h200")
    return out


@pytest.mark.slow
def test_each_stage_keeps_one_more_iteration_in_flight(stages):
    # num_stages 1 loads with LDG and waits in its own iteration: one 16-byte load per lane per tile, 1024 B per warp;
    # 2: cp.async waited for one iteration later (DEPBAR.LE SB0, 0x0), still 1024 B; 3 and 4 leave 2 and 4 of the
    # two-per-iteration groups outstanding (DEPBAR.LE SB0, 0x2 / 0x4): 2048 and 3072 B
    assert [stages[n].figures.bytes_in_flight_per_wave for n in (1, 2, 3, 4)] == [1024, 1024, 2048, 3072]
    assert all(stages[n].bound == "memory_latency" and stages[n].band.status == "validated" for n in (1, 2, 3, 4))


@pytest.mark.slow
def test_the_latency_bound_gemm_predicts_a_different_time_per_stage_count(stages):
    us = [stages[n].predicted_us for n in (1, 2, 3, 4)]
    # each stage fewer latency windows per K-iteration: 1 (and its issue cycles, not pipelined), 1, 1/2, 1/3. Two
    # stages hide only the work between the next tile's cp.async and its wait at the top of the next iteration
    # (nvidia.run_ahead_cycles), which is little here: 1 and 2 tie, as the H200 measured them (163.5 and 163.7 us,
    # benchmarks/RESULTS.md 'Bands per prediction, loaded loop bounds and num_stages')
    assert us[1] == pytest.approx(us[0], rel=0.02)
    assert us[1] > us[2] > us[3]
    # 3 and 4 stages wait leaving groups outstanding (issued iterations earlier: the whole body runs ahead of them),
    # so their chain term (latency_us) follows 1/(num_stages - 1); 2 stages wait for the one tile in flight and hide
    # less than a body, so their chain is more than twice 3 stages' (measured 163.7 vs 94.3 us)
    lat = {n: stages[n].figures.latency_us for n in (2, 3, 4)}
    assert lat[4] == pytest.approx(lat[3] * 2 / 3, rel=0.05)
    assert lat[2] > 2 * lat[3]
