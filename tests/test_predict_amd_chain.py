"""AMD speed model: loads that wait for another load of the same hot-loop iteration (WaveWork.dependent_waits_iter),
and the unroll factor read from a loop counter. Kernels are compiled here (Triton cross-compiled for gfx942/gfx950,
FlyDSL's task kernels with their NO_UNROLL hint)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tools.dump_ir.dump import dump_ir
from tools.isa.amdgcn import find_kernel, parse_isa
from tools.isa.cfg import build_cfg
from tools.isa.machines import device_for
from tools.predict import predict_kernels
from tools.predict.amd import amd_wave_work, dependent_loads

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "predict"
GQA = REPO / "evals" / "tasks" / "flydsl-gqa-paged-chain-budget"


def _isa(k) -> str:
    """The kernel's AMDGCN text (Triton's ``amdgcn`` stage, FlyDSL's ``final_isa``)."""
    stage = next(s for s in k.stages if s.name == "amdgcn" or s.name.endswith("final_isa"))
    return Path(stage.path).read_text()


def _hot_loop_chain(k, trips: float = 32) -> tuple[int, list[str], float]:
    """(loads in series beyond the first, mnemonics of the loads behind another, dependent_waits_iter) of the hot loop."""
    text = _isa(k)
    work, _, _ = amd_wave_work(text, k.name, k.arch, device_for(k.arch), None, trips, 4)
    hot = next(lp for lp in work.loops if lp.hot)
    kern = find_kernel(parse_isa(text, k.name), k.name)
    cfg = build_cfg(kern)
    loop = next(lp for lp in cfg.loops if cfg.blocks[lp.header].label == hot.header)
    waits, behind = dependent_loads(kern.instructions, loop.instruction_indices(cfg))
    return waits, [kern.instructions[i].mnemonic for i in behind], work.dependent_waits_iter


@pytest.fixture(scope="module", params=["gfx942", "gfx950"])
def gathers(request):
    return {k.name: k for k in dump_ir(DATA / "gather_chain_call.py", request.param).kernels}


@pytest.mark.slow
def test_a_row_named_by_a_table_entry_of_the_same_iteration_waits_one_latency_more(gathers):
    # LLVM unrolls the loop 8x: one s_load_dwordx8 of 8 table entries, then the 8 rows (buffer_load_dword) whose
    # addresses are those entries: two loads in series, the rows behind the entries
    waits, behind, extra = _hot_loop_chain(gathers["chain_one"])
    assert (waits, behind) == (1, ["buffer_load_dword"] * 8)
    # the rows are all the iteration's vector bytes (8 x 4 B x 64 lanes = 2048, all in flight at the first wait: one
    # window); the scalar entry load before them is charged nowhere else: one whole latency more
    assert extra == 1.0


@pytest.mark.slow
def test_a_table_of_a_table_is_two_latencies_more(gathers):
    # entry (s_load_dwordx8) -> remap entry (8 x s_load_dword, their addresses from the entries) -> row (8 x
    # buffer_load_dword): three loads in series per block
    waits, behind, extra = _hot_loop_chain(gathers["chain_two"])
    assert (waits, behind) == (2, ["s_load_dword"] * 8 + ["buffer_load_dword"] * 8)
    assert extra == 2.0


@pytest.mark.slow
def test_a_row_whose_entry_was_loaded_in_the_previous_iteration_is_not_behind_it(gathers):
    # the entry of block i + 1 is loaded in iteration i; unrolled 8x, the first row of an ISA iteration takes the
    # entry the previous ISA iteration loaded (not behind a load of this one), the 7 others take entries loaded in
    # this one: 7 rows behind, still one latency more per ISA iteration
    waits, behind, extra = _hot_loop_chain(gathers["chain_prefetched"])
    assert (waits, behind) == (1, ["buffer_load_dword"] * 7)
    assert extra == 1.0


