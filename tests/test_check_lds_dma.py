"""LDS DMA in the CPU oracle (tools/check): ``buffer_load_* … lds`` copies global memory straight into LDS.

Each active lane reads ``size`` bytes of the buffer at voffset + soffset + offset; its wave writes them to LDS at
M0 + offset + lane * size (M0: the LDS pointer of the wave's first active lane). The data never passes through a
VGPR, so a kernel whose LDS holds the right bytes after the DMA proves the addressing; barriers still order the
DMA's writes against other waves' reads, exactly as for ds_write.
"""

from __future__ import annotations

import numpy as np
import pytest

from tools.check.engine import Launch, Machine, lay_out
from tools.check.ir import load_kernel

# --------------------------------------------------------------------------------------------- hand-written IR
DMA_EXCHANGE = """
@smem = internal addrspace(3) global [256 x i32] undef, align 16

define amdgpu_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, i64 %records) {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %rsrc = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) %in, i16 0, i64 %records, i32 0)
  %wave = lshr i32 %tid, 6
  %wbase = shl i32 %wave, 8
  %lds = getelementptr i8, ptr addrspace(3) @smem, i32 %wbase
  %voff = shl i32 %tid, 2
  call void @llvm.amdgcn.raw.ptr.buffer.load.async.lds(ptr addrspace(8) %rsrc, ptr addrspace(3) %lds, i32 4, i32 %voff, i32 0, i32 0, i32 0)
  call void @llvm.amdgcn.asyncmark()
  call void @llvm.amdgcn.wait.asyncmark(i16 0)
  BARRIER
  %s = add i32 %tid, 64
  %src = urem i32 %s, 128
  %r = getelementptr [256 x i32], ptr addrspace(3) @smem, i32 0, i32 %src
  %v = load i32, ptr addrspace(3) %r
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %o
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) readnone, i16, i64, i32)
declare void @llvm.amdgcn.raw.ptr.buffer.load.async.lds(ptr addrspace(8) readonly captures(none), ptr addrspace(3) writeonly captures(none), i32 immarg, i32, i32, i32 immarg, i32 immarg)
declare void @llvm.amdgcn.asyncmark()
declare void @llvm.amdgcn.wait.asyncmark(i16 immarg)
declare void @llvm.amdgcn.s.barrier()
"""


def _dma_exchange(barrier: bool, records: int = 512, wait: int | None = 0):
    """Two waves: lane t DMAs in[t] into LDS slot t, then reads slot (t + 64) % 128 (the other wave's)."""
    ir = DMA_EXCHANGE.replace("BARRIER", "call void @llvm.amdgcn.s.barrier()" if barrier else "")
    waited = "" if wait is None else f"call void @llvm.amdgcn.wait.asyncmark(i16 {wait})"
    ir = ir.replace("call void @llvm.amdgcn.wait.asyncmark(i16 0)", waited)
    inp = (np.arange(128, dtype=np.int32) * 7 + 3).tobytes()
    mem = lay_out([("in", inp), ("out", bytes(4 * 128))])
    m = Machine(load_kernel(ir), Launch((1, 1, 1), (128, 1, 1)), mem.memory, mem.allocations,
                [mem.address(0), mem.address(1), records], "gfx950")  # fmt: skip
    run = m.run()
    return mem.memory[mem.allocations[1].start :][: 4 * 128].view(np.int32), run


def test_async_lds_dma_intrinsic_newer_than_llvmlite_parses_and_runs():
    # llvmlite's LLVM would read `.async.lds` as a type suffix of raw.ptr.buffer.load and abort the process
    out, run = _dma_exchange(barrier=True)
    t = np.arange(128)
    assert np.array_equal(out, ((t + 64) % 128) * 7 + 3) and not run.events  # lane t sees in[(t + 64) % 128]


def test_lds_dma_read_by_another_wave_without_a_barrier_is_a_race():
    _, run = _dma_exchange(barrier=False)
    races = [e for e in run.events if e.kind == "lds-race"]
    # the DMA's LDS writes belong to the issuing wave: all 128 lanes read what the other wave's DMA wrote
    assert run.event_counts[("lds-race", races[0].instruction)] == 128 and races[0].access == "load"


def test_lds_dma_past_num_records_writes_zeros_into_lds():
    out, run = _dma_exchange(barrier=True, records=256)  # only lanes 0..63's 4 B lie inside the 256-byte buffer
    t = np.arange(128)
    src = (t + 64) % 128
    assert np.array_equal(out, np.where(src < 64, src * 7 + 3, 0))
    assert {e.kind for e in run.events} == {"past-num-records"}
    assert run.event_counts[("past-num-records", run.events[0].instruction)] == 64


