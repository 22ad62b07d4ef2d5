"""vgpr-pressure on Triton kernels compiled here (gfx942, Triton 3.9): a spilling row norm in the dict form, the
vgpr-spill-row-norm eval task in the example-argument form, and small kernels.

tests/data/triton_dict_form/row_norm_spill.py normalises a 4096-float row with num_warps=1 and waves_per_eu=4: every
lane holds 4096 / 64 = 64 values of each tile tensor, and three of them (xc, xc*xc and the column offsets) are live
across the second tl.sum, against a 128-VGPR budget (512 / 4 waves). It is kept in the dict (signature) form on
purpose: compiled without Triton's launch specialisation, its loads stay one f32 per lane with per-element offsets,
and these tests pin what the report says about such a compile (and that it says it is one), with the figures Triton
3.9 produces. The eval task's kernel (evals/tasks/vgpr-spill-row-norm) is compiled as the JIT launches it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools.cli import main
from tools.vgpr_pressure import analyze_path, analyze_spec

REPO = Path(__file__).resolve().parents[1]
DICT_FORM = REPO / "tests" / "data" / "triton_dict_form" / "row_norm_spill.py"
SPILL_TASK = REPO / "evals" / "tasks" / "vgpr-spill-row-norm" / "workspace" / "kernel.py"


def _with_warps(tmp: Path, warps: int) -> Path:
    """The dict-form row norm with another num_warps (the only change)."""
    text = DICT_FORM.read_text()
    assert '"num_warps": 1' in text
    out = tmp / "kernel.py"
    out.write_text(text.replace('"num_warps": 1', f'"num_warps": {warps}'))
    return out


@pytest.fixture(scope="module")
def baseline():
    return analyze_path(DICT_FORM, arch="gfx942").reports[0]


def _suggestion(report, sid):
    return next((s for s in report.suggestions if s.id == sid), None)


def test_a_kernel_file_is_compiled_like_prefetch_does(baseline):
    # Before: "error: kernel.py holds no AMDGCN instructions". Now dump-ir compiles it: 128 VGPRs, 67 spills.
    assert (baseline.kernel, baseline.arch) == ("row_norm_kernel", "gfx942")
    assert (baseline.metric("vgpr_count").value, baseline.metric("vgpr_spill_count").value) == (128, 67)


@pytest.mark.slow
def test_warp_count_fix_is_named_with_numbers(baseline):
    s = _suggestion(baseline, "raise_num_warps")
    # 4096 values over 64 lanes x 1 warp = 64 per lane per tensor; xc*xc (consumed by the tl.sum at line 23), cols
    # (held for the w load and the store) and xc (held for the final multiply) = 3 x 64 = 192 VGPRs against 128.
    # num_warps=2 halves that to 96, the first count within 75% of the budget: 192 - 96 = 96 saved.
    assert s.title == "spread the tile over more warps: num_warps 1 → 2"
    assert s.estimated_vgpr_savings == 96
    assert "values per lane = BLOCK (4096) / (64 lanes × 1 warp) = 64 per tile tensor" in s.evidence
    assert "at the tl.sum at row_norm_spill.py:23" in s.evidence
    assert "xc (row_norm_spill.py:22) f32 (64/lane, held for the * at row_norm_spill.py:25)" in s.evidence
    assert "cols (row_norm_spill.py:18) i32 index (64/lane, held for the load at row_norm_spill.py:24)" in s.evidence
    assert "est. 192 VGPRs of tile values (128 data + 64 index) against a budget of 128" in s.evidence
    assert 'amdgpu-waves-per-eu="4,4"' in s.evidence
    # mask = cols < N is held too: 64 lane masks per lane, one SGPR pair each (v_cmp_gt_i32_e64 s[94:95], s8, v0):
    # 128 SGPRs against 102 addressable — the cause of the 42 SGPR spills; two warps halve it to 64.
    assert "the masks held take est. 128 SGPRs" in s.evidence and "est. 64 SGPRs of masks" in s.action
    assert "num_warps=4: 16 per lane, est. 48" in s.action
    # The alternative launch option: waves_per_eu=2 gives 512 / 2 = 256 VGPRs (192 fits in 75%) at 2 waves/SIMD.
    assert "waves_per_eu=2, raises the budget to 256 VGPRs" in s.action
    assert baseline.suggestions[0].id == "raise_num_warps"  # the top fix


@pytest.mark.slow
def test_the_suggested_warp_count_removes_the_spills(tmp_path):
    # The estimate (96 VGPRs of tile values) is what Triton then allocates, plus 7 for everything else.
    after = analyze_path(_with_warps(tmp_path, 2), arch="gfx942").reports[0]
    assert (after.metric("vgpr_count").value, after.metric("vgpr_spill_count").value) == (103, 0)
    assert after.metric("waves_per_simd").value == 4
    assert _suggestion(after, "raise_num_warps") is None  # 96 <= 75% of 128: nothing left to suggest


@pytest.mark.slow
def test_peak_is_attributed_to_the_users_lines(baseline):
    p = baseline.critical_points[0]
    # The peak instruction is Triton's tl.sum code (standard.py:314:12), inlined at row_norm_spill.py:23:11.
    assert p.instruction.source == "(inside tl.sum at row_norm_spill.py:23:11)"
    assert p.instruction.inlined_at[0].startswith("standard.py:314")
    top = [(g.source, g.count) for g in p.by_source[:3]]
    assert top == [("row_norm_spill.py:22:10", 64), ("row_norm_spill.py:23:18", 36), ("row_norm_spill.py:20:9", 15)]
    assert not any("standard.py" in g.source for g in p.by_source)


@pytest.mark.slow
def test_every_status_says_why_with_its_threshold(baseline):
    flagged = {m.name: m.note for m in baseline.metrics if m.status != "ok"}
    assert set(flagged) == {"vgpr_count", "sgpr_count", "vgpr_spill_count", "sgpr_spill_count", "scratch_bytes"}
    for name, note in flagged.items():
        status = baseline.metric(name).status
        assert note.startswith(f"{status}: "), name
    assert "the allocation hit its ceiling of 128" in flagged["vgpr_count"]
    assert "more than the 102 addressable SGPRs" in flagged["sgpr_count"]
    assert flagged["sgpr_spill_count"].startswith("warn: > 0: SGPR spills go to VGPR lanes")


@pytest.mark.slow
def test_occupancy_names_its_limiter_and_the_waves_per_eu_attribute(baseline):
    note = baseline.metric("waves_per_simd").note
    assert 'amdgpu-waves-per-eu="4,4"' in note and "at most 128 VGPRs per wave" in note
    assert "vgpr" in note.split(";")[0]  # 128 VGPRs allow 4 waves: the register file is the limiter


@pytest.mark.slow
def test_address_spills_say_which_addresses(baseline):
    # The 62 'address' spills are the masked per-element offsets (v_cndmask of cols*4) of the x load, kept for the
    # w load (line 24) and the out store (line 25) across both reductions.
    s = baseline.spills
    assert s.by_kind["address"] == 62
    detail = s.by_kind_detail["address"]
    assert detail.startswith("defined at row_norm_spill.py:20:9 ×60")
    assert (
        "row_norm_spill.py:24:9 (buffer_load_dword)" in detail
        and "row_norm_spill.py:25:5 (buffer_store_dword)" in detail
    )


@pytest.mark.slow
def test_a_weight_multiplied_into_data_is_not_a_scale_load(baseline):
    # w is multiplied into xc * rstd (a VALU product, not an MFMA/FMA result): it is a global load.
    assert "scale_load" not in baseline.spills.by_kind
    assert baseline.spills.by_kind["global_load"] == 4


@pytest.mark.slow
def test_scalar_loads_carry_their_reason(baseline):
    # The entry's signature has no tt.divisibility: Triton keeps one f32 per lane per load (4 B).
    lines = [t for t in baseline.triton if t.startswith("load ")]
    assert len(lines) == 2
    assert lines[1].startswith("load w (row_norm_spill.py:24): 4 B per lane per instruction in the ISA")
    assert "alignment unknown: w_ptr carries no tt.divisibility=16" in lines[1]
    assert "mask not constant over a vector: it depends on N" in lines[1]


HELPER = """
import triton
import triton.language as tl


