"""Prefetched: the paged-decode loop with the block-table lookup two blocks ahead and the KV/scale loads one ahead.

The chain table -> block id -> KV, scale is split across iterations: iteration i loads KV and scale of block i+1 with
the block id carried in from iteration i-1, and looks up ``block_table[i+2]``; all three are loop-carried
(``range(..., init=...)`` / ``yield``) and consumed one iteration later. The prologue loads block 0 and the id of
block 1; the epilogue accumulates the last block. No load is waited for in the iteration that issues it.

The buffer descriptors FlyDSL makes by default have no bounds (``num_records`` 0xFFFFFFFF): a look-ahead load past
the table reads whatever memory is there. So the table's descriptor carries its size (``num_records_bytes``: reads
past it return 0): the look-ahead lookups past the table (block n_blocks's id in the last iteration, block 1's at
``n_blocks = 1``; ids that are never used) and every lookup at ``n_blocks = 0`` read 0, a block inside the KV cache;
at ``n_blocks = 0`` the epilogue adds nothing. Clamping the index (``fx.min(i + 2, n_blocks - 1)``) also works but puts an ``s_min`` into the
loop, and on gfx942 LLVM then schedules the address of the next KV load before the copies at the loop head: one
``vmcnt(0)`` waits for all three loads there instead of ``vmcnt(2)``/``vmcnt(1)``.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

BLOCK_BYTES = 4096  # one KV block: 256 lanes x 16 bytes


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def paged_decode_prefetched(KV: fx.Tensor, Table: fx.Tensor, Scale: fx.Tensor, Out: fx.Tensor, n_blocks: fx.Int32):
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    i32 = ir.IntegerType.get_signless(32)
    f32 = ir.F32Type.get()
    tid = fx.Int32(fx.thread_idx.x)
    rsrc_kv = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(KV)))
    rsrc_bt = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Table), num_records_bytes=n_blocks * 4))
    rsrc_sc = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Scale)))
    rsrc_out = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    lane = tid * 16
    acc0 = fx.Vector(fx.arith.constant_vector(0.0, f32x4))

    def block_id(i):
        return fx.Int32(fx.rocdl.raw_ptr_buffer_load(i32, rsrc_bt, i * 4, 0))

    def load_block(block):
        kv = fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_kv, block * BLOCK_BYTES + lane, 0)
        return kv, fx.rocdl.raw_ptr_buffer_load(f32, rsrc_sc, block * 4, 0)

    kv0, scale0 = load_block(block_id(fx.Int32(0)))  # prologue: block 0 and the id of block 1
    next_id = block_id(fx.Int32(1))
    for i, state in range(fx.Int32(0), n_blocks - 1, fx.Int32(1), init=[acc0, kv0, scale0, next_id]):
        acc, kv, scale, block = fx.Vector(state[0]), fx.Vector(state[1]), fx.Float32(state[2]), fx.Int32(state[3])
        kv_next, scale_next = load_block(block)  # block i+1, id looked up last iteration
        id_after = block_id(fx.Int32(i) + 2)  # block i+2's id (0 past the table), used next iteration
        acc = acc + kv * scale
        results = yield [acc, kv_next, scale_next, id_after]
    last_scale = (n_blocks > 0).select(fx.Float32(results[2]), fx.Float32(0.0))  # no block: add nothing
    acc = fx.Vector(results[0]) + fx.Vector(results[1]) * last_scale  # epilogue: the last block
    fx.rocdl.raw_ptr_buffer_store(_raw(acc), _raw(rsrc_out), _raw(lane), _raw(fx.Int32(0)))


@flyc.jit
def paged_decode(KV, Table, Scale, Out, n_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    paged_decode_prefetched(KV, Table, Scale, Out, n_blocks).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one block (see flydsl_mfma)


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return paged_decode(*args)


def kernelpilot_entry(n_blocks=32):
    """kernelpilot file mode: n_blocks blocks and a table of exactly n_blocks entries (its descriptor is bounded;
    check fills it with block ids in [0, n_blocks), all inside the 64-block KV cache)."""
    kv = torch.empty(64 * BLOCK_BYTES // 4, dtype=torch.float32)
    table = torch.zeros(n_blocks, dtype=torch.int32)
    scale = torch.empty(64, dtype=torch.float32)
    out = torch.empty(1024, dtype=torch.float32)
    return launch, (kv, table, scale, out, n_blocks)
