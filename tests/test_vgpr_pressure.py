"""vgpr-pressure reports on the fixtures, on kernels compiled here, and on an NVIDIA cubin."""

from __future__ import annotations

import json

import pytest

from tests.isa_fixtures import BATCHED, SPILL, fixtures_dir, isa_text
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


def test_diff_flags_spills_and_occupancy_as_regression():
    d = diff_reports(analyze_isa(BATCHED_PATH), analyze_isa(SPILL_PATH))
    changed = {c.name: (c.before, c.after) for c in d.kernels[0].changes if c.regression}
    assert d.regression
    assert changed["vgpr_spill_count"] == (0, 94) and changed["waves_per_simd"] == (8, 2)


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


@pytest.mark.slow
def test_triton_gfx942_matmul_compiled_here():
    triton = pytest.importorskip("triton")
    import triton.language as tl
    from triton.backends.compiler import GPUTarget

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

    from tools.isa import sass

    try:
        sass.find_tool("nvdisasm")
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
