"""check as a CPU oracle that is never silently wrong: the interpreter's bf16 trap, Triton files checked by
the llvm engine whatever their target, inline PTX asked for sm_90, and a host function's own output under the
interpreter. Kernels are compiled in the tests from tests/data/check/."""

from __future__ import annotations

import json

import pytest

from tools.check.compare import check
from tools.check.interp_trap import bf16_uses
from tools.cli import main

from .conftest import REPO

DATA = REPO / "tests" / "data" / "check"
BF16_CALL = "w8_tile(a=bf16[16,16], w=int8[16,16])"


def _copy(tmp_path, name: str, folder: str, old: str = "", new: str = ""):
    """tests/data/check/NAME in its own folder, with OLD replaced by NEW (the only change)."""
    path = tmp_path / folder / "kernel.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (DATA / name).read_text()
    assert old in text
    path.write_text(text.replace(old, new) if old else text)
    return path


def test_bf16_uses_reads_dots_and_conversions_with_their_source_line_from_ttir():
    # a TTIR excerpt as Triton 3.9 prints it for tests/data/check/triton_bf16_dot.py (named locations chain to the
    # file's line); an f32 conversion and a bf16 load are no trap
    ttir = "\n".join([
        '    %w_12 = arith.sitofp %w_11 : tensor<16x16xi8> to tensor<16x16xbf16> loc(#loc19)',
        '    %acc_13 = tt.dot %a_7, %w_12, %acc, inputPrecision = tf32 : tensor<16x16xbf16> * tensor<16x16xbf16> -> '
        'tensor<16x16xf32> loc(#loc13)',
        '    %x = arith.sitofp %i : tensor<16xi32> to tensor<16xf32> loc(#loc19)',
        '    %a_7 = tt.load %a_6 : tensor<16x16x!tt.ptr<bf16>> loc(#loc17)',
        '#loc1 = loc("/tmp/k/kernel.py":19:11)',
        '#loc7 = loc("/tmp/k/kernel.py":18:9)',
        '#loc13 = loc("acc"(#loc1))',
        '#loc19 = loc("w"(#loc7))',
    ])  # fmt: skip
    assert bf16_uses(ttir) == [
        "arith.sitofp (tensor<16x16xi8> to tensor<16x16xbf16>) at kernel.py:18",
        "tt.dot (tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xf32>) at kernel.py:19",
    ]


@pytest.mark.slow
def test_the_interpreters_bf16_trap_is_caught_and_the_llvm_engine_decides(tmp_path):
    # Triton 3.9's interpreter turns int8 -> bf16 into a bit reinterpretation (a dot of ones gives 260096, not 16):
    # it would compare two wrong results. check names each bf16 op and the engine to use instead.
    before = _copy(tmp_path, "triton_bf16_dot.py", "before")
    after = _copy(tmp_path, "triton_bf16_dot.py", "after", "SCALE = 1.0", "SCALE = 2.0")
    rep = check(before, after, engine="interpreter", call=BF16_CALL)
    assert rep.verdict == "undetermined" and rep.cases == []
    assert "computes bf16 conversions and bf16 tl.dot wrongly" in rep.reason
    assert "arith.sitofp (tensor<16x16xi8> to tensor<16x16xbf16>) at kernel.py:18" in rep.reason
    assert "tt.dot (tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xf32>) at kernel.py:19" in rep.reason
    assert "--engine llvm" in rep.reason
    assert check(before, before, engine="interpreter", call=BF16_CALL).verdict == "undetermined"  # never SAME
    # the llvm engine (the default) runs the compiled IR and decides both ways
    assert check(before, before, call=BF16_CALL).verdict == "same"
    wrong = check(before, after, call=BF16_CALL)
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches == 256


@pytest.mark.slow
def test_a_triton_file_asked_for_sm_90_is_checked_on_gfx942_ir_and_the_report_says_so(tmp_path, capsys):
    before = _copy(tmp_path, "triton_bf16_dot.py", "before")
    after = _copy(tmp_path, "triton_bf16_dot.py", "after", "SCALE = 1.0", "SCALE = 2.0")
    assert main(["check", str(before), str(after), "--arch", "sm_90", "--call", BF16_CALL, "--json"]) == 1
    rep = json.loads(capsys.readouterr().out)
    assert rep["engine"] == "llvm" and rep["arch"] == "gfx942" and rep["verdict"] == "different"
    assert rep["target_note"].startswith("Triton kernels are checked by the llvm engine whatever their target: "
                                         "asked for sm_90, the IR that ran was compiled for gfx942")  # fmt: skip
    assert main(["check", str(before), str(before), "--arch", "sm_90", "--call", BF16_CALL]) == 0
    out = capsys.readouterr().out
    assert out.startswith("check: SAME") and "\n  note: Triton kernels are checked by the llvm engine" in out


@pytest.mark.slow
def test_inline_ptx_asked_for_sm_90_is_undetermined_naming_it_never_different(tmp_path):
    kw = {"old": 'VARIANT = "plain"'}
    plain = _copy(tmp_path, "triton_inline_asm.py", "plain", **kw, new='VARIANT = "plain"')
    ptx = _copy(tmp_path, "triton_inline_asm.py", "ptx", **kw, new='VARIANT = "ptx"')
    rep = check(plain, ptx, arch="sm_90")
    assert rep.verdict == "undetermined" and rep.arch == "gfx942" and "sm_90" in rep.target_note
    assert rep.reason.startswith('undetermined: check does not run inline asm "tanh.approx.f32')


@pytest.mark.slow
def test_the_interpreter_compares_the_output_a_host_function_allocates(tmp_path):
    # scale(x) allocates out = torch.empty_like(x) itself and returns it; before, the interpreter engine saw only the
    # tensors the --call passes ("neither kernel wrote any buffer")
    before = _copy(tmp_path, "triton_host_out.py", "before")
    after = _copy(tmp_path, "triton_host_out.py", "after", "ALPHA = 2.0", "ALPHA = 3.0")
    same = check(before, before, engine="interpreter", call="scale(x=fp32[300])")
    assert same.verdict == "same" and [(b.name, b.elements) for b in same.cases[0].buffers] == [("return", 300)]
    wrong = check(before, after, engine="interpreter", call="scale(x=fp32[300])")
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches == 300


@pytest.mark.slow
def test_a_kernel_on_tma_descriptors_asked_for_sm_90_has_a_cpu_oracle(tmp_path):
    # tl.make_tensor_descriptor loads and stores, as Hopper kernels are written: the llvm engine runs the gfx942 IR
    # Triton lowers them to, and decides both ways
    before = _copy(tmp_path, "triton_tma_copy.py", "before")
    after = _copy(tmp_path, "triton_tma_copy.py", "after", "SCALE = 1.0", "SCALE = 2.0")
    same = check(before, before, arch="sm_90")
    assert same.verdict == "same" and same.engine == "llvm" and "sm_90" in same.target_note
    wrong = check(before, after, arch="sm_90")
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches > 0
