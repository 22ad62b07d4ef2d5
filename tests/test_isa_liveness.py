"""Liveness against RGA's shae 3.2.0 'Rn' column (first kernel of each fixture)."""

from __future__ import annotations

import pytest

from tests.isa_fixtures import BATCHED, SPILL, isa_text, rga_rows
from tools.isa.amdgcn import parse_isa
from tools.isa.cfg import build_cfg
from tools.isa.liveness import compute_liveness


def _counts(name: str) -> list[int]:
    k = parse_isa(isa_text(name)).kernels[0]
    return compute_liveness(build_cfg(k)).vgpr


@pytest.mark.parametrize(("name", "lines", "peak"), [(BATCHED, 66, 10), (SPILL, 1412, 204)])
def test_every_instruction_matches_shae(name, lines, peak):
    # shae: "Maximum # VGPR used 10" (batched) and "204" (spill kernel); all lines agree, so no difference to explain.
    rga = [rn for rn, _ in rga_rows(name)]
    mine = _counts(name)
    assert len(rga) == len(mine) == lines
    assert [i + 1 for i, (a, b) in enumerate(zip(rga, mine, strict=True)) if a != b] == []
    assert max(mine) == peak


def test_last_use_is_counted():
    # shae line 65 `global_store_short v[2:3], v0, off` = 3: the store's sources die here but still count.
    assert _counts(BATCHED)[64] == 3


def test_dead_write_is_not_counted():
    # shae line 45 `v_mad_u64_u32 v[2:3], …`: map shows v3 '^' but Rn is 13 — v3 is rewritten at line 46 unread.
    assert _counts(SPILL)[44] == 13


def test_loop_back_edge_keeps_values_live():
    # shae line 48 `s_cbranch_scc0 .LBB0_2` = 5: v0, v2 (next iteration) and v4, v5, v6 (after the loop).
    assert _counts(BATCHED)[47] == 5


def test_agprs_and_sgprs_are_counted_apart():
    k = parse_isa(isa_text(BATCHED)).kernels[1]
    lv = compute_liveness(build_cfg(k))
    assert (lv.max_vgpr, lv.max_agpr, lv.max_sgpr) == (24, 16, 23)
