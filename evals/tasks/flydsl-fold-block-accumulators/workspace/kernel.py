"""An f16 GEMM k-loop in FlyDSL with 32 x 32 MFMA blocks (one 32 x 64 output tile per wave, two 32-column subtiles).

Per 32-wide k-block a lane loads its A fragments (two dwordx4: four f16x4 k-steps) and, per subtile, its B fragments
(two dwordx4), from operands pre-shuffled so a lane's fragments are contiguous. Each subtile's k-block product is
formed by a chain of four v_mfma_f32_32x32x8_f16 starting from zero (a per-block partial accumulator) and is then added
into the running accumulator.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

SUBTILES = 2


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def gemm_32x32(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_blocks: fx.Int32):
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x16 = ir.VectorType.get([16], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    zero = fx.arith.constant_vector(0.0, f32x16)

    def k_steps(rsrc, off):  # four f16x4 k-step fragments from two dwordx4 loads
        lo = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc, off, 0))
        hi = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc, off + 16, 0))
        return [
            lo.shuffle(lo, [0, 1, 2, 3]),
            lo.shuffle(lo, [4, 5, 6, 7]),
            hi.shuffle(hi, [0, 1, 2, 3]),
            hi.shuffle(hi, [4, 5, 6, 7]),
        ]

    for kb, acc in range(fx.Int32(0), k_blocks, fx.Int32(1), init=[zero] * SUBTILES):
        blk = wave * k_blocks + fx.Int32(kb)
        a = k_steps(rsrc_a, (blk * 64 + lane) * 32)
        partial = []
        for j in fx.range_constexpr(SUBTILES):
            b = k_steps(rsrc_b, ((blk * SUBTILES + j) * 64 + lane) * 32)
            p = zero
            for s in fx.range_constexpr(4):
                p = fx.rocdl.mfma_f32_32x32x8f16(f32x16, [a[s], b[s], p])
            partial.append(p)
        results = yield [_raw(fx.Vector(acc[j]) + fx.Vector(partial[j])) for j in range(SUBTILES)]
    for j in fx.range_constexpr(SUBTILES):
        out = fx.Vector(results[j])
        for q in fx.range_constexpr(4):
            fx.rocdl.raw_ptr_buffer_store(
                _raw(out.shuffle(out, [4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3])),
                _raw(rsrc_c),
                _raw(((wave * SUBTILES + j) * 64 + lane) * 64 + 16 * q),
                _raw(fx.Int32(0)),
            )


@flyc.jit
def gemm(A, B, C, waves: fx.Constexpr[int], k_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    gemm_32x32(A, B, C, k_blocks).launch(grid=(waves // 4, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 8 waves (two workgroups), 16 k-blocks of 32."""
    waves, k_blocks = 8, 16
    a = torch.empty(waves * k_blocks * 64 * 16, dtype=torch.float16)
    b = torch.empty(waves * k_blocks * SUBTILES * 64 * 16, dtype=torch.float16)
    c = torch.empty(waves * SUBTILES * 64 * 16, dtype=torch.float32)
    return launch, (a, b, c, waves, k_blocks)
