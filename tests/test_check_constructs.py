"""check runs what compilers emit and says `undetermined` for the rest: DPP controls on i32 and i64,
inline asm moves, <8 x i1> bitcasts, splat constants, loads through FlyDSL's unchecked descriptor, do_not_specialize.

Kernels are ours (tests/data/check/xlane_rewrites.py, FlyDSL; triton_dns.py, Triton), compiled in the test: a plain
variant computes Out directly, a rewrite uses the construct and must agree, a planted bug must not.
"""

from __future__ import annotations

import numpy as np
import pytest

from tools.check import xlane
from tools.check.compare import check
from tools.check.engine import Launch, Machine, lay_out
from tools.check.errors import UnsupportedIR
from tools.check.ir import load_kernel
from tools.errors import InputError

from .conftest import REPO

DATA = REPO / "tests" / "data" / "check"
XLANE = DATA / "xlane_rewrites.py"


def _variant(tmp_path, name: str):
    path = tmp_path / name / "kernel.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(XLANE.read_text().replace('VARIANT = "plain_identity"', f'VARIANT = "{name}"'))
    return path


def _line_of(marker: str) -> int:
    return next(i for i, line in enumerate(XLANE.read_text().splitlines(), 1) if marker in line)


# ------------------------------------------------------------------------------------------------ DPP, lane by lane
def _by_hand(ctrl: int) -> list[int]:
    """Each lane's DPP source written from the ISA guide's words, lane by lane (-1: no valid source)."""
    out = []
    for lane in range(64):
        row, pos = divmod(lane, 16)
        if ctrl <= 0xFF:
            src = lane - lane % 4 + ((ctrl >> (2 * (lane % 4))) & 3)
        elif 0x101 <= ctrl <= 0x10F:
            src = lane + (ctrl - 0x100) if pos + ctrl - 0x100 < 16 else -1
        elif 0x111 <= ctrl <= 0x11F:
            src = lane - (ctrl - 0x110) if pos >= ctrl - 0x110 else -1
        elif 0x121 <= ctrl <= 0x12F:
            src = row * 16 + (pos - (ctrl - 0x120)) % 16
        elif ctrl in (0x130, 0x134, 0x138, 0x13C):
            step = 1 if ctrl in (0x130, 0x134) else -1
            src = lane + step
            src = src % 64 if ctrl in (0x134, 0x13C) else (src if 0 <= src < 64 else -1)
        elif ctrl == 0x140:
            src = row * 16 + 15 - pos
        elif ctrl == 0x141:
            src = lane - lane % 8 + 7 - lane % 8
        elif ctrl == 0x142:
            src = row * 16 - 1 if row else -1
        elif ctrl == 0x143:
            src = 31 if row >= 2 else -1
        else:  # row_newbcast / row_share
            src = row * 16 + ctrl - 0x150
        out.append(src)
    return out


CONTROLS = [0x1B, 0xE4, 0x101, 0x10F, 0x111, 0x118, 0x121, 0x12F, 0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142,
            0x143, 0x150, 0x155, 0x15F]  # fmt: skip


@pytest.mark.parametrize("ctrl", CONTROLS)
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_every_dpp_control_reads_the_lane_the_isa_names(ctrl, dtype):
    src = (np.arange(64, dtype=np.uint64) * 0x1_0000_0001 + 7).astype(dtype)  # i64: both halves carry the lane
    old = np.full(64, 0xAB, dtype)
    want = _by_hand(ctrl)
    out = xlane.dpp(old, src, ctrl, 0xF, 0xF, bound_ctrl=False)
    assert [int(o) for o in out] == [int(src[s]) if s >= 0 else 0xAB for s in want]
    zero = xlane.dpp(old, src, ctrl, 0xF, 0xF, bound_ctrl=True)  # bound_ctrl: an invalid source reads 0
    assert [int(o) for o in zero] == [int(src[s]) if s >= 0 else 0 for s in want]


