"""vgpr-pressure reports on the fixtures, on kernels compiled here, and on an NVIDIA cubin."""

from __future__ import annotations

import json

import pytest

from tests.isa_fixtures import BATCHED, SPILL, fixtures_dir, isa_text
from tests.test_frontend_detection_through_imports import KERNEL as ADD_ONE_TRITON
from tools.cli import main
from tools.errors import InputError
from tools.vgpr_pressure import analyze_isa, analyze_isa_all, analyze_path, diff_reports

SPILL_PATH = fixtures_dir() / "amdgcn_isa" / SPILL
BATCHED_PATH = fixtures_dir() / "amdgcn_isa" / BATCHED


@pytest.fixture(scope="module")
def spill():
    return analyze_isa(SPILL_PATH)


def _m(report, name):
    return report.metric(name)


def test_spill_kernel_resources_and_status(spill):
    # metadata: .vgpr_count 256, .vgpr_spill_count 94, ScratchSize 348, "; Occupancy: 2".
    assert (_m(spill, "vgpr_count").value, _m(spill, "vgpr_count").status) == (256, "bad")
    assert (_m(spill, "vgpr_spill_count").value, _m(spill, "scratch_bytes").value) == (94, 348)
    assert _m(spill, "waves_per_simd").value == 2
    # shae: "Maximum # VGPR used 204".
    assert _m(spill, "max_live_vgprs").value == 204


def test_spill_kernel_peak_is_in_the_hot_loop(spill):
    p = spill.critical_points[0]
    # First of 3 instructions at 204 live: the MFMA at shae line 1078.
    assert (p.instruction.index, p.live_vgprs, p.in_hot_loop, p.instructions_at_peak) == (1077, 204, True, 3)
    kinds = {g.kind: g.count for g in p.by_definition}
    # 131 accumulators (v[3:5], v[106:225], v[248:255]) + 48 LDS fragments + 24 buffer-load tile regs + v2 reloaded.
    assert kinds == {"mfma_accumulator": 131, "lds_fragment": 48, "global_load": 24, "spill_reload": 1}


def test_spill_kernel_hot_loop_distribution(spill):
    h = spill.hot_loop
    assert h.distribution["scratch_load"] == 74 and h.distribution["mfma"] == 128
    # 74 + 2 scratch ops of 148 vector-memory/LDS ops in the loop.
    assert h.scratch_share_of_memory_ops == 0.514
    assert (h.header_live_vgprs, h.loop_carried_vgprs) == (152, 152)


def test_spill_root_cause_is_precomputed_addresses(spill):
    s = spill.spills
    # 81 spill instructions (dword and dwordx4) = 94 spilled dwords; 73 hold LDS/global addresses computed before
    # the loop and reloaded inside it (74 reloads in the loop).
    assert (s.spill_stores, s.hot_loop_spill_reloads) == (81, 74)
    assert s.by_kind["address"] == 73
    assert s.values_truncated and len(s.values) == 8 and s.values_total == 81


def test_spill_kernel_suggestions_only_for_present_patterns(spill):
    ids = [(s.id, s.estimated_vgpr_savings) for s in spill.suggestions]
    # 20 non-accumulator loop-carried VGPRs (keep 2 for a base pointer) and 24 tile VGPRs at the peak (half saved).
    assert ids == [("drop_loop_carried_state", 18), ("per_k_step_b_loads", 12)]


def test_small_kernel_gets_no_suggestions():
    r = analyze_isa(BATCHED_PATH)
    assert (r.suggestions, r.spills, _m(r, "max_live_vgprs").value) == ([], None, 10)


def test_all_kernels_are_reported_with_agprs():
    reps = analyze_isa_all(BATCHED_PATH).reports
    assert [(_m(r, "agpr_count").value, _m(r, "max_live_agprs").value) for r in reps] == [(0, 0), (16, 16)]


def test_summary_comes_first_and_names_the_peak(spill):
    assert list(spill.model_dump())[0] == "summary"
    assert "Peak 204 live VGPRs at #1077" in spill.summary


def test_per_instruction_lists_every_instruction():
    r = analyze_isa(BATCHED_PATH, per_instruction=True)
    assert len(r.per_instruction) == 66 and r.per_instruction[16].live_vgprs == 5  # shae line 17: 5


