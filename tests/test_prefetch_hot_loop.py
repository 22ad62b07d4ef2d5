"""The hot loop of a prefetch-data-load report is the loop with the most executed instructions (instructions x trips
per wave, from the predictor's trip evidence), every loop reported with its trips; without trip evidence it is the
static pick (most MFMA + memory instructions) and the report says so (a fallback loop the launch
never enters is not "the" hot loop)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.dump_ir import dump_ir
from tools.isa.amdgcn import parse_isa
from tools.isa.cfg import build_cfg, find_hot_loop
from tools.prefetch import analyze_prefetch

FALLBACK = Path(__file__).parent / "data" / "prefetch" / "fallback_loop.py"


def _lines(lp) -> set[int]:
    return {int(ld.source.split(":")[1]) for ld in lp.loads if ld.source}


@pytest.mark.slow
def test_fallback_loop_the_launch_never_enters_is_not_the_hot_loop():
    rep = analyze_prefetch(FALLBACK, "gfx942")
    # the loop bounds on the example launch (n_blocks = 40 < LIMIT = 64): the fast loop (8x unrolled by LLVM: 44
    # instructions, 40 / 8 = 5 trips, 220 executed) does the most; the fallback loop's 24-load copy (84
    # instructions) is entered on no program
    hot = rep.loops[0]
    assert hot.is_hot and [lp.is_hot for lp in rep.loops].count(True) == 1
    assert _lines(hot) == {21} and hot.loads_total == 8
    assert (hot.trips, hot.executed_instructions) == (5.0, 220.0)
    assert hot.executed_instructions == max(lp.executed_instructions for lp in rep.loops)
    assert rep.hot_loop_basis.startswith("the loop with the most executed instructions")
    assert "loop-bounds" in rep.hot_loop_basis
    # every loop is reported, each with its executed count
    assert rep.loops_total == len(rep.loops) == 4
    assert all(lp.executed_instructions is not None for lp in rep.loops)
    # the static pick (most MFMA + memory instructions) is the fallback loop's copy: what the report said before
    final = dump_ir(FALLBACK, "gfx942").kernels[0].final_isa
    k = parse_isa(Path(final).read_text(), final).kernels[0]
    cfg = build_cfg(k)
    static = find_hot_loop(cfg)
    assert static.header_label == ".LBB0_18" != hot.header
    # the loads before the hot loop are counted against the re-picked loop
    assert rep.prologue_loads == sum(
        1 for i in k.instructions[: hot.first_instruction] if i.category.startswith("vmem_load")
    )


def test_without_trip_evidence_the_static_pick_is_stated():
    # the same kernel's final ISA alone: no launch, no trips; the static pick, with the assumption named
    final = dump_ir(FALLBACK, "gfx942").kernels[0].final_isa
    rep = analyze_prefetch(final, "gfx942")
    assert rep.loops[0].is_hot and rep.loops[0].header == ".LBB0_18"
    assert rep.hot_loop_basis.startswith("the static pick (most MFMA + memory instructions), assuming every loop")
    assert "no compiled kernel with a launch" in rep.hot_loop_basis
    assert all(lp.executed_instructions is None for lp in rep.loops)


GQA_FALLBACK = Path(__file__).parent / "data" / "eval_alternatives" / "gqa_fallback_loop.patch"


@pytest.mark.slow
def test_flydsl_fallback_loop_is_not_the_hot_loop(tmp_path):
    import shutil
    import subprocess

    task = Path(__file__).parents[1] / "evals" / "tasks" / "flydsl-gqa-paged-chain-budget" / "workspace"
    shutil.copy(task / "kernel.py", tmp_path / "kernel.py")
    subprocess.run(["git", "apply", str(GQA_FALLBACK)], cwd=tmp_path, check=True, timeout=60)
    rep = analyze_prefetch(tmp_path / "kernel.py", "gfx942")
    # the readlane loop: V, scale and p one block ahead (3 loads), not the fallback loop's 4 (table, V, scale, p)
    assert rep.loops[0].loads_total == 3