def test_dpp_row_and_bank_masks_keep_old_and_a_lane_outside_exec_is_an_invalid_source():
    src, old = np.arange(64, dtype=np.uint32), np.full(64, 99, np.uint32)
    out = xlane.dpp(old, src, 0x155, row_mask=0b0101, bank_mask=0b0011, bound_ctrl=False)
    # rows 0 and 2, banks 0 and 1 (lane % 4 < 2) take lane 5 of their row; every other lane keeps old
    lane = np.arange(64)
    on = ((lane // 16) % 2 == 0) & (lane % 4 < 2)
    assert np.array_equal(out, np.where(on, (lane // 16) * 16 + 5, 99))
    exec_mask = lane != 21  # lane 21 (row 1's lane 5) is off: row 1's broadcast has no valid source
    got = xlane.dpp(old, src, 0x155, 0xF, 0xF, bound_ctrl=True, exec_mask=exec_mask)
    assert np.array_equal(got, np.where(lane // 16 == 1, 0, (lane // 16) * 16 + 5))


def test_row_xmask_is_not_a_gfx9_control():
    with pytest.raises(ValueError, match="0x161 on gfx942"):
        xlane.dpp_source_lanes(0x161, "gfx942")
    assert list(xlane.dpp_source_lanes(0x161, "gfx1100")[:4]) == [1, 0, 3, 2]


# ------------------------------------------------------------------------------------------------ IR forms
I1_BITCAST = """
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %bits) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %v = lshr i32 %bits, %tid
  %t = trunc i32 %v to i8
  %m = bitcast i8 %t to <8 x i1>
  %e = extractelement <8 x i1> %m, i32 1
  %m2 = insertelement <8 x i1> %m, i1 true, i32 7
  %b = bitcast <8 x i1> %m2 to i8
  %z = zext i8 %b to i32
  %s = select i1 %e, i32 %z, i32 0
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %s, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_i8_to_8_x_i1_bitcast_and_back_puts_element_0_in_bit_0():
    mem = lay_out([("out", bytes(4 * 64))])
    m = Machine(load_kernel(I1_BITCAST), Launch((1, 1, 1), (64, 1, 1)), mem.memory, mem.allocations,
                [mem.address(0), 0b1010_0110], "gfx942")  # fmt: skip
    m.run()
    out = mem.memory[:256].view(np.int32)
    # lane t sees bits >> t; element 1 is bit 1 of that; bit 7 is then set: lane 0: 0xA6|0x80, lane 1: 0x53|0x80
    want = [(((0xA6 >> t) & 0xFF) | 0x80) if (0xA6 >> t) & 2 else 0 for t in range(64)]
    assert out.tolist() == want


def test_an_ir_line_llvmlite_cannot_parse_is_named_with_its_construct():
    bad = I1_BITCAST.replace("%z = zext i8 %b to i32", "%z = zext i8 %b to i32 frobnicate")
    with pytest.raises(UnsupportedIR, match=r"LLVM IR line 10 \(.*\)") as err:
        load_kernel(bad)
    assert "frobnicate" in err.value.instruction


ASM = """
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %a = call i32 asm sideeffect "v_mov_b32 $0, $1", "=v,v"(i32 %tid)
  %b = call i32 asm "", "=v,0"(i32 %a)
  call void asm sideeffect "s_nop 2", ""()
  %c = call i32 asm "v_readfirstlane_b32 $0, $1", "=s,v"(i32 %b)
  %d = call i32 asm "v_readlane_b32 $0, $1, $2", "=s,v,s"(i32 %b, i32 9)
  %e = add i32 %b, %c
  %f = add i32 %e, %d
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %f, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_inline_asm_moves_readlanes_and_nops_run_as_what_they_are():
    mem = lay_out([("out", bytes(4 * 128))])
    m = Machine(load_kernel(ASM), Launch((1, 1, 1), (128, 1, 1)), mem.memory, mem.allocations, [mem.address(0)],
                "gfx942")  # fmt: skip
    m.run()
    tid = np.arange(128)
    # tid + the wave's first lane (0 or 64) + the wave's lane 9 (9 or 73)
    assert mem.memory[:512].view(np.int32).tolist() == (tid + (tid // 64) * 64 + 9 + (tid // 64) * 64).tolist()


def test_other_inline_asm_is_unsupported_naming_its_text():
    ir = ASM.replace('"v_mov_b32 $0, $1", "=v,v"', '"v_mov_b32 $0, $1\\0Av_add_u32 $0, $0, $0", "=v,v"')
    mem = lay_out([("out", bytes(4 * 64))])
    m = Machine(load_kernel(ir), Launch((1, 1, 1), (64, 1, 1)), mem.memory, mem.allocations, [mem.address(0)],
                "gfx942")  # fmt: skip
    with pytest.raises(UnsupportedIR) as err:
        m.run()
    assert err.value.what == 'inline asm "v_mov_b32 $0, $1\\nv_add_u32 $0, $0, $0" (constraints "=v,v")'
    assert isinstance(err.value, InputError)  # the CLI and MCP still show it as an error with a hint


# ------------------------------------------------------------------------------------------------ FlyDSL rewrites
@pytest.mark.slow
@pytest.mark.parametrize(
    ("plain", "rewrite", "bug"),
    [
        ("plain_newbcast", "dpp64_newbcast", "dpp64_newbcast_wrong_lane"),  # i64 row_newbcast:5 + v_mov_b32 pin
        ("plain_bcast15", "dpp_bcast15", "dpp_bcast15_bound"),  # i32 row_bcast15; bound_ctrl zeroes row 0
        ("plain_low_byte", "i1_bitcast", "i1_bitcast_reversed"),  # <8 x i1> → i8
        ("plain_identity", "splat_max", "splat_max_wrong"),  # splat (float -1.000000e+30)
    ],
)
def test_flydsl_rewrite_with_the_construct_is_same_and_a_planted_bug_is_different(plain, rewrite, bug, tmp_path):
    base = _variant(tmp_path, plain)
    rep = check(base, _variant(tmp_path, rewrite))
    assert rep.verdict == "same", rep.reason
    assert rep.cases[0].buffers[0].elements == 64  # every lane's Out agrees
    wrong = check(base, _variant(tmp_path, bug))
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches > 0, wrong.reason


@pytest.mark.slow
def test_flydsl_splat_constant_of_newer_llvm_is_in_the_ir_and_runs(tmp_path):
    from tools.dump_ir import dump_ir

    result = dump_ir(_variant(tmp_path, "splat_max"), "gfx942")
    ir = next(s for s in result.kernels[0].stages if s.name == "llvm_ir")
    # the form llvmlite's parser refuses (-1e30 is not a float exactly): check translates it before parsing
    assert "splat (float -1.000000e+30)" in open(ir.path).read()


@pytest.mark.slow
def test_load_past_the_tensor_through_an_unchecked_descriptor_is_an_error_at_its_line(tmp_path):
    rep = check(_variant(tmp_path, "plain_identity"), _variant(tmp_path, "oob_unchecked"))
    first = rep.cases[0].events[0]
    # lanes 0..63 read Inp[t + 64]: 256 B past Inp's 64 int32, through num_records 0xFFFFFFFF (no bounds on a GPU)
    assert rep.verdict == "different" and rep.reason.startswith("AFTER: past-allocation load of 4 B at offset 256")
    assert (first.kind, first.thread, first.offset, first.count) == ("past-allocation", 0, 256, 64)
    # FlyDSL's debug location for a statement under a trace-time `if` is that `if` line (its LLVM IR says so)
    assert first.user_line == "kernel.py:" + str(_line_of('== "oob_unchecked":'))


@pytest.mark.slow
def test_unknown_inline_asm_is_undetermined_naming_the_text_and_line(tmp_path):
    rep = check(_variant(tmp_path, "plain_identity"), _variant(tmp_path, "asm_unknown"))
    assert rep.verdict == "undetermined"
    assert rep.reason.startswith('undetermined: check does not run inline asm "v_add_u32 $0, $1, $1"')
    assert "kernel.py:" + str(_line_of('== "asm_unknown":')) + ":" in rep.reason  # the `if` line, as above


def _asm_variant(tmp_path, name: str):
    """tests/data/check/triton_inline_asm.py with VARIANT set (the only change)."""
    path = tmp_path / name / "kernel.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((DATA / "triton_inline_asm.py").read_text().replace('VARIANT = "plain"', f'VARIANT = "{name}"'))
    return path


@pytest.mark.slow
def test_ptx_inline_asm_is_undetermined_naming_it_never_different(tmp_path):
    # AFTER swaps the tl math tanh for PTX's tanh.approx.f32: built for gfx942 (the CPU engine's target), the AMD
    # assembler rejects it; before, check stopped with "failed to compile" (exit 2)
    rep = check(_asm_variant(tmp_path, "plain"), _asm_variant(tmp_path, "ptx"))
    assert rep.verdict == "undetermined" and rep.cases == []
    assert rep.reason.startswith('undetermined: check does not run inline asm "tanh.approx.f32 s0, s0;" of kernel.py')
    assert "the AMD assembler rejects it (invalid instruction" in rep.reason


@pytest.mark.slow
def test_ptx_inline_asm_check_exits_3_undetermined_through_the_cli(tmp_path, capsys):
    from tools.cli import main

    ptx = _asm_variant(tmp_path, "ptx")
    assert main(["check", str(ptx), str(ptx)]) == 3  # undetermined: neither 0 (same), 1 (different) nor 2 (error)
    assert capsys.readouterr().out.startswith('check: UNDETERMINED — undetermined: check does not run inline asm "tanh')


@pytest.mark.slow
def test_amd_inline_asm_the_engine_does_not_model_is_undetermined_naming_it(tmp_path):
    rep = check(_asm_variant(tmp_path, "plain"), _asm_variant(tmp_path, "amd"))
    assert rep.verdict == "undetermined"
    assert rep.reason.startswith('undetermined: check does not run inline asm "v_sin_f32 $0, $1" (constraints "=v,v")')
    assert "kernel.py:" in rep.reason  # and the source line of the call


# ------------------------------------------------------------------------------------------------ Triton
@pytest.mark.slow
def test_triton_do_not_specialize_argument_equal_to_1_stays_a_runtime_parameter(tmp_path):
    base = DATA / "triton_dns.py"
    rep = check(base, base)
    # stride (do_not_specialize) and scale are both 1; the asm v_mov_b32 copy runs as a move
    assert rep.verdict == "same", rep.reason
    shifted = tmp_path / "shifted.py"
    shifted.write_text(base.read_text().replace("OFFSET = tl.constexpr(0)", "OFFSET = tl.constexpr(1)"))
    wrong = check(base, shifted)
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches == 101  # out[0] and every x