def test_kernel_selection_by_substring():
    assert analyze_isa(BATCHED_PATH, kernel="matrix_core").kernel.startswith("_Z49")


def test_unknown_kernel_lists_available_names():
    with pytest.raises(InputError) as exc:
        analyze_isa(BATCHED_PATH, kernel="missing")
    assert "_Z49batched" in exc.value.hint


def test_unknown_arch_is_an_input_error():
    with pytest.raises(InputError, match="unknown architecture 'gfx999'"):
        analyze_isa(BATCHED_PATH, arch="gfx999")


def test_huge_file_is_refused(tmp_path, monkeypatch):
    import tools.isa.amdgcn as amdgcn

    monkeypatch.setattr(amdgcn, "MAX_BYTES", 1000)
    with pytest.raises(InputError, match="limit"):
        analyze_isa(BATCHED_PATH)


def test_dump_dir_is_searched_recursively(tmp_path):
    d = tmp_path / "dump" / "kernel"
    d.mkdir(parents=True)
    (d / "21_final_isa.s").write_text(isa_text(BATCHED))
    (d / "03_llvm.ll").write_text("; not isa")
    assert [r.kernel[:4] for r in analyze_path(tmp_path / "dump").reports] == ["_Z35", "_Z49"]


def test_empty_dump_dir_says_what_to_do(tmp_path):
    with pytest.raises(InputError, match="contains no ISA files"):
        analyze_path(tmp_path)


def test_diff_fails_on_spills_and_warns_on_occupancy():
    d = diff_reports(analyze_isa(BATCHED_PATH), analyze_isa(SPILL_PATH))
    failed = {c.name: (c.before, c.after) for c in d.kernels[0].changes if c.regression}
    warned = {c.name: (c.before, c.after) for c in d.kernels[0].changes if c.warning}
    assert d.regression
    # 94 new spills fail; 8 → 2 waves/SIMD explains a time (the speed decides, not the shape)
    assert failed["vgpr_spill_count"] == (0, 94) and "waves_per_simd" not in failed
    assert warned["waves_per_simd"] == (8, 2)


def test_diff_budgets_the_user_sets_fail():
    # the spilling kernel: 8 → 2 waves/SIMD is only a warning, until the user says 4 waves is the least they accept
    d = diff_reports(analyze_isa(SPILL_PATH), analyze_isa(SPILL_PATH), min_waves=4, max_vgprs=512)
    failed = {c.name: c.why for c in d.kernels[0].changes if c.regression}
    assert failed == {"min_waves budget": "waves_per_simd = 2, budget min_waves 4"} and d.regression
    assert not diff_reports(analyze_isa(SPILL_PATH), analyze_isa(SPILL_PATH), min_waves=2).regression


def test_diff_improvement_is_not_a_regression():
    assert not diff_reports(analyze_isa(SPILL_PATH), analyze_isa(BATCHED_PATH)).regression


def test_cli_diff_exits_1_on_more_spills(tmp_path, capsys):
    after = tmp_path / "after.s"
    after.write_text(isa_text(SPILL).replace(".vgpr_spill_count: 94", ".vgpr_spill_count: 120"))
    assert main(["vgpr-pressure", "--diff", str(SPILL_PATH), str(after)]) == 1
    assert "vgpr_spill_count 94→120" in capsys.readouterr().out


def test_cli_diff_of_identical_inputs_exits_0():
    assert main(["vgpr-pressure", "--diff", str(SPILL_PATH), str(SPILL_PATH)]) == 0