@pytest.mark.slow
def test_the_chain_costs_its_latencies_in_the_predicted_time(gathers):
    arch = gathers["chain_one"].arch
    one, two = (predict_kernels([gathers[n]], arch=arch)[0] for n in ("chain_one", "chain_two"))
    # 32 blocks, unrolled 8x: 4 ISA iterations per program; chain_two waits one loaded DRAM latency more per ISA
    # iteration than chain_one (900 cycles: at 2.1 GHz on MI300X, at 2.4 GHz on MI355X; see tools/isa/machines).
    # Neither loop runs ahead of its loads: each first wait (s_waitcnt vmcnt(7)) retires a row issued in the same
    # iteration, so an iteration also costs its own issue cycles: chain_two's is 49 scalar instructions longer (the
    # 8 s_load_dword of the remap entries and their address arithmetic, one cycle each): 163 against 114 cycles
    m = device_for(arch)
    assert one.figures.trips == two.figures.trips == 4
    assert (one.figures.iteration_cycles, two.figures.iteration_cycles) == (114, 163)
    extra_us = (m.value("loaded_dram_latency_cycles") + 163 - 114) / m.clock_hz * 1e6
    assert two.figures.latency_us - one.figures.latency_us == pytest.approx(4 * extra_us, rel=1e-9)


@pytest.mark.parametrize(
    ("variant", "waits", "extra"),
    [
        # per block: the slot, then V and scale at addresses from the slot (p beside the slot): 2 loads in series.
        # The in-flight windows already charge V/scale (768 of 2048 B past the 1280 B in flight at the first wait:
        # 0.6 window), the series one latency: 0.4 more
        ("workspace/kernel.py", 1, 0.4),
        # the reference: V/scale of block i+1 take the slot loaded in the previous iteration; nothing in series
        ("solution", 0, 0.0),
        # the slot of block i+1 and then its V/scale in one iteration: one latency more (all 2048 B in flight at
        # the first wait, one window: nothing of the series charged there)
        ("traps/whole_chain_one_ahead.py", 1, 1.0),
    ],
)
@pytest.mark.slow
def test_gqa_paged_decode_chain(variant, waits, extra, tmp_path):
    src = GQA / variant
    if variant == "solution":
        shutil.copytree(GQA / "workspace", tmp_path / "ws")
        subprocess.run(["git", "apply", str(GQA / "solution.patch")], cwd=tmp_path / "ws", check=True, timeout=60)
        src = tmp_path / "ws" / "kernel.py"
    (k,) = dump_ir(src, "gfx942").kernels
    got_waits, _, got_extra = _hot_loop_chain(k, trips=40)
    assert got_waits == waits
    assert got_extra == pytest.approx(extra, abs=1e-9)


def test_a_counter_advancing_by_the_source_step_is_not_an_unroll():
    # range(0, 4096, 16) with sin/cos/exp per iteration: LLVM keeps one source iteration per ISA iteration (one
    # v_exp_f32 in the loop) and its counter advances by 16, the source step: 256 iterations, not 256 / 16
    for arch in ("gfx942", "gfx950"):
        (p,) = predict_kernels(dump_ir(DATA / "counter_step16.py", arch).kernels, arch=arch)
        assert p.trips.source == "loop-bounds"
        assert [lp.trips for lp in p.loops] == [256.0]
        assert not any("unrolled" in n for n in p.notes)


DEQUANT = REPO / "evals" / "tasks" / "amd-dequant-gemm-carry-raw"


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.slow
def test_a_loop_that_moves_more_bytes_but_does_one_steps_mfmas_is_not_an_unroll(arch, tmp_path):
    # the task's reference carries the raw tiles of step k + 1: its loop moves 20480 B per program per iteration (5
    # buffer_load_dwordx4 x 64 lanes x 4 waves) against the source loop's 12416 B (x 8192 + w_q 4096 + scales 128),
    # 1.65x, once read as a 2x unroll (31.5 trips); both loops do one tt.dot 64x64x64 per iteration, and the ISA
    # loop one step's MFMAs: 8 v_mfma_f32_32x32x8_f16 per wave x 4 waves = 262144 multiply-adds = 64^3. The
    # baseline runs K / 64 = 64 iterations, the reference 63 (step 0 is loaded in its prologue, the last step after
    # the loop)
    ws = tmp_path / "ws"
    shutil.copytree(DEQUANT / "workspace", ws)
    subprocess.run(["git", "apply", str(DEQUANT / "solution.patch")], cwd=ws, check=True, timeout=60)
    base, ref = (
        predict_kernels(dump_ir(p, arch).kernels, arch=arch)[0]
        for p in (DEQUANT / "workspace" / "kernel.py", ws / "kernel.py")
    )
    assert (base.figures.trips, ref.figures.trips) == (64.0, 63.0)
    assert not any("unrolled" in n for n in base.notes + ref.notes)