@pytest.mark.parametrize("wait", [None, 1])
def test_async_lds_dma_lands_only_at_the_wait_that_retires_its_group(wait):
    # no wait, or wait.asyncmark(1) with one group outstanding: the barrier alone does not make the DMA land, so every
    # lane reads LDS bytes nothing has written yet (0 here; on a GPU, whatever the DMA got to)
    out, run = _dma_exchange(barrier=True, wait=wait)
    assert np.array_equal(out, np.zeros(128, dtype=np.int32))
    assert {e.kind for e in run.events} == {"lds-uninitialised"}
    assert run.event_counts[("lds-uninitialised", run.events[0].instruction)] == 128


# ------------------------------------------------------------------------------------------- compiled FlyDSL
DMA_ROLL = """
import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir
from flydsl._mlir.dialects import rocdl as rocdl_ops


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def dma_roll(A: fx.Tensor, C: fx.Tensor, skip: fx.Int32):
    i32x4 = ir.VectorType.get([4], ir.IntegerType.get_signless(32))
    tid = fx.Int32(fx.thread_idx.x)
    wave = tid // 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    lds = fx.SharedAllocator().allocate(fx.Array[fx.Int32, 1024, 16]).peek().ptr
    LOAD
    fx.gpu.barrier()
    v = (lds + ((tid + 64) % 256) * 4).load(i32x4)
    fx.rocdl.raw_ptr_buffer_store(_raw(v), _raw(rsrc_c), _raw(tid * 16), _raw(fx.Int32(0)))


@flyc.jit
def run(A, C, skip: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    dma_roll(A, C, skip).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)


def kernelpilot_entry():
    return run, (torch.empty(256 * 4 + 64, dtype=torch.int32), torch.empty(256 * 4, dtype=torch.int32), 64)
"""

# gfx950: one async dwordx4 DMA per lane into its wave's 1 KiB of LDS, grouped and waited for
ASYNC_X4 = """zero = _raw(fx.Int32(0))
    rocdl_ops.raw_ptr_buffer_load_async_lds(
        _raw(rsrc_a), (lds + wave * 256).llvm_ptr, _raw(fx.Int32(16)), _raw(tid * 16 + skip), zero, zero
    )
    fx.rocdl.asyncmark()
    fx.rocdl.wait_asyncmark(0)"""
# gfx942: four synchronous dword DMAs per lane (size 4); one DMA of a wave fills 256 B of LDS (64 lanes x 4 B), so
# DMA j of wave w fills [w * 1024 + j * 256, +256)
SYNC_DWORDS = """for j in fx.range_constexpr(4):
        fx.rocdl.buffer_load_to_lds(
            rsrc_a, (lds + wave * 256 + j * 64).llvm_ptr, (tid // 64) * 1024 + (tid % 64) * 4 + j * 256 + skip,
            size_bytes=4,
        )"""


@pytest.mark.slow
def test_flydsl_async_dwordx4_lds_dma_on_gfx950_puts_lane_t_at_m0_plus_16t(tmp_path):
    from tools.check.compare import outputs

    kernel = tmp_path / "dma_roll.py"
    kernel.write_text(DMA_ROLL.replace("LOAD", ASYNC_X4))
    got = outputs(kernel, "llvm", seed=3, arch="gfx950")
    t = np.arange(256)
    # lane t copied A's 16 bytes at 64 + 16 t (skip = 64 B = 16 ints) into LDS at 16 t; lane t reads slot (t+64)%256
    want = got["A"][16 : 16 + 1024].reshape(256, 4)[(t + 64) % 256]
    assert np.array_equal(got["C"].reshape(256, 4), want)


@pytest.mark.slow
def test_flydsl_synchronous_dword_lds_dma_on_gfx942_fills_256_bytes_per_wave_per_dma(tmp_path):
    from tools.check.compare import outputs

    kernel = tmp_path / "dma_roll.py"
    kernel.write_text(DMA_ROLL.replace("LOAD", SYNC_DWORDS))
    got = outputs(kernel, "llvm", seed=5, arch="gfx942")
    t = np.arange(256)
    # DMA j of lane (w, l) reads A's dword at 16 + 256 w + 64 j + l and lands in LDS dword 256 w + 64 j + l: the
    # same order as A, so LDS holds A[16 : 16 + 1024] and lane t reads its 4 dwords at slot (t + 64) % 256
    want = got["A"][16 : 16 + 1024].reshape(256, 4)[(t + 64) % 256]
    assert np.array_equal(got["C"].reshape(256, 4), want)
