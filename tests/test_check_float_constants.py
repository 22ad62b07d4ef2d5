"""check's llvm engine reads every special float constant newer LLVM prints (``bfloat +nan(0x3F)``, ``half +qnan``,
``float -snan(0x2)``, ``-inf``, inside ``splat (…)``, a phi or an untyped operand): llvmlite's parser takes only
their hex spellings, which ``tools.check.ir_text`` writes with the same bits. The oracle is LLVM itself: Triton's
bundled LLVM (which parses the new spellings) and llvmlite (after the rewrite) must lay out the same bytes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tools.check.ir_text import translate

KERNEL = Path(__file__).resolve().parent / "data" / "check" / "bf16_nan_constants.py"
GLOBALS = """@bf_qnan_payload = global bfloat +nan(0x3F)
@bf_neg_nan = global bfloat -nan(0x1)
@bf_qnan = global bfloat +qnan
@bf_neg_qnan = global bfloat -qnan
@bf_snan = global bfloat -snan(0x2)
@bf_inf = global bfloat +inf
@bf_neg_inf = global bfloat -inf
@bf_hex = global bfloat 0xR7FC0
@h_payload = global half +nan(0x3F)
@h_snan = global half +snan(0x1)
@h_neg_inf = global half -inf
@h_hex = global half 0xH7E00
@f_payload = global float +nan(0x3F)
@f_neg_nan = global float -nan(0x1)
@f_snan = global float -snan(0x2)
@f_neg_inf = global float -inf
@d_payload = global double +nan(0x3F)
@d_neg_inf = global double -inf
@splat = global <2 x bfloat> splat (bfloat +nan(0x3F))
@vec = global <2 x half> <half -inf, half +qnan>
"""
_DATA = re.compile(r"^\s*\.(short|long|quad)\s+(\S+)", re.M)


def _data(asm: str) -> list[int]:
    return [int(v, 0) for _, v in _DATA.findall(asm)]


def test_every_special_spelling_gets_the_bits_llvm_gives_it():
    triton_llvm = pytest.importorskip("triton._C.libtriton").llvm
    import llvmlite.binding as llvmlite

    triton_llvm.init_targets()
    # Triton's LLVM reads the new spellings itself: the reference bytes (AMDGPU data directives)
    want = _data(triton_llvm.translate_to_asm('target triple = "amdgcn-amd-amdhsa"\n' + GLOBALS.replace(
        "global", "addrspace(1) global"), "amdgcn-amd-amdhsa", "gfx942", "", [], False, False, False))  # fmt: skip
    llvmlite.initialize_native_target()
    llvmlite.initialize_native_asmprinter()
    machine = llvmlite.Target.from_default_triple().create_target_machine()
    got = _data(machine.emit_assembly(llvmlite.parse_assembly(translate(GLOBALS))))
    assert got == want
    # Triton's bf16 NaN, the quiet bit with a 0x3F payload; LLVM's float NaN payload in the low mantissa bits
    assert (want[0], want[1], want[4], want[12], want[14]) == (0x7FFF, 0xFFC1, 0xFF82, 0x7FC0003F, 0xFF800002)


def test_untyped_operands_take_the_type_named_before_them():
    text = """define float @f(float %x, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %m = fcmp ogt float %x, -inf
  br label %b
b:
  %p = phi bfloat [ +nan(0x3F), %entry ], [ -inf, %a ]
  %r = call nnan ninf float @g(float nofpclass(nan inf) %x)
  ret float %r
}
declare float @g(float nofpclass(nan inf))
"""
    out = translate(text)
    assert "fcmp ogt float %x, 0xFFF0000000000000" in out
    assert "phi bfloat [ 0xR7FFF, %entry ], [ 0xRFF80, %a ]" in out
    # fast-math flags and nofpclass attributes name nan/inf without being constants: left as they are
    assert "call nnan ninf float @g(float nofpclass(nan inf) %x)" in out
    import llvmlite.binding as llvmlite

    llvmlite.parse_assembly(out)


@pytest.fixture(scope="module")
def engine_outputs():
    from tools.check.compare import outputs

    return outputs(KERNEL, "llvm")


@pytest.mark.slow
def test_the_kernels_ir_holds_the_constants_llvmlite_could_not_read():
    from tools.dump_ir import dump_ir

    (k,) = dump_ir(KERNEL, "gfx942").kernels
    llir = Path(next(s.path for s in k.stages if s.name == "llir")).read_text()
    assert "<2 x bfloat> splat (bfloat +nan(0x3F))" in llir and "float -inf" in llir


@pytest.mark.slow
def test_the_bf16_kernel_runs_and_matches_torch_on_the_cpu(engine_outputs):
    import torch

    x = torch.from_numpy(engine_outputs["x_ptr"]).to(torch.bfloat16)  # the 384 inputs check generated
    out, peak = engine_outputs["out_ptr"], engine_outputs["max_ptr"]
    assert len(x) == 384 and len(out) == 512
    want = (x.float() * 2.0).to(torch.bfloat16).float().numpy()
    assert np.array_equal(out[:384], want)
    # the 128 lanes past n load other=nan; x * 2 stays NaN and the conversion selects Triton's 0x7FFF, as on the GPU
    assert set((out[384:].view(np.uint32) >> 16).tolist()) == {0x7FFF}
    # the max starts from -inf on the masked lanes, so it is the max of the 384 loaded values
    assert peak[0] == x.float().max().to(torch.bfloat16).item()


@pytest.mark.slow
def test_check_compares_the_bf16_kernel_instead_of_undetermined(engine_outputs):
    from tools.check.compare import check

    report = check(KERNEL, KERNEL)
    assert report.verdict == "same", report.summary
