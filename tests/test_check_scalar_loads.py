"""check runs FlyDSL's scalar buffer loads and says `undetermined` for whatever else it cannot run.

A buffer resource (``ptr addrspace(8)``) travels as a 128-bit integer (``ptrtoint … to i128``, ``bitcast`` to
``<4 x i32>``, ``inttoptr`` back) into ``llvm.amdgcn.s.buffer.load``; hand-written IR pins each step to the
descriptor's words, and the eval task's scalar-table rewrite (our patch, compiled here) checks ``same`` against the
task's baseline. An instruction the engine does not model, or one whose form it fails on, is an ``UnsupportedIR``
naming the instruction: the verdict undetermined, never an internal error.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from tools.check.compare import check
from tools.check.engine import GLOBAL_BASE, Launch, Machine, lay_out
from tools.check.errors import UnsupportedIR
from tools.check.ir import load_kernel

from .conftest import REPO

SCALAR_TABLE = """
define amdgpu_kernel void @k(ptr addrspace(1) %tab, ptr addrspace(1) %out, ptr addrspace(1) %base, i32 %row) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %r = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %tab, i16 0, i64 64, i32 159744)
  %i = ptrtoint ptr addrspace(8) %r to i128
  %d = bitcast i128 %i to <4 x i32>
  %roff = shl i32 %row, 2
  %s = call i32 @llvm.amdgcn.s.buffer.load.i32(<4 x i32> %d, i32 %roff, i32 0)
  %toff = shl i32 %tid, 2
  %v = call i32 @llvm.amdgcn.s.buffer.load.i32(<4 x i32> %d, i32 %toff, i32 0)
  %back = bitcast <4 x i32> %d to i128
  %r2 = inttoptr i128 %back to ptr addrspace(8)
  %w = call i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8) %r2, i32 %toff, i32 0, i32 0)
  %num = extractelement <4 x i32> %d, i32 2
  %o = mul i32 %tid, 4
  %p0 = getelementptr i32, ptr addrspace(1) %out, i32 %o
  store i32 %s, ptr addrspace(1) %p0
  %p1 = getelementptr i32, ptr addrspace(1) %p0, i32 1
  store i32 %v, ptr addrspace(1) %p1
  %p2 = getelementptr i32, ptr addrspace(1) %p0, i32 2
  store i32 %w, ptr addrspace(1) %p2
  %p3 = getelementptr i32, ptr addrspace(1) %p0, i32 3
  store i32 %num, ptr addrspace(1) %p3
  %lo = trunc i128 %i to i64
  %pb = getelementptr i64, ptr addrspace(1) %base, i32 %tid
  store i64 %lo, ptr addrspace(1) %pb
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)
declare i32 @llvm.amdgcn.s.buffer.load.i32(<4 x i32>, i32, i32 immarg)
declare i32 @llvm.amdgcn.raw.ptr.buffer.load.i32(ptr addrspace(8), i32, i32, i32 immarg)
"""


def _run(ir: str, buffers, args_after, lanes: int = 64):
    mem = lay_out(buffers)
    m = Machine(load_kernel(ir), Launch((1, 1, 1), (lanes, 1, 1)), mem.memory, mem.allocations,
                [mem.address(i) for i in range(len(buffers))] + args_after, "gfx942")  # fmt: skip
    return mem, m.run()


def test_a_buffer_resource_as_i128_feeds_scalar_and_raw_buffer_loads():
    table = (100 + np.arange(32, dtype=np.int32)).tobytes()  # 128 B; the resource covers its first 64 (16 entries)
    mem, run = _run(SCALAR_TABLE, [("tab", table), ("out", bytes(64 * 16)), ("base", bytes(64 * 8))], [5])
    out = mem.memory[mem_start(mem, 1) :][: 64 * 16].view(np.int32).reshape(64, 4)
    tid = np.arange(64)
    assert out[:, 0].tolist() == [105] * 64  # the uniform lookup table[5]
    # per lane table[tid] through the scalar load and the round-tripped resource alike; 0 past num_records (64 B)
    assert out[:, 1].tolist() == np.where(tid < 16, 100 + tid, 0).tolist()
    assert out[:, 2].tolist() == out[:, 1].tolist()
    assert out[:, 3].tolist() == [64] * 64  # word 2 of the descriptor: num_records
    # words 0-1: the 48-bit base (the table is the first allocation, at GLOBAL_BASE) and a zero stride
    assert mem.memory[mem_start(mem, 2) :][: 64 * 8].view(np.uint64).tolist() == [GLOBAL_BASE] * 64
    # lanes 16..63 read past num_records twice (scalar and raw): the hardware's 0, recorded, not an error
    assert run.event_counts == {(k, ins): 48 for k, ins in run.event_counts} and len(run.event_counts) == 2


def mem_start(mem, i: int) -> int:
    return mem.allocations[i].start


def test_i128_arithmetic_is_undetermined_naming_the_instruction():
    ir = SCALAR_TABLE.replace("%lo = trunc i128 %i to i64", "%j = add i128 %i, 1\n  %lo = trunc i128 %j to i64")
    with pytest.raises(UnsupportedIR) as err:
        _run(ir, [("tab", bytes(128)), ("out", bytes(64 * 16)), ("base", bytes(64 * 8))], [5])
    assert err.value.what == "i128 add" and err.value.instruction == "%j = add i128 %i, 1"


def test_an_intrinsic_check_does_not_model_is_undetermined_with_its_line():
    ir = (
        SCALAR_TABLE.replace("%o = mul i32 %tid, 4", "%pc = call i64 @llvm.amdgcn.s.getpc()\n  %o = mul i32 %tid, 4")
        + "declare i64 @llvm.amdgcn.s.getpc()\n"
    )
    with pytest.raises(UnsupportedIR) as err:
        _run(ir, [("tab", bytes(128)), ("out", bytes(64 * 16)), ("base", bytes(64 * 8))], [5])
    assert err.value.what == "intrinsic llvm.amdgcn.s.getpc"
    assert err.value.verdict_reason == (
        "undetermined: check does not run intrinsic llvm.amdgcn.s.getpc (at %pc = call i64 @llvm.amdgcn.s.getpc())"
    )


VECTOR_GEP = """
define amdgpu_kernel void @k(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %v0 = insertelement <2 x i32> zeroinitializer, i32 %tid, i32 0
  %ps = getelementptr i32, ptr addrspace(1) %out, <2 x i32> %v0
  %p = extractelement <2 x ptr addrspace(1)> %ps, i32 0
  store i32 %tid, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
"""


def test_an_instruction_form_the_engine_fails_on_is_undetermined_not_an_internal_error():
    # a getelementptr over a vector of indices: the engine's scalar address arithmetic cannot broadcast it
    with pytest.raises(UnsupportedIR) as err:
        _run(VECTOR_GEP, [("out", bytes(256))], [])
    assert err.value.what.startswith("getelementptr in this form (the CPU engine failed on it: ValueError")
    assert err.value.instruction == "%ps = getelementptr i32, ptr addrspace(1) %out, <2 x i32> %v0"


GQA = REPO / "evals" / "tasks" / "flydsl-gqa-paged-chain-budget" / "workspace"
SCALAR_PATCH = REPO / "tests" / "data" / "eval_alternatives" / "gqa_scalar_table.patch"


@pytest.mark.slow
def test_flydsl_scalar_table_rewrite_checks_same_against_the_tasks_baseline(tmp_path):
    after = tmp_path / "after"
    shutil.copytree(GQA, after)
    subprocess.run(["git", "apply", str(SCALAR_PATCH)], cwd=after, check=True, timeout=60)
    assert "s_buffer_load" in (after / "kernel.py").read_text()
    rep = check(GQA / "kernel.py", after / "kernel.py")
    # 4 sequences x 256 lanes x 4 heads x 8 floats: every output element agrees, table lookups through s_buffer_load
    assert rep.verdict == "same", rep.reason
    assert rep.cases[0].buffers[0].elements == 32768
    bug = after / "kernel.py"
    text = bug.read_text()
    assert text.count("row + i))") == 1
    bug.write_text(text.replace("row + i))", "row + i + 1))"))  # every lookup reads the next block's slot
    wrong = check(GQA / "kernel.py", bug)
    assert wrong.verdict == "different", wrong.reason
