"""An f16 x f16 -> fp32 GEMM main loop in FlyDSL with 16 x 16 x 16 MFMAs: one 16 x 64 output strip per wave (four
16-column subtiles), four waves per workgroup, K consumed 32 at a time (one k-block = two 16-wide k-steps).

The operands are pre-shuffled so a lane's MFMA fragments of a k-block are one contiguous dwordx4: A's fragment
(row lane % 16, k-quarter lane // 16 of both k-steps) and, per subtile, B's (column lane % 16, same k). Per k-block
each subtile's product is formed by its own two-MFMA chain that starts from zero (a per-block partial result), and
the partials are then added into the running accumulators. The wave writes its four f32x4 accumulators to C in the
MFMA's lane order (a later pass scatters them into the row-major result).
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

SUBTILES = 4  # 16-column subtiles per wave strip
FRAG_BYTES = 64 * 16  # one dwordx4 per lane per operand fragment of a k-block


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def strip_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_blocks: fx.Int32):
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    zero = fx.arith.constant_vector(0.0, f32x4)

    def k_steps(frag):  # the two f16x4 k-step halves of one dwordx4 fragment
        v = fx.Vector(frag)
        return [v.shuffle(v, [0, 1, 2, 3]), v.shuffle(v, [4, 5, 6, 7])]

    for kb, acc in range(fx.Int32(0), k_blocks, fx.Int32(1), init=[zero] * SUBTILES):
        blk = wave * k_blocks + fx.Int32(kb)
        a = k_steps(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_a, blk * FRAG_BYTES + lane * 16, 0))
        partial = []
        for j in fx.range_constexpr(SUBTILES):
            b = k_steps(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_b, (blk * SUBTILES + j) * FRAG_BYTES + lane * 16, 0))
            p = zero
            for s in fx.range_constexpr(2):
                p = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a[s], b[s], p])
            partial.append(p)
        results = yield [_raw(fx.Vector(acc[j]) + fx.Vector(partial[j])) for j in range(SUBTILES)]
    for j in fx.range_constexpr(SUBTILES):
        fx.rocdl.raw_ptr_buffer_store(
            _raw(results[j]), _raw(rsrc_c), _raw(((wave * SUBTILES + j) * 64 + lane) * 16), _raw(fx.Int32(0))
        )


@flyc.jit
def gemm(A, B, C, waves: fx.Constexpr[int], k_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    strip_gemm(A, B, C, k_blocks).launch(grid=(waves // 4, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 8 waves (two workgroups), 24 k-blocks of 32 (K = 768)."""
    waves, k_blocks = 8, 24
    a = torch.empty(waves * k_blocks * FRAG_BYTES // 2, dtype=torch.float16)
    b = torch.empty(waves * k_blocks * SUBTILES * FRAG_BYTES // 2, dtype=torch.float16)
    c = torch.empty(waves * SUBTILES * 64 * 4, dtype=torch.float32)
    return launch, (a, b, c, waves, k_blocks)
