"""Planted bug (check test data): the LDS swap without its barrier: wave 1 reads slots wave 0 writes, unordered."""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def lds_swap(Inp: fx.Tensor, Out: fx.Tensor):
    f32 = ir.F32Type.get()
    tid = fx.Int32(fx.thread_idx.x)
    rsrc_in = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Inp)))
    rsrc_out = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    smem = fx.SharedAllocator().allocate(fx.Array[fx.Float32, 128]).peek()
    v = fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_in, tid * 4, 0))
    smem[tid] = v
    # BUG: no fx.gpu.barrier() between the LDS store and the other wave's load
    w = smem[(tid + 64) % 128]
    fx.rocdl.raw_ptr_buffer_store(_raw(w), _raw(rsrc_out), _raw(tid * 4), _raw(fx.Int32(0)))


@flyc.jit
def swap(Inp: fx.Tensor, Out: fx.Tensor, stream: fx.Stream = fx.Stream(None)):  # noqa: B008
    lds_swap(Inp, Out).launch(grid=(1, 1, 1), block=(128, 1, 1), stream=stream)


def kernelpilot_entry():
    return swap, (torch.empty(128), torch.empty(128))
