"""Baseline: a FlyDSL paged-decode style loop; every iteration looks up its block, then loads that block and its scale.

Iteration i reads ``block_table[i]`` (a buffer_load), then the block's K/V fragment (``buffer_load_dwordx4`` at an
address that depends on the block id) and its per-block dequant scale, and accumulates ``kv * scale``. Each load waits
for the one before it in the same iteration: three exposed latencies in a row, the shape of a paged-attention decode.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

BLOCK_BYTES = 4096  # one KV block: 256 lanes x 16 bytes


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def paged_decode_baseline(KV: fx.Tensor, Table: fx.Tensor, Scale: fx.Tensor, Out: fx.Tensor, n_blocks: fx.Int32):
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    i32 = ir.IntegerType.get_signless(32)
    f32 = ir.F32Type.get()
    tid = fx.Int32(fx.thread_idx.x)
    rsrc_kv = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(KV)))
    rsrc_bt = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Table)))
    rsrc_sc = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Scale)))
    rsrc_out = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    lane = tid * 16
    acc0 = fx.Vector(fx.arith.constant_vector(0.0, f32x4))
    for i, state in range(fx.Int32(0), n_blocks, fx.Int32(1), init=[acc0]):
        acc = fx.Vector(state[0])
        block = fx.Int32(fx.rocdl.raw_ptr_buffer_load(i32, rsrc_bt, fx.Int32(i) * 4, 0))
        kv = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_kv, block * BLOCK_BYTES + lane, 0))
        scale = fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_sc, block * 4, 0))
        acc = acc + kv * scale
        results = yield [acc]
    fx.rocdl.raw_ptr_buffer_store(_raw(results), _raw(rsrc_out), _raw(lane), _raw(fx.Int32(0)))


@flyc.jit
def paged_decode(KV, Table, Scale, Out, n_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    paged_decode_baseline(KV, Table, Scale, Out, n_blocks).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one block (see flydsl_mfma)


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return paged_decode(*args)


def kernelpilot_entry(n_blocks=32):
    """kernelpilot file mode: n_blocks blocks and a table of n_blocks entries, as prefetched.py takes them (check
    fills it with block ids in [0, n_blocks), all inside the 64-block KV cache)."""
    kv = torch.empty(64 * BLOCK_BYTES // 4, dtype=torch.float32)
    table = torch.zeros(n_blocks, dtype=torch.int32)
    scale = torch.empty(64, dtype=torch.float32)
    out = torch.empty(1024, dtype=torch.float32)
    return launch, (kv, table, scale, out, n_blocks)
