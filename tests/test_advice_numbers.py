"""Advice checked against its own numbers: each suggestion is recomputed from the facts the report
prints, on kernels written and compiled here, and is not given where those facts refute it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.vgpr_pressure import analyze_path

COLUMN_SUM = """
import torch
import triton
import triton.language as tl


@triton.jit
def col_sum(x_ptr, out_ptr, rows, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for r in range(rows):
        acc += tl.load(x_ptr + r * BLOCK + cols)
    tl.store(out_ptr + cols, acc)


def kernelpilot_entry():
    x = torch.empty((64, 4096))
    return {"kernel": col_sum, "args": (x, torch.empty(4096), 64), "kwargs": {"BLOCK": 4096, "num_warps": 4},
            "grid": (1,)}
"""


@pytest.fixture(scope="module")
def column_sum(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("colsum") / "kernel.py"
    path.write_text(COLUMN_SUM)
    return path


def test_valu_accumulators_are_not_droppable_state_on_amd(column_sum):
    # acc is 4096 f32 over 256 lanes = 16 per lane, carried around the row loop: the loop (unrolled 4x) computes
    # each register's next value with v_pk_add_f32 from its own header value (v[0:1] → v[34:35] → … → v[0:1]).
    # Before: "17 VGPRs that are not MFMA accumulators travel around the back edge (1 of them address
    # arithmetic): v[0:15], v21" — the 16 are the accumulator; one address VGPR is left, under the threshold of 8.
    r = analyze_path(column_sum, arch="gfx942").reports[0]
    assert r.hot_loop is not None and r.hot_loop.loop_carried_vgprs == 17
    assert "drop_loop_carried_state" not in {s.id for s in r.suggestions}


@pytest.mark.slow
def test_the_fp32_accumulator_is_not_droppable_state_on_nvidia(column_sum):
    # sm_90: the same 16 floats per lane live in R[4:35]… before, "32 GPRs that are not MMA accumulators (0 of them
    # address arithmetic): R[4:35]" — FADDs of the loaded rows into themselves, the kernel's only state.
    r = analyze_path(column_sum, arch="sm_90").reports[0]
    assert r.hot_loop is not None
    assert "drop_loop_carried_state" not in {s.id for s in r.suggestions}


REPO = Path(__file__).resolve().parents[1]
MASKED_PREFETCHED = REPO / "tests" / "data" / "prefetch" / "masked_paged_decode_prefetched.py"
MFMA_PREFETCHED = REPO / "examples" / "prefetch" / "flydsl_mfma" / "prefetched.py"


@pytest.fixture(scope="module")
def masked_prefetched():
    from tools.prefetch import analyze_prefetch

    return analyze_prefetch(MASKED_PREFETCHED, arch="gfx942")


@pytest.mark.slow
def test_a_kernel_holding_its_buffer_is_not_charged_for_it_again(masked_prefetched):
    # 8 of the hot loop's 9 loads are consumed in the next iteration: their registers are the prefetch buffer, already
    # in the 40 VGPRs counted; the 9th is an s_load_dword (an SGPR). Before, the loop's verdict (exposed-latency,
    # from the waits) decided it: "40 registers, needs 8 more for a one-iteration buffer: 48" — the same mistake that
    # said "59 registers, needs 7 more: 66 drops occupancy 8 → 7" of a kernel that keeps 8 waves.
    hot = masked_prefetched.loops[0]
    assert (hot.loads_total, hot.loads_next_iteration, hot.verdict) == (9, 8, "exposed-latency")
    assert [ld.memory for ld in hot.loads].count("scalar") == 1
    h = masked_prefetched.headroom
    assert (h.current_vgprs, h.prefetch_buffer_vgprs, h.projected_vgprs) == (40, 8, 40)
    assert h.verdict == "fits" and "already holds its prefetch buffer" in h.note


@pytest.mark.slow
def test_a_loop_without_a_prefetch_still_needs_its_buffer():
    # The same kernel before its prefetch: no load is consumed a iteration ahead, 8 VGPRs of vector loads to buffer.
    from tools.prefetch import analyze_prefetch

    h = analyze_prefetch(REPO / "tests" / "data" / "prefetch" / "masked_paged_decode.py", arch="gfx942").headroom
    assert (h.current_vgprs, h.prefetch_buffer_vgprs, h.projected_vgprs) == (30, 8, 38)
    assert "needs 8 more for a one-iteration buffer" in h.note


@pytest.mark.slow
def test_copy_advice_does_not_move_a_prefetch_onto_its_own_use():
    # flydsl_mfma/prefetched.py loads the next K step's A and B at [31]-[35] and the compiler copies the current step's
    # data out of the load registers at the loop head ([26] v[16:17] ← v[6:7]). Before, the advice was "issuing that
    # load after [33] (or into a second buffer) lets the compiler drop the copy": the load [31] waits at [25] of the
    # next iteration ~85 issue cycles later, [32] and [33] take 36 of them, so the move would leave ~49 cycles of a
    # ~500-cycle latency — the overlap the prefetch exists for. The advice now names the numbers and a second buffer.
    from tools.prefetch import analyze_prefetch

    rep = analyze_prefetch(MFMA_PREFETCHED, arch="gfx942")
    copies = {c.index: c for c in rep.loops[0].copies if c.kind == "loaded-data"}
    cause = copies[26].cause
    assert "lets the compiler drop the copy" not in cause
    assert "would cut its load-to-wait from ~85 to ~49 cycles (under the ~500-cycle latency)" in cause
    assert "unroll the loop by two" in cause
