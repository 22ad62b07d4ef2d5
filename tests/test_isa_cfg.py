"""Basic blocks, natural loops and the hot loop on the fixtures."""

from __future__ import annotations

from tests.isa_fixtures import BATCHED, SPILL, isa_text
from tools.isa.amdgcn import parse_isa
from tools.isa.cfg import build_cfg, find_hot_loop


def test_batched_gemm_kernel0_blocks_and_loop():
    cfg = build_cfg(parse_isa(isa_text(BATCHED)).kernels[0])
    # bb.0 | bb.1 (.lr.ph) | .LBB0_2 loop | exit bb | .LBB0_4 | .LBB0_5
    assert len(cfg.blocks) == 6
    assert cfg.blocks[0].succs == [4, 1]  # s_cbranch_scc1 .LBB0_4, then fall-through
    assert [(lp.header, lp.blocks, lp.latches) for lp in cfg.loops] == [(2, [2], [2])]


def test_spill_kernel_hot_loop_is_the_mfma_loop():
    cfg = build_cfg(parse_isa(isa_text(SPILL)).kernels[0])
    hot = find_hot_loop(cfg)
    # The compiler marks .LBB0_4 "=>This Inner Loop Header: Depth=1"; the loop is rotated, so its body spans
    # .LBB0_3 (the MFMA block, the latch) through %bb.9: 7 blocks, instructions #715..#1164.
    assert hot.header_label == ".LBB0_4"
    assert (hot.first_instruction, hot.last_instruction, hot.instruction_count) == (715, 1164, 450)
    assert "128 MFMA" in hot.reason


def test_straight_line_code_has_no_hot_loop():
    cfg = build_cfg(parse_isa("k:\n\tv_mov_b32 v0, 0\n\ts_endpgm\n").kernels[0])
    assert find_hot_loop(cfg) is None
