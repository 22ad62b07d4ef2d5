"""Sequence pooling for an embedding model in FlyDSL: for every sequence, the mean, the max and the last token of its
f16 hidden states, written as fp32 (out = [mean | max | last], 3 x 4096 features).

One workgroup per sequence; each of its 256 lanes owns 16 of the 4096 features and walks the tokens: per token it
loads its 16 f16 features (two dwordx4), adds them into the running sum, takes the running max, and keeps the token as
the "last" one.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

HIDDEN = 4096  # features per token: 256 lanes x 16


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def seq_pool(H: fx.Tensor, Out: fx.Tensor, tokens: fx.Int32):
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x16 = ir.VectorType.get([16], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    seq = fx.Int32(fx.block_idx.x)
    rsrc_h = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(H)))
    rsrc_o = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    zero = fx.arith.constant_vector(0.0, f32x16)
    lowest = fx.arith.constant_vector(-65504.0, f32x16)  # the smallest finite f16

    def token(t):  # this lane's 16 features of token t, widened to fp32
        off = ((seq * tokens + t) * HIDDEN + tid * 16) * 2
        lo = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_h, off, 0))
        hi = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_h, off + 16, 0))
        return lo.to(fx.Float32).shuffle(hi.to(fx.Float32), list(range(16)))

    for t, state in range(fx.Int32(0), tokens, fx.Int32(1), init=[zero, lowest, zero]):
        total, peak, _ = fx.Vector(state[0]), fx.Vector(state[1]), state[2]
        x = token(fx.Int32(t))
        results = yield [_raw(total + x), _raw(fx.Vector(fx.arith.maximumf(_raw(peak), _raw(x)))), _raw(x)]
    mean = fx.Vector(results[0]) * (1.0 / fx.Float32(tokens))
    for k, v in enumerate([mean, fx.Vector(results[1]), fx.Vector(results[2])]):
        for q in fx.range_constexpr(4):
            fx.rocdl.raw_ptr_buffer_store(
                _raw(v.shuffle(v, [4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3])),
                _raw(rsrc_o),
                _raw(((seq * 3 + k) * HIDDEN + tid * 16) * 4 + 16 * q),
                _raw(fx.Int32(0)),
            )


@flyc.jit
def pool(H, Out, seqs: fx.Constexpr[int], tokens: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    seq_pool(H, Out, tokens).launch(grid=(seqs, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one token


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return pool(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 4 sequences of 64 tokens."""
    seqs, tokens = 4, 64
    h = torch.empty(seqs * tokens * HIDDEN, dtype=torch.float16)
    out = torch.empty(seqs * 3 * HIDDEN, dtype=torch.float32)
    return launch, (h, out, seqs, tokens)
