"""prefetch-data-load: verdicts on the bundled pairs (real compiles), --verify, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.errors import InputError
from tools.prefetch import analyze_prefetch, measure_gpu, runner_file, verify_prefetch

EX = Path(__file__).resolve().parents[1] / "examples" / "prefetch"

# A loop with one block that loads, waits and uses in the same iteration, then a copy loop with no loads.
ISA_NO_LOC = """
\t.text
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
\t.globl k
\t.type k,@function
k:
\ts_mov_b32 s2, 0
.LBB0_1:
\tbuffer_load_dwordx4 v[0:3], v4, s[4:7], 0 offen
\ts_add_u32 s2, s2, 1
\ts_waitcnt vmcnt(0)
\tv_add_f32_e32 v5, v0, v5
\ts_cmp_lg_u32 s2, s3
\ts_cbranch_scc1 .LBB0_1
.LBB0_2:
\tv_add_f32_e32 v5, 1.0, v5
\ts_cmp_lg_u32 s2, s8
\ts_cbranch_scc1 .LBB0_2
\ts_endpgm
"""

ISA_NO_LOOP = """
\t.text
\t.globl k
\t.type k,@function
k:
\tbuffer_load_dword v0, v1, s[4:7], 0 offen
\ts_waitcnt vmcnt(0)
\tv_add_f32_e32 v2, v0, v0
\ts_endpgm
"""

# Triton's AMD stream pipeliner: the global load of a later tile issues before the MFMA, its data is written to LDS
# after it, and the loop reads LDS only before that write: the loaded tile is read back in the next iteration.
ISA_LDS_STAGED = """
\t.text
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
\t.globl k
\t.type k,@function
k:
.LBB0_1:
\tds_read_b64 v[6:7], v8
\tglobal_load_dwordx2 v[0:1], v[4:5], off
\ts_waitcnt lgkmcnt(0)
\tv_mfma_f32_32x32x8_f16 v[16:31], v[6:7], v[6:7], v[16:31]
\ts_waitcnt vmcnt(0)
\tds_write_b64 v9, v[0:1]
\ts_cmp_lg_u32 s2, s3
\ts_cbranch_scc1 .LBB0_1
\ts_endpgm
"""

# The same instructions unpipelined: the tile goes to LDS and is read back for the MFMA of the same iteration.
ISA_LDS_SAME_ITERATION = """
\t.text
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
\t.globl k
\t.type k,@function
k:
.LBB0_1:
\tglobal_load_dwordx2 v[0:1], v[4:5], off
\ts_waitcnt vmcnt(0)
\tds_write_b64 v9, v[0:1]
\ts_barrier
\tds_read_b64 v[6:7], v8
\ts_waitcnt lgkmcnt(0)
\tv_mfma_f32_32x32x8_f16 v[16:31], v[6:7], v[6:7], v[16:31]
\ts_cmp_lg_u32 s2, s3
\ts_cbranch_scc1 .LBB0_1
\ts_endpgm
"""

# A three-stage ring: the vmcnt(1) in the loop retires the load issued two iterations earlier (one op stays out).
ISA_THREE_STAGES = """
\t.text
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
\t.globl k
\t.type k,@function
k:
.LBB0_1:
\ts_waitcnt vmcnt(1)
\ts_barrier
\tds_read_b64 v[6:7], v8
\tbuffer_load_dword v10, s[4:7], 0 offen lds
\ts_waitcnt lgkmcnt(0)
\tv_mfma_f32_32x32x8_f16 v[16:31], v[6:7], v[6:7], v[16:31]
\ts_cmp_lg_u32 s2, s3
\ts_cbranch_scc1 .LBB0_1
\ts_endpgm
"""


def test_load_staged_to_lds_after_the_last_lds_read_is_a_prefetch():
    lp = analyze_prefetch(ISA_LDS_STAGED).loops[0]
    # the ds_write is the first use, and no ds_read follows it before the back edge
    assert lp.loads[0].consumed == "next-iteration" and lp.verdict == "prefetched"
    assert lp.loads[0].first_use_text.startswith("ds_write_b64")


def test_load_staged_to_lds_and_read_back_in_the_same_iteration_is_exposed():
    lp = analyze_prefetch(ISA_LDS_SAME_ITERATION).loops[0]
    assert lp.loads[0].consumed == "same-iteration" and lp.verdict == "exposed-latency"


def test_three_stage_ring_wait_two_iterations_later_is_found():
    ld = analyze_prefetch(ISA_THREE_STAGES).loops[0].loads[0]
    # issued at body position 3 of 8. The next iteration's vmcnt(1) lets it stay out (nothing issued after it yet);
    # the one two iterations on retires it, since the next iteration's load is younger: 16 - 3 - 1 instructions
    assert ld.consumed == "next-iteration" and ld.load_to_wait_instructions == 12
    assert ld.wait_text == "s_waitcnt vmcnt(1)"


def test_isa_text_without_loc_reports_exposed_and_no_loads_loops():
    rep = analyze_prefetch(ISA_NO_LOC)
    # the load's data is read 2 instructions after issue by v_add in the same iteration
    hot = rep.loops[0]
    assert hot.is_hot and hot.verdict == "memory-bound"  # 1 VALU for 1 load, no MFMA: little to hide behind
    assert hot.loads[0].consumed == "same-iteration" and hot.loads[0].load_to_wait_instructions == 1
    assert hot.loads[0].bytes_per_lane == 16
    assert [lp.verdict for lp in rep.loops] == ["memory-bound", "no-loads"]
    assert not rep.has_source_lines and any(".loc" in n for n in rep.notes)


def test_kernel_without_loops_says_so():
    rep = analyze_prefetch(ISA_NO_LOOP)
    assert rep.loops == [] and "no loop" in rep.summary


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError):
        analyze_prefetch(tmp_path / "nope.s")


def _failed(rep) -> list[str]:
    """The checks that fail a verification: correctness, speed, spills, budgets (never a structural finding)."""
    return [c.name for c in rep.checks if not c.ok]


def test_verify_needs_a_loop_before():
    with pytest.raises(InputError, match="no loop"):
        verify_prefetch(ISA_NO_LOOP, ISA_NO_LOC)


def test_verify_rejects_after_without_loop():
    with pytest.raises(InputError, match="not two versions"):
        verify_prefetch(ISA_NO_LOC, ISA_NO_LOOP)


def test_gpu_not_measured_without_a_gpu():
    # CI's torch is CPU-only (or absent): the pair defines kernelpilot_run, but nothing can be timed
    rep = measure_gpu(EX / "triton_dot" / "baseline.py", EX / "triton_dot" / "prefetched.py")
    assert not rep.measured and rep.note.startswith("not measured: no GPU") and rep.comparison is None


def test_gpu_not_measured_without_kernelpilot_run():
    rep = measure_gpu(EX / "flydsl_mfma" / "baseline.py", EX / "cuda_rolling" / "prefetched.cu")
    assert not rep.measured and "BEFORE defines no kernelpilot_run" in rep.note


def test_runner_file_convention():
    assert runner_file(EX / "triton_dot" / "prefetched.py") == EX / "triton_dot" / "prefetched.py"
    assert runner_file(EX / "cuda_rolling" / "baseline.cu") == EX / "cuda_rolling" / "baseline_run.py"
    assert runner_file(ISA_NO_LOC) is None


def test_verify_on_isa_text_reports_gpu_not_measured():
    rep = verify_prefetch(ISA_NO_LOC, ISA_LDS_STAGED)
    assert rep.gpu is not None and not rep.gpu.measured and rep.gpu.note.startswith("not measured")
    assert not any(c.name.startswith("gpu") for c in rep.checks)


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_flydsl_mfma_pair(arch):
    base = analyze_prefetch(EX / "flydsl_mfma" / "baseline.py", arch)
    pre = analyze_prefetch(EX / "flydsl_mfma" / "prefetched.py", arch)
    # LLVM merges the four dwordx2 loads into two dwordx4 and waits vmcnt(0) before the first MFMA of the iteration
    assert base.loops[0].verdict == "exposed-latency" and base.loops[0].loads_total == 2
    # the four next-tile loads are consumed by the v_mov copies at the top of the next iteration
    assert pre.loops[0].verdict == "prefetched"
    assert all(ld.consumed == "next-iteration" for ld in pre.loops[0].loads)
    assert pre.loops[0].head_copies == 3  # three v_mov_b64 of loaded fragments: the loop-carried form's cost
    assert pre.prologue_loads == 2 and base.prologue_loads == 0
    assert base.headroom.verdict == "fits" and base.headroom.prefetch_buffer_vgprs == 8  # 32 B/lane / 4
    assert all(ld.source and ld.source.startswith("prefetched.py:") for ld in pre.loops[0].loads)


@pytest.mark.slow
def test_flydsl_mfma_verify_passes_pair_and_fails_hoisted():
    good = verify_prefetch(EX / "flydsl_mfma" / "baseline.py", EX / "flydsl_mfma" / "prefetched.py", "gfx942")
    assert not _failed(good) and good.correctness.ok, good.summary  # check on the CPU: the same outputs
    bad = verify_prefetch(EX / "flydsl_mfma" / "baseline.py", EX / "flydsl_mfma" / "hoisted_wrong.py", "gfx942")
    # it fails because it is wrong (check on the CPU: every element of C differs), not because of its shape
    assert bad.verdict == "fail" and _failed(bad) == ["outputs-correct"]
    assert "1024 element(s) differ in C" in bad.correctness.note
    hoisted = next(c for c in bad.checks if c.name == "loads-stay-in-loop")
    # LLVM hoisted the loop-invariant loads: the loop body loads nothing, which the warning explains
    assert hoisted.severity == "warning" and "hoisted out as loop-invariant" in hoisted.detail


@pytest.mark.slow
def test_flydsl_paged_decode_pair():
    rep = verify_prefetch(EX / "flydsl_paged_decode" / "baseline.py", EX / "flydsl_paged_decode" / "prefetched.py")
    assert rep.before.loops[0].verdict == "exposed-latency"  # table -> KV -> scale chain in one iteration
    assert rep.after.loops[0].verdict == "prefetched" and not _failed(rep), rep.summary


@pytest.mark.slow
def test_cuda_rolling_pair_sm90():
    rep = verify_prefetch(EX / "cuda_rolling" / "baseline.cu", EX / "cuda_rolling" / "prefetched.cu", "sm_90")
    assert not rep.correctness.checked  # check runs FlyDSL/Triton; CUDA is compared on a GPU
    assert rep.before.loops[0].verdict == "exposed-latency"  # LDG.128 read by FMUL 5 instructions later
    after = rep.after.loops[0]
    assert after.verdict == "prefetched"
    assert all(
        ld.text.startswith("@!P0 LDGSTS") and ld.wait_text.startswith("DEPBAR.LE SB0, 0x1") for ld in after.loads
    )
    assert not _failed(rep), rep.summary


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "sm_90"])
def test_triton_dot_pair(arch):
    # the structure is the point here (check=False: the CPU run of this GEMM takes minutes; outcome tests elsewhere)
    rep = verify_prefetch(EX / "triton_dot" / "baseline.py", EX / "triton_dot" / "prefetched.py", arch, check=False)
    # num_stages=1: each tile's vector loads are waited for before its tl.dot
    assert rep.before.loops[0].verdict == "exposed-latency"
    # num_stages=3: gfx942 stages the loads to LDS after the MFMAs, gfx950 loads straight to LDS and sm_90 uses
    # cp.async (LDGSTS); all three are read back in a later iteration
    assert rep.after.loops[0].verdict == "prefetched"
    assert all(ld.consumed == "next-iteration" for ld in rep.after.loops[0].loads)
    assert not _failed(rep), rep.summary
    assert not rep.gpu.measured  # no GPU in CI; the device run is in benchmarks/RESULTS.md


@pytest.mark.slow
def test_triton_dot_sm90_uses_cp_async_three_stage_ring():
    lp = analyze_prefetch(EX / "triton_dot" / "prefetched.py", "sm_90").loops[0]
    # each LDGSTS group is retired by a DEPBAR two iterations later, so its wait lies beyond the next iteration
    assert all(ld.text.startswith("LDGSTS") and ld.wait_text.startswith("DEPBAR.LE SB0") for ld in lp.loads)
