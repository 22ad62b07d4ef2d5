"""The P·V step of grouped-query paged decode attention over an int8 V cache with per-token scales, in FlyDSL.

One workgroup per sequence and KV head; the KV head serves HEADS = 4 query heads. A cache block holds 16 tokens x
128 dims of int8 V (2 KB) at slot ``table[seq, i]``; lane t * 16 + c owns token t of every block and dims 8c..8c+7.
Per block a lane loads the table entry, then (depending on it) its 8 int8 V values and its token's fp32 dequant
scale, plus its token's softmax probabilities for the four query heads (one f32x4), and accumulates
    acc[h, :] += p[h] * scale * float(V[slot, t, 8c:8c+8])        for h in 0..3.
After the loop each lane writes its 4 x 8 partial sums (a later pass adds the 16 token lanes).
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

HEADS = 4  # query heads per KV head
BLOCK_TOKENS = 16
SLOT_BYTES = BLOCK_TOKENS * 128  # int8 V of one cache block for one KV head
MAX_BLOCKS = 64  # table row length; rows carry spare entries past the last block


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def gqa_pv(V: fx.Tensor, Table: fx.Tensor, VScale: fx.Tensor, P: fx.Tensor, Out: fx.Tensor, n_blocks: fx.Int32):
    i32 = ir.IntegerType.get_signless(32)
    i32x2 = ir.VectorType.get([2], i32)
    f32 = ir.F32Type.get()
    f32x4 = ir.VectorType.get([4], f32)
    f32x8 = ir.VectorType.get([8], f32)
    tid = fx.Int32(fx.thread_idx.x)
    seq = fx.Int32(fx.block_idx.x)
    token = tid // 16
    rsrc_v = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(V)))
    rsrc_t = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Table)))
    rsrc_s = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(VScale)))
    rsrc_p = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(P)))
    rsrc_o = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    row = seq * MAX_BLOCKS
    zero = fx.arith.constant_vector(0.0, f32x8)

    def lookup(i):  # block i's cache slot (the first link of the chain)
        return fx.rocdl.raw_ptr_buffer_load(i32, rsrc_t, (row + i) * 4, 0)

    def load_block(i, slot):  # what depends on the slot, plus the block's probabilities
        slot = fx.Int32(slot)
        v = fx.rocdl.raw_ptr_buffer_load(i32x2, rsrc_v, slot * SLOT_BYTES + tid * 8, 0)
        scale = fx.rocdl.raw_ptr_buffer_load(f32, rsrc_s, (slot * BLOCK_TOKENS + token) * 4, 0)
        p = fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_p, ((row + i) * BLOCK_TOKENS + token) * 16, 0)
        return [v, scale, p]

    def accumulate(acc, v, scale, p):
        vf = fx.Vector(v).bitcast(fx.Int8).to(fx.Float32) * fx.Float32(scale)
        pv = fx.Vector(p)
        return [_raw(fx.Vector(acc[h]) + vf * fx.Float32(pv[h])) for h in range(HEADS)]

    # everything two blocks ahead: blocks 0 and 1 before the loop, block i+2 issued in iteration i
    b0 = load_block(fx.Int32(0), lookup(fx.Int32(0)))
    b1 = load_block(fx.Int32(1), lookup(fx.Int32(1)))
    for i, state in range(fx.Int32(0), n_blocks - 2, fx.Int32(1), init=[zero] * HEADS + b0 + b1):
        nxt = load_block(fx.Int32(i) + 2, lookup(fx.Int32(i) + 2))
        results = yield accumulate(state[:HEADS], *state[HEADS : HEADS + 3]) + list(state[HEADS + 3 :]) + nxt
    acc = accumulate(results[:HEADS], *results[HEADS : HEADS + 3])
    results = accumulate(acc, *results[HEADS + 3 :])
    for h in fx.range_constexpr(HEADS):
        out = fx.Vector(results[h])
        for q in fx.range_constexpr(2):
            fx.rocdl.raw_ptr_buffer_store(
                _raw(out.shuffle(out, [4 * q + j for j in range(4)])),
                _raw(rsrc_o),
                _raw(((seq * 256 + tid) * HEADS + h) * 32 + 16 * q),
                _raw(fx.Int32(0)),
            )


@flyc.jit
def pv(V, Table, VScale, P, Out, seqs: fx.Constexpr[int], n_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    gqa_pv(V, Table, VScale, P, Out, n_blocks).launch(grid=(seqs, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one cache block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return pv(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 4 sequences of 40 blocks (640 tokens) over a 256-slot cache (tables have spare
    entries)."""
    seqs, slots = 4, 256
    v = torch.empty(slots * SLOT_BYTES, dtype=torch.int8)
    table = torch.zeros(seqs * MAX_BLOCKS, dtype=torch.int32)
    scale = torch.empty(slots * BLOCK_TOKENS, dtype=torch.float32)
    p = torch.empty(seqs * MAX_BLOCKS * BLOCK_TOKENS * HEADS, dtype=torch.float32)
    out = torch.empty(seqs * 256 * HEADS * 8, dtype=torch.float32)
    return launch, (v, table, scale, p, out, seqs, 40)
