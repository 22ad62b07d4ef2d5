"""check's llvm engine on atomics (tools.check.atomics): an int8-weight GEMM whose split-K phase adds partials with
fp32 atomics (Triton emits llvm.amdgcn.raw.ptr.buffer.atomic.fadd), and a sum whose last-arriving program reduces
(an acq_rel counter, atomicrmw add; cmpxchg for the spin-wait). Kernels compiled in the tests from tests/data/check/.
"""

from __future__ import annotations

import numpy as np
import pytest

from tools.check.atomics import _turns
from tools.check.compare import check

from .conftest import REPO

DATA = REPO / "tests" / "data" / "check"
GEMM_CALL = "w8a16_matmul(a=bf16[4,128], w=int8[128,64], scale=fp32[64])"
SUM_CALL = "vector_sum(x=fp32[512])"


def _variant(tmp_path, name: str, default: str, variant: str):
    path = tmp_path / variant / "kernel.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((DATA / name).read_text().replace(f'VARIANT = "{default}"', f'VARIANT = "{variant}"'))
    return path


def _line_of(name: str, text: str) -> int:
    return next(i for i, line in enumerate((DATA / name).read_text().splitlines(), 1) if text in line)


def test_an_atomics_lanes_take_turns_one_per_address_in_lane_order():
    # lanes 1, 3, 4 and 7 hit address 8, lanes 2 and 5 address 16: every address's lanes in lane order, one a turn
    addr = np.array([0, 8, 16, 8, 8, 16, 24, 8], dtype=np.uint64)
    turns = [t.tolist() for t in _turns(np.array([1, 2, 3, 4, 5, 7]), addr)]
    assert turns == [[1, 2], [3, 5], [4], [7]]
    assert list(_turns(np.array([], dtype=np.int64), addr)) == []


@pytest.mark.slow
def test_a_split_k_int8_gemm_adding_partials_atomically_is_same_as_the_plain_one(tmp_path):
    plain = _variant(tmp_path, "triton_splitk_w8.py", "plain", "plain")
    split = _variant(tmp_path, "triton_splitk_w8.py", "plain", "splitk")
    # four K slices summed in another order than one K loop: equal within float rounding, not bit for bit
    rep = check(plain, split, call=GEMM_CALL, atol=1e-3, rtol=1e-4)
    assert rep.verdict == "same", rep.reason
    assert rep.cases[0].buffers[0].name == "return" and rep.cases[0].buffers[0].elements == 256
    assert any("one after another in linear order" in x for x in rep.limits)


@pytest.mark.slow
def test_a_split_k_int8_gemm_whose_slices_are_off_by_one_is_different(tmp_path):
    plain = _variant(tmp_path, "triton_splitk_w8.py", "plain", "plain")
    broken = _variant(tmp_path, "triton_splitk_w8.py", "plain", "splitk_broken")
    wrong = check(plain, broken, call=GEMM_CALL, atol=1e-3, rtol=1e-4)
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches == 256
    store, add = (_line_of("triton_splitk_w8.py", text) for text in ("tl.store(ptrs", "tl.atomic_add(ptrs"))
    assert f"(stored by BEFORE at kernel.py:{store}, AFTER at kernel.py:{add})" in wrong.reason  # the atomic's line


@pytest.mark.slow
def test_the_last_arriving_program_reduces_as_one_program_summing_every_block(tmp_path):
    single = _variant(tmp_path, "triton_counter_reduce.py", "last", "single")
    last = _variant(tmp_path, "triton_counter_reduce.py", "last", "last")
    rep = check(single, last, call=SUM_CALL, atol=1e-4, rtol=1e-5)
    assert rep.verdict == "same", rep.reason


@pytest.mark.slow
def test_the_first_arriving_program_reducing_is_different(tmp_path):
    # the first program to take a ticket sums before the others stored their partials: in the stated order
    # (workgroup 0 first) it sees its own partial only
    single = _variant(tmp_path, "triton_counter_reduce.py", "last", "single")
    first = _variant(tmp_path, "triton_counter_reduce.py", "last", "first")
    wrong = check(single, first, call=SUM_CALL, atol=1e-4, rtol=1e-5)
    assert wrong.verdict == "different" and wrong.cases[0].buffers[0].mismatches == 1


@pytest.mark.slow
def test_a_spin_wait_no_earlier_workgroup_satisfies_is_undetermined_not_a_hang(tmp_path):
    last = _variant(tmp_path, "triton_counter_reduce.py", "last", "last")
    spin = _variant(tmp_path, "triton_counter_reduce.py", "last", "spin")
    rep = check(last, spin, call=SUM_CALL, timeout=120)
    assert rep.verdict == "undetermined"
    assert "a spin-wait that cannot end in the order run: workgroup 0 ran this atomic 1000 times" in rep.reason
    assert "cmpxchg ptr addrspace(1)" in rep.reason and "kernel.py:" in rep.reason
