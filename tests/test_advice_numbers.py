"""Advice checked against its own numbers (issue 23 §3): each suggestion is recomputed from the facts the report
prints, on kernels written and compiled here, and is not given where those facts refute it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.vgpr_pressure import analyze_path

pytestmark = pytest.mark.slow

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


def test_the_fp32_accumulator_is_not_droppable_state_on_nvidia(column_sum):
    # sm_90: the same 16 floats per lane live in R[4:35]… before, "32 GPRs that are not MMA accumulators (0 of them
    # address arithmetic): R[4:35]" — FADDs of the loaded rows into themselves, the kernel's only state.
    r = analyze_path(column_sum, arch="sm_90").reports[0]
    assert r.hot_loop is not None
    assert "drop_loop_carried_state" not in {s.id for s in r.suggestions}
