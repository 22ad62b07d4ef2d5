"""A FlyDSL kernel whose grid is computed at run time from an ``fx.Int32`` argument, the usual way to write a tiled
kernel: ``grid=(M // TILE, 1, 1)``. Each workgroup of TILE lanes doubles its TILE elements."""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

TILE = 64


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def double_tiles(Inp: fx.Tensor, Out: fx.Tensor):
    f32 = ir.F32Type.get()
    i = fx.Int32(fx.block_idx.x) * TILE + fx.Int32(fx.thread_idx.x)
    rsrc_in = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Inp)))
    rsrc_out = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    v = fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_in, i * 4, 0))
    fx.rocdl.raw_ptr_buffer_store(_raw(v + v), _raw(rsrc_out), _raw(i * 4), _raw(fx.Int32(0)))


@flyc.jit
def run(Inp: fx.Tensor, Out: fx.Tensor, M: fx.Int32, stream: fx.Stream = fx.Stream(None)):  # noqa: B008
    double_tiles(Inp, Out).launch(grid=(M // TILE, 1, 1), block=(TILE, 1, 1), stream=stream)


def kernelpilot_entry(m=256):
    return run, (torch.empty(m), torch.empty(m), m)