@triton.jit
def _scale(v, s):
    return v * s + 1.0


@triton.jit
def twice(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = _scale(tl.load(x_ptr + offs), 2.0)
    b = _scale(tl.load(y_ptr + offs), 3.0)
    s = tl.sum(tl.load(x_ptr + tl.arange(0, 16)[:, None] * 64 + tl.arange(0, 64)[None, :]), axis=1)
    tl.store(out_ptr + tl.arange(0, 16), s)
    tl.store(out_ptr + 16 + offs, a + b)


def kernelpilot_entry():
    return {"kernel": twice, "signature": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
            "BLOCK": "constexpr"}, "constexprs": {"BLOCK": 256}, "options": {"num_warps": 4}}
"""


@pytest.fixture(scope="module")
def helper(tmp_path_factory):
    path = tmp_path_factory.mktemp("helper") / "kernel.py"
    path.write_text(HELPER)
    return analyze_path(path, arch="gfx942", per_instruction=True).reports[0]


@pytest.mark.slow
def test_a_helper_called_twice_is_told_apart_by_its_call_site(helper):
    # _scale's line 8 runs for a (called at line 14) and b (line 15); TTGIR names both call sites.
    tile = next(t for t in helper.triton if t.startswith("tile values"))
    assert "a (kernel.py:8 via kernel.py:14)" in tile and "b (kernel.py:8 via kernel.py:15)" in tile
    # In the ISA, a's multiply-add keeps _scale's line and its call site (b's was fused into the final add).
    sources = {i.source for i in helper.per_instruction if i.source}
    assert "kernel.py:8:12 via kernel.py:14:9" in sources
    assert "(inside tl.sum at kernel.py:16:9)" in sources
    assert not any("standard.py" in s for s in sources)


@pytest.mark.slow
def test_a_layout_conversion_through_lds_is_reported(helper):
    # tl.sum(axis=1) leaves a slice layout; the store wants the 1-D blocked layout: Triton converts through LDS.
    conv = [t for t in helper.triton if t.startswith("layout conversion")]
    assert conv == [
        "layout conversion at kernel.py:17: slice(dim 1 of #blocked1) → #blocked (tensor<16xf32>, 64 B) through "
        "LDS (the launch allocates 64 B of shared memory)"
    ]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True)


@pytest.mark.slow
def test_baseline_from_git_reports_the_occupancy_change(tmp_path, monkeypatch, capsys):
    # Commit the baseline, raise num_warps to 4 in the working copy, judge it against HEAD:kernel.py.
    _git(tmp_path, "init", "-q")
    (tmp_path / "kernel.py").write_text(DICT_FORM.read_text())
    _git(tmp_path, "add", "kernel.py")
    _git(tmp_path, "commit", "-qm", "baseline")
    _with_warps(tmp_path, 4)
    monkeypatch.chdir(tmp_path)
    assert main(["vgpr-pressure", "kernel.py", "--baseline", "HEAD:kernel.py"]) == 0
    out = capsys.readouterr().out
    assert "against the baseline: ok (vgpr_count 128→55," in out
    assert "vgpr_spill_count 67→0" in out
    # waves_per_eu=4 caps both at 4 waves/SIMD (LLVM's "; Occupancy: 4", 97 VGPRs reserved): no waves_per_simd change
    assert "waves_per_simd" not in out.split("against the baseline:")[1].splitlines()[0]
    # --diff takes the same references; the other direction is a regression (exit 1).
    assert main(["vgpr-pressure", "--diff", "kernel.py", "HEAD:kernel.py"]) == 1
    assert "REGRESSION" in capsys.readouterr().out


@pytest.mark.slow
def test_git_baseline_report_names_the_commit(tmp_path, monkeypatch):
    _git(tmp_path, "init", "-q")
    (tmp_path / "kernel.py").write_text(DICT_FORM.read_text())
    _git(tmp_path, "add", "kernel.py")
    _git(tmp_path, "commit", "-qm", "baseline")
    monkeypatch.chdir(tmp_path)
    reports = analyze_spec("HEAD:kernel.py", arch="gfx942")
    assert reports.file.startswith("HEAD:kernel.py (") and reports.reports[0].metric("vgpr_spill_count").value == 67


@pytest.mark.slow
def test_ttgir_layouts_give_exact_elements_per_lane(tmp_path):
    # The helper kernel's 2-D load uses #blocked1 = sizePerThread [1, 1], threadsPerWarp [1, 64], warpsPerCTA [4, 1]:
    # a 16x64 tile puts 16 / 4 = 4 rows and 64 / 64 = 1 column on each lane; tl.sum(axis=1) leaves a slice of it
    # whose 16 values are split over the 4 warps only (4 per lane, replicated over the 64 lanes).
    from tools.dump_ir import dump_ir
    from tools.isa import ttgir

    path = tmp_path / "kernel.py"
    path.write_text(HELPER)
    stage = next(s for s in dump_ir(path, "gfx942").kernels[0].stages if s.name == "ttgir")
    mod = ttgir.parse_ttgir(Path(stage.path).read_text())
    assert (mod.num_warps, mod.threads_per_warp, mod.kernel) == (4, 64, "twice")
    by_name = {o.result: o for o in mod.ops if o.result}
    tile = next(o for o in mod.ops if o.name in ttgir.LOAD_OPS and o.result_type.shape == [16, 64])
    assert ttgir.elements_per_lane(mod, tile.result_type) == 4
    assert ttgir.elements_per_lane(mod, tile.result_type, num_warps=8) == 2  # 1024 values / (64 x 8)
    reduced = next(o for o in mod.ops if o.name == "tt.reduce")
    assert reduced.result_type.encoding.startswith("#ttg.slice")
    assert ttgir.elements_per_lane(mod, reduced.result_type) == 4
    assert tile.result_type.element == "f32"  # tt.load of a pointer tensor yields its pointee
    assert by_name["%offs"].result_type.shape == [256] and ttgir.registers_per_lane(mod, tile.result_type) == 4
    # No argument carries tt.divisibility: the dict-form signature gives Triton no alignment facts.
    assert mod.args == {
        "%x_ptr": ("!tt.ptr<f32>", False),
        "%y_ptr": ("!tt.ptr<f32>", False),
        "%out_ptr": ("!tt.ptr<f32>", False),
    }


EXAMPLE_ENTRY = """

