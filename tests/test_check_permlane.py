"""check runs gfx950's permlane16/32 swaps (``llvm.amdgcn.permlane16.swap`` / ``permlane32.swap``), which FlyDSL emits
for a constant xor shuffle of 16 or 32 lanes: the reference function against the CDNA4 ISA guide's loops, and FlyDSL
kernels compiled in the test (tests/data/check/permlane_swap.py) against versions that read the lane by index."""

from __future__ import annotations

import numpy as np
import pytest

from tools.check import xlane
from tools.check.compare import check
from tools.check.engine import Launch, Machine, lay_out
from tools.check.errors import UnsupportedIR
from tools.check.ir import load_kernel

from .conftest import REPO

KERNEL = REPO / "tests" / "data" / "check" / "permlane_swap.py"


# ------------------------------------------------------------------------------------------------ reference function
def _isa_loops(vdst: list[int], src0: list[int], rows: int) -> tuple[list[int], list[int]]:
    """The CDNA4 ISA guide's pseudocode, one wave, lane by lane: V_PERMLANE16_SWAP_B32 (for pass 0..1, lane 0..15:
    SRC0[pass*32 + lane] <-> VDST[pass*32 + lane + 16]) and V_PERMLANE32_SWAP_B32 (lane 0..31: SRC0[lane] <->
    VDST[lane + 32])."""
    vdst, src0 = list(vdst), list(src0)
    pairs = [(p * 32 + lane, p * 32 + lane + 16) for p in range(2) for lane in range(16)] if rows == 16 else [
        (lane, lane + 32) for lane in range(32)]  # fmt: skip
    for s, d in pairs:
        src0[s], vdst[d] = vdst[d], src0[s]
    return vdst, src0


@pytest.mark.parametrize("rows", [16, 32])
def test_permlane_swap_follows_the_isa_loops_wave_by_wave(rows):
    vdst = np.arange(128, dtype=np.uint64) + 1000  # two waves, every value distinct
    src0 = np.arange(128, dtype=np.uint64) + 2000
    new_vdst, new_src0 = xlane.permlane_swap(vdst, src0, rows)
    for w in range(2):
        lanes = slice(64 * w, 64 * (w + 1))
        want_vdst, want_src0 = _isa_loops(vdst[lanes].tolist(), src0[lanes].tolist(), rows)
        assert new_vdst[lanes].tolist() == want_vdst and new_src0[lanes].tolist() == want_src0


def test_permlane_swap_moves_odd_rows_of_vdst_with_even_rows_of_src0():
    # the guide's words: "Odd rows of the first operand are swapped with even rows of the second operand"
    vdst, src0 = np.repeat([10, 11, 12, 13], 16).astype(np.uint64), np.repeat([20, 21, 22, 23], 16).astype(np.uint64)
    a, b = xlane.permlane_swap(vdst, src0, 16)
    assert a[::16].tolist() == [10, 20, 12, 22] and b[::16].tolist() == [11, 21, 13, 23]
    # permlane32: "Rows 2 and 3 of the first operand are swapped with rows 0 and 1 of the second operand"
    a, b = xlane.permlane_swap(vdst, src0, 32)
    assert a[::16].tolist() == [10, 11, 20, 21] and b[::16].tolist() == [12, 13, 22, 23]


def test_swapping_a_value_with_itself_gives_each_lane_its_xor_partner_in_one_of_the_two_results():
    v = np.arange(64, dtype=np.uint64)
    for rows in (16, 32):
        a, b = xlane.permlane_swap(v, v, rows)
        upper = (v & rows) != 0  # the upper lane of a pair finds its partner in vdst, the lower one in src0
        assert np.array_equal(np.where(upper, a, b), v ^ rows)
        assert np.array_equal(np.where(upper, b, a), v)  # the other result keeps the lane's own value


# ------------------------------------------------------------------------------------------------ the engine's op
SWAP_IR = """
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %v = mul i32 %tid, 3
  %r = call { i32, i32 } @llvm.amdgcn.permlane@ROWS@.swap(i32 %tid, i32 %v, i1 false, i1 true)
  %a = extractvalue { i32, i32 } %r, 0
  %b = extractvalue { i32, i32 } %r, 1
  %s = shl i32 %b, 16
  %c = or i32 %a, %s
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %c, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare { i32, i32 } @llvm.amdgcn.permlane@ROWS@.swap(i32, i32, i1 immarg, i1 immarg)
"""


def _run_swap(rows: int, block: int, arch: str = "gfx950") -> np.ndarray:
    mem = lay_out([("out", bytes(4 * block))])
    kernel = load_kernel(SWAP_IR.replace("@ROWS@", str(rows)))
    Machine(kernel, Launch((1, 1, 1), (block, 1, 1)), mem.memory, mem.allocations, [mem.address(0)], arch).run()
    return mem.memory[: 4 * block].view(np.uint32)


def _swapped_by_hand(lanes: int, rows: int) -> list[int]:
    """SWAP_IR's Out with vdst = tid, src0 = 3 * tid: the upper lane of a pair takes src0 from its partner into vdst,
    the lower lane takes vdst from its partner into src0; bits 0..15 hold vdst, bits 16..31 src0."""
    t = np.arange(lanes)
    upper = (t & rows) != 0
    return (np.where(upper, 3 * (t ^ rows), t) | (np.where(upper, 3 * t, t ^ rows) << 16)).tolist()