def test_cli_json_is_compact(capsys):
    assert main(["vgpr-pressure", str(SPILL_PATH), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reports"][0]["spills"]["values_total"] == 81
    assert "per_instruction" not in out["reports"][0]


def test_cli_reports_bad_input_without_traceback(tmp_path, capsys):
    f = tmp_path / "notes.s"
    f.write_text("just words\n")
    assert main(["vgpr-pressure", str(f)]) == 2
    assert "no AMDGCN instructions" in capsys.readouterr().err


def _matmul_source():
    """A 64x64x32 fp16 K-loop matmul, accumulating in fp32 with ``acc += tl.dot``."""
    triton = pytest.importorskip("triton")
    import triton.language as tl

    @triton.jit
    def mm(a, b, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
            y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * BN + rn[None, :], acc)

    src = triton.compiler.ASTSource(
        fn=mm,
        signature={"a": "*fp16", "b": "*fp16", "c": "*fp32", "K": "i32"},
        constexprs={"BM": 64, "BN": 64, "BK": 32},
    )
    return src


@pytest.mark.slow
def test_triton_gfx942_matmul_compiled_here():
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget

    src = _matmul_source()
    text = triton.compile(src, target=GPUTarget("hip", "gfx942", 64)).asm["amdgcn"]
    r = analyze_isa(text)
    assert r.arch == "gfx942" and r.hot_loop is not None and r.hot_loop.distribution["mfma"] > 0
    assert _m(r, "max_live_vgprs").value <= _m(r, "vgpr_count").value
    # 64x64 fp32 accumulator over 64 lanes = 64 values per lane... split across 4 waves: 16 accumulator VGPRs.
    kinds = {g.kind: g.count for g in r.critical_points[0].by_definition}
    assert kinds["mfma_accumulator"] == 16
    # Triton emits .loc lines, so live values are attributed to this test file's lines.
    assert any(s.source.startswith("test_vgpr_pressure.py:") for s in r.critical_points[0].by_source)


@pytest.mark.slow
def test_nvidia_cubin_compiled_here(tmp_path):
    triton = pytest.importorskip("triton")
    import triton.language as tl
    from triton.backends.compiler import GPUTarget

    from tools import toolchain

    try:
        toolchain.find_tool("nvdisasm")
    except Exception:
        pytest.skip("no nvdisasm")

    @triton.jit
    def add(x, y, o, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(o + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)

    src = triton.compiler.ASTSource(
        fn=add, signature={"x": "*fp32", "y": "*fp32", "o": "*fp32", "n": "i32"}, constexprs={"BLOCK": 1024}
    )
    cubin = tmp_path / "add.cubin"
    cubin.write_bytes(triton.compile(src, target=GPUTarget("cuda", 90, 32)).asm["cubin"])
    r = analyze_path(cubin).reports[0]
    regs = _m(r, "registers_per_thread").value
    assert (r.vendor, r.kernel, r.arch) == ("nvidia", "add", "sm_90")
    # nvdisasm's live count never exceeds what ptxas allocated; nothing spills in a vector add.
    assert 0 < _m(r, "max_live_gprs").value <= regs and _m(r, "local_bytes").value == 0
    # cuobjdump -res-usage: REG:30 (triton 3.9's ptxas); 30 regs → 1024 per warp → 16 blocks of 4 warps = 64 warps.
    assert (regs, _m(r, "occupancy_warps_per_sm").value) == (30, 64)
    # no backward branch: no hot loop, so no loop-based suggestions
    assert (r.hot_loop, r.suggestions) == (None, [])


# --- suggestions: each fires on a kernel with its pattern and stays silent on one without ----------------------


def _gfx942(fn, signature, constexprs):
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget

    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    return triton.compile(src, target=GPUTarget("hip", "gfx942", 64)).asm["amdgcn"]


def _scaled_kernels():
    """Two fp16 GEMMs with fp32 scales: per-K-block row/column scales applied inside the K loop (DeepSeek-style
    block scaling), and one per-tensor scale applied once after the loop."""
    triton = pytest.importorskip("triton")
    import triton.language as tl

    @triton.jit
    def block_scaled(a, b, sa, sb, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
            y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
            s_a = tl.load(sa + rm * (K // BK) + k // BK)
            s_b = tl.load(sb + rn * (K // BK) + k // BK)
            acc += tl.dot(x, y) * (s_a[:, None] * s_b[None, :])
        tl.store(c + rm[:, None] * BN + rn[None, :], acc)

    @triton.jit
    def tensor_scaled(a, b, s, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
            y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * BN + rn[None, :], acc * tl.load(s))

    tiles = {"BM": 64, "BN": 64, "BK": 32}
    ab = {"a": "*fp16", "b": "*fp16"}
    block = _gfx942(block_scaled, {**ab, "sa": "*fp32", "sb": "*fp32", "c": "*fp32", "K": "i32"}, tiles)
    tensor = _gfx942(tensor_scaled, {**ab, "s": "*fp32", "c": "*fp32", "K": "i32"}, tiles)
    return analyze_isa(block), analyze_isa(tensor)


@pytest.fixture(scope="module")
def scaled():
    return _scaled_kernels()


def _suggestion(report, sid):
    return next((s for s in report.suggestions if s.id == sid), None)


@pytest.mark.slow
def test_fold_block_accumulators_fires_on_per_block_scaled_mfma(scaled):
    s = _suggestion(scaled[0], "fold_block_accumulators")
    # LLVM computes each K block's tl.dot into a fresh v[0:15] (the first MFMA has srcC 0), then v_pk_fma folds
    # it, times the scale product, into the running sum v[16:31]: the 16 per-block VGPRs are the saving.
    assert s.estimated_vgpr_savings == 16
    assert s.evidence == (
        "16 VGPRs hold per-block MFMA results that VALU then adds into another accumulator, e.g. #344 "
        "`v_pk_fma_f32 v[28:29], v[100:101], v[0:1], v[28:29]` reads #342 "
        "`v_mfma_f32_32x32x8_f16 v[0:15], v[132:133], v[124:125], v[0:15]`"
    )
    # the running sum is an accumulator too, not loop-carried state to drop
    assert [(g.kind, g.count) for g in scaled[0].hot_loop.loop_carried] == [("valu_accumulator", 16)]
    assert _suggestion(scaled[0], "drop_loop_carried_state") is None


@pytest.mark.slow
def test_fold_block_accumulators_silent_when_mfma_accumulates_in_place(scaled):
    # acc += tl.dot(x, y) with the scale after the loop: the MFMA's srcC is the accumulator itself.
    assert _suggestion(scaled[1], "fold_block_accumulators") is None
    assert [(g.kind, g.count) for g in scaled[1].hot_loop.loop_carried] == [("mfma_accumulator", 16)]


@pytest.mark.slow
def test_lazy_scale_products_fires_when_scales_and_products_pile_up(scaled):
    s = _suggestion(scaled[0], "lazy_scale_products")
    # The 16 b-scale loads (global_load_dword v108..v123) and the a-scale v106 are issued before the MFMA chain;
    # the products s_a*s_b are formed between the MFMAs and held until the v_pk_fma folds. At #326 13 raw scales and
    # 6 products are live at once; keeping one product pair live would free 17.
    assert s.estimated_vgpr_savings == 17
    assert s.evidence == (
        "19 VGPRs of scale values are live at once at #326 `v_pk_mul_f32 v[114:115], v[106:107], v[120:121] "
        "op_sel_hi:[0,1]` (13 loaded scales, 6 precomputed scale products): v[100:101], v106, v[108:123]"
    )


@pytest.mark.slow
def test_lazy_scale_products_silent_when_the_scale_is_applied_after_the_loop(scaled):
    assert _suggestion(scaled[1], "lazy_scale_products") is None
    assert [s.id for s in scaled[1].suggestions] == []


# Hand-written: Triton and FlyDSL for gfx942 read LDS fragments at the top of each iteration, so the software-
# pipelined form below mimics what LLVM emits for a kernel that prefetches the first fragment of the next iteration
# at the end of the current one (ds_read after the barrier, consumed by the MFMA across the back edge).
_LDS_LOOP = """\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
\t.text
\t.globl\tlds_loop
\t.type\tlds_loop,@function
lds_loop:
\tv_mov_b32_e32 v0, 0
\tv_mov_b32_e32 v1, 0
\tv_mov_b32_e32 v2, 0
\tv_mov_b32_e32 v3, 0
\tv_lshlrev_b32_e32 v10, 4, v63
\ts_mov_b32 s2, 0
{prologue}.LBB0_1:
{top}\ts_waitcnt lgkmcnt(0)
\tv_mfma_f32_16x16x16_f16 v[0:3], v[12:13], v[14:15], v[0:3]
\ts_add_i32 s2, s2, 1
\ts_barrier
{bottom}\ts_cmp_lt_i32 s2, s3
\ts_cbranch_scc1 .LBB0_1
\tglobal_store_dwordx4 v[20:21], v[0:3], off
\ts_endpgm
"""
_READS = "\tds_read_b64 v[12:13], v10\n\tds_read_b64 v[14:15], v10 offset:512\n\tv_add_u32_e32 v10, 0x400, v10\n"


def test_drop_first_fragment_prefetch_fires_on_fragments_read_for_the_next_iteration():
    r = analyze_isa(_LDS_LOOP.format(prologue=_READS, top="", bottom=_READS))
    s = _suggestion(r, "drop_first_fragment_prefetch")
    # v[12:15] (A and B fragments) are read after the barrier and consumed by the next iteration's MFMA.
    assert s.estimated_vgpr_savings == 4
    assert s.evidence == (
        "4 LDS-fragment VGPRs (v[12:15]) are loaded in one iteration and live into the loop header .LBB0_1"
    )


def test_drop_first_fragment_prefetch_silent_when_fragments_are_read_at_the_top():
    r = analyze_isa(_LDS_LOOP.format(prologue="", top=_READS, bottom=""))
    assert _suggestion(r, "drop_first_fragment_prefetch") is None
    assert [(g.kind, g.count) for g in r.hot_loop.loop_carried] == [("mfma_accumulator", 4), ("address", 1)]


# --- NVIDIA parity: hot loop, peak groups, spills and suggestions on a Triton sm_90 matmul ---------------------


def _sm90_matmuls(tmp_path_factory):
    """The fp16 matmul above for sm_90 (HGMMA 64x64x16, LDG.U16 tiles staged through STS), as ptxas builds it by
    default and under maxnreg=64, where it spills to local memory."""
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget

    from tools import toolchain

    try:
        toolchain.find_tool("nvdisasm")
    except Exception:
        pytest.skip("no nvdisasm")

    src = _matmul_source()
    out = []
    d = tmp_path_factory.mktemp("sm90")
    for name, opts in (("default", None), ("maxnreg64", {"maxnreg": 64})):
        cubin = d / f"mm_{name}.cubin"
        cubin.write_bytes(triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts).asm["cubin"])
        out.append(analyze_path(cubin).reports[0])
    return out


@pytest.fixture(scope="module")
def sm90(tmp_path_factory):
    return _sm90_matmuls(tmp_path_factory)


@pytest.mark.slow
def test_sm90_matmul_hot_loop_is_the_k_loop(sm90):
    h = sm90[0].hot_loop
    assert (h.header_label, h.first_index, h.last_index) == (".L_x_1", 101, 248)
    # 64x32 + 32x64 fp16 tiles over 128 threads: 32 scalar LDG.U16 and 32 STS per iteration, two HGMMA 64x64x16.
    assert h.reason == (
        "innermost loop headed by .L_x_1 (backward branch at #248, depth 1, 148 instructions) has the most MMA + "
        "memory instructions: 2 MMA, 64 LDG/LDGSTS/LDS/STS/LDL/STL; it is the only innermost loop"
    )
    assert {k: v for k, v in h.distribution.items() if v} == {
        "global_load": 32,
        "shared_store": 32,
        "mma": 2,
        "barrier": 2,
    }
    # 32 HGMMA accumulators (64x64 fp32 / 128 threads) and R71 (the LDS write offset) go around the back edge.
    assert [(g.kind, g.count, g.registers) for g in h.loop_carried] == [
        ("mma_accumulator", 32, "R[24:55]"),
        ("address", 1, "R71"),
    ]


@pytest.mark.slow
def test_sm90_matmul_peak_grouped_by_definition_and_source(sm90):
    r = sm90[0]
    p = r.critical_points[0]
    # nvdisasm --print-life-ranges: 112 live GPRs (of 122 allocated) at six instructions in three runs, first #181.
    assert (p.live_vgprs, p.instruction.index, p.in_hot_loop, p.instructions_at_peak) == (112, 181, True, 6)
    assert p.instruction.text == "LDG.E.U16 R115, desc[UR32][R94.64] ;"
    # 16 per-row 64-bit pointers (R[2:23], R[56:65]) and per-iteration addresses; the HGMMA accumulators; the
    # loaded tile waiting for its STS; the kernel-argument K (LDC) and one zero.
    assert [(g.kind, g.count) for g in p.by_definition] == [
        ("address", 52),
        ("mma_accumulator", 32),
        ("global_load", 25),
        ("constant_load", 2),
        ("alu_other", 1),
    ]
    # Triton emits line info; the defining instructions point back into this file.
    assert all(s.source.startswith("test_vgpr_pressure.py:") for s in p.by_source)
    assert sum(s.count for s in p.by_source) == 112


@pytest.mark.slow
def test_sm90_async_copy_suggestion_fires_for_register_staged_tiles(sm90):
    s = _suggestion(sm90[0], "async_copy_to_shared")
    assert s.estimated_vgpr_savings == 25
    assert s.evidence == (
        "25 GPRs at the peak hold LDG data whose only use is an STS to shared memory (R[76:89], R[102:103], "
        "R[106:113], R115): the tile passes through registers on its way to shared memory"
    )
    # no spills, and nothing but accumulators and one offset is loop-carried: those suggestions stay silent
    assert [s.id for s in sm90[0].suggestions] == ["async_copy_to_shared"]
    assert sm90[0].spills is None


@pytest.mark.slow
def test_sm90_local_spills_in_the_hot_loop(sm90):
    r = sm90[1]
    assert (_m(r, "registers_per_thread").value, _m(r, "spill_instructions").value) == (64, 50)
    s = r.spills
    # ptxas keeps the 32 accumulators in registers and spills pointers: 26 STL / 24 LDL, 22 reloads per iteration.
    assert (s.spill_stores, s.spill_reloads, s.hot_loop_spill_stores, s.hot_loop_spill_reloads) == (26, 24, 4, 22)
    assert r.hot_loop.scratch_share_of_memory_ops == 0.289  # 26 local ops of 90 memory ops in the loop
    sug = _suggestion(r, "local_spills_in_hot_loop")
    assert sug.estimated_vgpr_savings == 20
    assert sug.evidence == (
        "22 LDL reloads and 4 STL stores inside .L_x_1 (20 registers reloaded: R[5:6], R[8:17], R[20:23], "
        "R[58:61]), e.g. #126 `LDL R14, [R1+0xc] ;`"
    )
    assert _suggestion(sm90[0], "local_spills_in_hot_loop") is None


# --- --diff on NVIDIA dump directories: dump-ir's sm_90 folders hold SASS and cubins, no AMDGCN --------------------


@pytest.mark.slow
def test_vgpr_pressure_diff_reads_an_sm90_dump_directory(tmp_path):
    # dump-ir's sm_90 directory holds NN_sass.sass and NN_cubin.cubin, no AMDGCN: before, "contains no ISA files".
    # Now the cubins are read (nvdisasm's life ranges), and BLOCK 256 → 1024 shows in the registers per thread.
    from tools.dump_ir import dump_ir
    from tools.vgpr_pressure import analyze_path, diff_reports

    dirs = []
    for block in (256, 1024):
        src = tmp_path / f"k{block}" / "kernel.py"
        src.parent.mkdir()
        src.write_text(
            ADD_ONE_TRITON.replace('"BLOCK": 256', f'"BLOCK": {block}').replace("empty(256)", f"empty({block})")
        )
        out = tmp_path / f"dump{block}"
        dump_ir(src, "sm_90", out=out)
        assert not list(out.rglob("*.s")) and list(out.rglob("*.cubin"))
        dirs.append(out)
    before, after = analyze_path(dirs[0]), analyze_path(dirs[1])
    assert [r.kernel for r in before.reports] == ["add_one"] and before.reports[0].vendor == "nvidia"
    d = diff_reports(before, after)
    # 256 floats over 128 threads = 2 per thread (one 8-byte load); 1024 = 8 per thread (two 16-byte loads): ptxas
    # gives 8 → 14 registers and the live peak goes 5 → 11, no regression past the threshold
    assert d.summary == "add_one: ok (registers_per_thread 8→14, max_live_gprs 5→11)"