def kernelpilot_entry():  # the launch forward() makes for 3 rows of 4096: what Triton's JIT compiles
    x, w = torch.empty((3, 4096)), torch.empty(4096)
    return {"kernel": row_norm_kernel, "args": (x, w, torch.empty_like(x), 4096, 1e-5),
            "kwargs": {"BLOCK": BLOCK, **OPTIONS}, "grid": (3,)}
"""


@pytest.mark.slow
def test_the_dict_form_report_says_it_is_not_the_launched_kernel():
    from tools.dump_ir import dump_ir

    (k,) = dump_ir(DICT_FORM, "gfx942").kernels
    assert k.launch.source == "signature" and k.launch.grid is None
    assert k.notes[0].startswith("compiled without launch specialisation: pointers assumed unaligned")


@pytest.mark.slow
def test_example_arguments_make_the_loads_wide(tmp_path):
    # The narrow-load reason checked the other way round: the same kernel with example arguments (the form the
    # README asks for). Triton's binder marks the aligned pointers and N = 4096 divisible by 16, as the JIT does at
    # launch, and the loads become 16 B per lane, so no load line is reported.
    text = DICT_FORM.read_text()
    path = tmp_path / "kernel.py"
    path.write_text(text[: text.index("def kernelpilot_entry")] + EXAMPLE_ENTRY)
    report = analyze_path(path, arch="gfx942").reports[0]
    assert [t for t in report.triton if t.startswith("load ")] == []
    isa = Path(report.file).read_text()
    assert "buffer_load_dwordx4" in isa and "buffer_load_dword " not in isa
    # Vector loads need one base offset, not one per element: 67 spills become 1 at the same 128-VGPR budget.
    assert (report.metric("vgpr_count").value, report.metric("vgpr_spill_count").value) == (128, 1)


@pytest.mark.slow
def test_the_spill_task_spills_its_weights_in_the_row_loop():
    # The eval task, compiled as the JIT launches it: w (64 values per lane, 16-byte loads before the row loop) is
    # live across the whole loop beside x and xc; at waves_per_eu=4 (128 VGPRs) its 14 dwordx4 loads (56 VGPRs) go
    # to scratch once, before the loop, and are reloaded in every iteration.
    report = analyze_path(SPILL_TASK, arch="gfx942").reports[0]
    assert (report.metric("vgpr_count").value, report.metric("vgpr_spill_count").value) == (128, 56)
    assert (report.metric("scratch_bytes").value, report.metric("waves_per_simd").value) == (228, 4)
    s = report.spills
    assert (s.spill_stores, s.hot_loop_spill_stores, s.hot_loop_spill_reloads) == (14, 0, 14)
    assert s.by_kind == {"global_load": 14}
    assert s.by_kind_detail["global_load"].startswith("defined at kernel.py:22:9 ×14")


@pytest.mark.slow
def test_a_row_loop_without_mfma_gets_no_per_k_step_tile_advice():
    # the task's waves_per_eu=2 trap holds its weights in 180 VGPRs across a row loop of VALU work: a whole tile of
    # loaded data is live at the peak, but there are no K steps (no MFMA) to split it over
    trap = SPILL_TASK.parents[1] / "traps" / "waves_per_eu_2.py"
    report = analyze_path(trap, arch="gfx942").reports[0]
    assert report.metric("vgpr_count").value == 180
    assert "per_k_step_b_loads" not in {x.id for x in report.suggestions}


@pytest.mark.slow
def test_nvidia_line_info_walks_inlining_chains_too(tmp_path):
    # nvdisasm -gi writes an inlined position as a chain of '//## File …, line N inlined at …' lines; the helper's
    # line 8 is told apart by its two call sites, and tl.sum's code is attributed to the user's line 16.
    path = tmp_path / "kernel.py"
    path.write_text(HELPER)
    report = analyze_path(path, arch="sm_90", per_instruction=True).reports[0]
    sources = {i.source for i in report.per_instruction if i.source}
    assert {
        "kernel.py:8 via kernel.py:14",
        "kernel.py:8 via kernel.py:15",
        "(inside tl.sum at kernel.py:16)",
    } <= sources
    assert not any("standard.py" in s for s in sources)


@pytest.mark.slow
def test_stages_beside_the_isa_are_read_only_inside_the_callers_roots(baseline, tmp_path):
    # The MCP server confines each call to its roots; a TTGIR beside the ISA outside them is not read (no Triton
    # lines), rather than read through a path the caller may not see.
    from tools import paths
    from tools.vgpr_pressure import triton as vgpr_triton

    assert vgpr_triton.stages_beside(baseline.file).ttgir is not None
    with paths.confined_to([tmp_path]):
        stages = vgpr_triton.stages_beside(baseline.file)
    assert (stages.ttgir, stages.llir) == (None, None)


@pytest.mark.slow
def test_the_spill_task_gets_its_warp_count_fix_from_the_loop_body(tmp_path):
    # The task's baseline (example arguments, a persistent row loop) once got no suggestion: the TTGIR view skipped
    # kernels with an scf.for. Now the loop body is read too, and the weights loaded before the loop count as live
    # at every op of it. At the second tl.sum (line 27): var (consumed), xc (held for the final *), w (held across
    # the loop), cols and the row offsets x (index tensors held for the store): 5 x 4096 / 64 = 320 VGPRs against
    # waves_per_eu=4's 128; num_warps=2 halves that to 160 (> 96 = 75% of 128), num_warps=4 gives 80 <= 96:
    # the task's reference fix.
    report = analyze_path(SPILL_TASK, arch="gfx942").reports[0]
    s = _suggestion(report, "raise_num_warps")
    assert s is not None and s.title == "spread the tile over more warps: num_warps 1 → 4"
    assert s.estimated_vgpr_savings == 320 - 80
    assert "w (kernel.py:22) f32 (64/lane, held for the * at kernel.py:28)" in s.evidence
    assert "est. 320 VGPRs of tile values (192 data + 128 index) against a budget of 128" in s.evidence
    # and the fix it names removes the spills: the same file with num_warps=4 compiles to 50 VGPRs, no spills.
    fixed = tmp_path / "kernel.py"
    fixed.write_text(SPILL_TASK.read_text().replace('"num_warps": 1', '"num_warps": 4'))
    after = analyze_path(fixed, arch="gfx942").reports[0]
    assert (after.metric("vgpr_count").value, after.metric("vgpr_spill_count").value) == (50, 0)
    assert _suggestion(after, "raise_num_warps") is None