@pytest.mark.parametrize("rows", [16, 32])
def test_the_intrinsic_returns_vdst_then_src0_after_the_swap(rows):
    assert _run_swap(rows, 64).tolist() == _swapped_by_hand(64, rows)


def test_a_32_lane_workgroup_runs_permlane16_but_not_permlane32_whose_partners_are_outside_exec():
    assert _run_swap(16, 32).tolist() == _swapped_by_hand(32, 16)
    with pytest.raises(UnsupportedIR) as err:  # lanes 32..63 do not exist: what fi / bound_ctrl give is not modelled
        _run_swap(32, 32)
    assert err.value.what == (
        "llvm.amdgcn.permlane32.swap with a lane's partner (lane ^ 32) outside EXEC (fi=False, bound_ctrl=True)"
    )


def test_permlane_swap_outside_gfx950_is_unsupported():
    with pytest.raises(UnsupportedIR, match=r"permlane16.swap on gfx942 \(a gfx950 instruction\)"):
        _run_swap(16, 64, arch="gfx942")


# ------------------------------------------------------------------------------------------------ FlyDSL kernels
def _variant(tmp_path, name: str):
    path = tmp_path / name / "kernel.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(KERNEL.read_text().replace('VARIANT = "xor16_plain"', f'VARIANT = "{name}"'))
    return path


def _llvm_ir(path) -> str:
    from tools.dump_ir import dump_ir

    result = dump_ir(path, "gfx950")
    stage = next(s for s in result.kernels[0].stages if s.name == "llvm_ir")
    return open(stage.path).read()


def _run_on_lane_ids(ir: str) -> np.ndarray:
    """Out after one run with Inp[i] = i (FlyDSL's parameters: Inp, its layout {128}, Out, its layout)."""
    mem = lay_out([("inp", np.arange(128, dtype=np.int32).tobytes()), ("out", bytes(4 * 128))])
    args = [mem.address(0), [[128]], mem.address(1), [[128]]]
    Machine(load_kernel(ir), Launch((1, 1, 1), (64, 1, 1)), mem.memory, mem.allocations, args, "gfx950").run()
    start = mem.allocations[1].start
    return mem.memory[start : start + 4 * 128].view(np.int32)


@pytest.mark.slow
@pytest.mark.parametrize("off", [16, 32])
def test_shuffle_xor_of_16_and_32_lanes_is_a_permlane_swap_on_gfx950_and_runs(off, tmp_path):
    shuffle = _variant(tmp_path, f"xor{off}_shuffle")
    ir = _llvm_ir(shuffle)
    assert f"call {{ i32, i32 }} @llvm.amdgcn.permlane{off}.swap(" in ir  # FlyDSL's lowering, not a bpermute
    assert "ds.bpermute" not in ir
    # lane l holds Inp[l] = l: the shuffle reads lane l ^ off, whatever instruction does it
    assert _run_on_lane_ids(ir)[:64].tolist() == [lane ^ off for lane in range(64)]
    by_index = _variant(tmp_path, f"xor{off}_bpermute")
    assert "@llvm.amdgcn.ds.bpermute(" in _llvm_ir(by_index)
    rep = check(by_index, shuffle, arch="gfx950")  # random inputs from seed 0
    assert rep.verdict == "same", rep.reason
    assert rep.cases[0].buffers[0].elements == 128
    wrong = check(by_index, _variant(tmp_path, f"xor{off}_bug"), arch="gfx950")  # the other swap (48 - off)
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches > 0, wrong.reason


@pytest.mark.slow
def test_wave64_sum_by_xor_shuffles_leaves_the_total_in_every_lane(tmp_path):
    shuffle = _variant(tmp_path, "sum_shuffle")
    ir = _llvm_ir(shuffle)
    assert "@llvm.amdgcn.permlane32.swap(" in ir and "@llvm.amdgcn.permlane16.swap(" in ir  # steps 32 and 16
    assert _run_on_lane_ids(ir)[:64].tolist() == [sum(range(64))] * 64  # 0 + 1 + ... + 63 = 2016 in every lane
    by_index = _variant(tmp_path, "sum_bpermute")
    rep = check(by_index, shuffle, arch="gfx950")
    assert rep.verdict == "same", rep.reason
    wrong = check(by_index, _variant(tmp_path, "sum_bug"), arch="gfx950")  # the step of 32 left out
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches > 0, wrong.reason


@pytest.mark.slow
@pytest.mark.parametrize("off", [16, 32])
def test_both_results_of_a_swap_of_two_registers_match_the_isa(off, tmp_path):
    # a = Inp[t], b = Inp[64 + t] swapped; Out[t] = result 0 (vdst), Out[64 + t] = result 1 (src0). The xor idiom
    # above cannot tell the two results apart (its select picks whichever is not the lane's own value); this can.
    plain = _variant(tmp_path, f"pair{off}_plain")
    rep = check(plain, _variant(tmp_path, f"pair{off}_swap"), arch="gfx950")
    assert rep.verdict == "same", rep.reason
    assert rep.cases[0].buffers[0].elements == 128
    wrong = check(plain, _variant(tmp_path, f"pair{off}_bug"), arch="gfx950")  # results taken in the wrong order
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches > 0, wrong.reason
