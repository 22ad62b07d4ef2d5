"""The P·V half of a paged decode-attention step over an int8 V cache, in FlyDSL.

One workgroup per sequence; each of its 256 lanes owns 16 of the 4096 values a cache block holds for this head.
Block i of the sequence lives at cache slot ``table[seq, i]``; its int8 values are dequantised with that slot's fp32
scale and weighted by the sequence's softmax probability for the block:
    out[seq, lane, :] = sum_i p[seq, i] * v_scale[table[seq, i]] * float(V[table[seq, i], lane, :])
Per block a lane loads the table entry, then (depending on it) one dwordx4 of V and the slot's scale, plus p[seq, i].
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

SLOT_BYTES = 4096  # int8 values of one cache slot for one head: 256 lanes x 16
MAX_BLOCKS = 64  # table row length; rows carry spare entries past the last block


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def paged_pv(V: fx.Tensor, Table: fx.Tensor, VScale: fx.Tensor, P: fx.Tensor, Out: fx.Tensor, n_blocks: fx.Int32):
    i32 = ir.IntegerType.get_signless(32)
    i32x4 = ir.VectorType.get([4], i32)
    f32 = ir.F32Type.get()
    f32x16 = ir.VectorType.get([16], f32)
    tid = fx.Int32(fx.thread_idx.x)
    seq = fx.Int32(fx.block_idx.x)
    rsrc_v = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(V)))
    rsrc_t = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Table)))
    rsrc_s = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(VScale)))
    rsrc_p = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(P)))
    rsrc_o = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    row = seq * MAX_BLOCKS
    acc0 = fx.arith.constant_vector(0.0, f32x16)
    for i, state in range(fx.Int32(0), n_blocks, fx.Int32(1), init=[acc0]):
        slot = fx.Int32(fx.rocdl.raw_ptr_buffer_load(i32, rsrc_t, (row + fx.Int32(i)) * 4, 0))
        v = fx.Vector(fx.rocdl.raw_ptr_buffer_load(i32x4, rsrc_v, slot * SLOT_BYTES + tid * 16, 0))
        scale = fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_s, slot * 4, 0))
        p = fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_p, (row + fx.Int32(i)) * 4, 0))
        acc = fx.Vector(state[0]) + v.bitcast(fx.Int8).to(fx.Float32) * (p * scale)
        results = yield [_raw(acc)]
    out = fx.Vector(results)
    for q in fx.range_constexpr(4):
        part = out.shuffle(out, [4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3])
        fx.rocdl.raw_ptr_buffer_store(
            _raw(part), _raw(rsrc_o), _raw((seq * 256 + tid) * 64 + 16 * q), _raw(fx.Int32(0))
        )


@flyc.jit
def pv(V, Table, VScale, P, Out, seqs: fx.Constexpr[int], n_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    paged_pv(V, Table, VScale, P, Out, n_blocks).launch(grid=(seqs, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one cache block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return pv(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 4 sequences of 40 blocks over a 256-slot cache (tables have spare entries)."""
    seqs, slots = 4, 256
    v = torch.empty(slots * SLOT_BYTES, dtype=torch.int8)
    table = torch.zeros(seqs * MAX_BLOCKS, dtype=torch.int32)
    scale = torch.empty(slots, dtype=torch.float32)
    p = torch.empty(seqs * MAX_BLOCKS, dtype=torch.float32)
    out = torch.empty(seqs * 256 * 16, dtype=torch.float32)
    return launch, (v, table, scale, p, out, seqs, 40)
