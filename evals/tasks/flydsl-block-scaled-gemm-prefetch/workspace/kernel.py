"""Block-scaled f16 GEMM main loop (one 16 x 64 output tile per wave) with per-k-block fp32 scales on A rows and B
columns, as in a dequantising MX/FP8-style GEMM whose operands have already been expanded to f16.

A and B are stored pre-shuffled: the fragments one lane needs for one 32-wide k-block are contiguous, so a k-block
costs one dwordx4 of A (two f16x4 MFMA fragments), one dwordx4 of B per 16-column subtile (four subtiles), one
f32x4 of row scales and one f32x4 of column scales (one per subtile). Each k-block's partial products come from two
v_mfma_f32_16x16x16_f16 per subtile and are folded into the running accumulators with the product of the two scales
(out[r, c] += sa[r, kb] * sb[c, kb] * sum_k a[r, k] b[k, c]).
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

SUBTILES = 4  # 16-column subtiles per wave


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def block_scaled_gemm(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor, k_blocks: fx.Int32):
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_sa = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(SA)))
    rsrc_sb = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(SB)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    zero = fx.arith.constant_vector(0.0, f32x4)
    for kb, acc in range(fx.Int32(0), k_blocks, fx.Int32(1), init=[zero] * SUBTILES):
        blk = wave * k_blocks + fx.Int32(kb)
        a = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_a, (blk * 64 + lane) * 16, 0))
        sa = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_sa, (blk * 64 + lane) * 16, 0))
        sb = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_sb, (blk * 64 + lane) * 16, 0))
        a_lo = a.shuffle(a, [0, 1, 2, 3])
        a_hi = a.shuffle(a, [4, 5, 6, 7])
        new = []
        for j in fx.range_constexpr(SUBTILES):
            b = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_b, ((blk * SUBTILES + j) * 64 + lane) * 16, 0))
            part = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a_lo, b.shuffle(b, [0, 1, 2, 3]), zero])
            part = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a_hi, b.shuffle(b, [4, 5, 6, 7]), part])
            new.append(_raw(fx.Vector(acc[j]) + fx.Vector(part) * sa * sb[j]))
        results = yield new
    for j in fx.range_constexpr(SUBTILES):
        fx.rocdl.raw_ptr_buffer_store(
            _raw(results[j]), _raw(rsrc_c), _raw(((wave * SUBTILES + j) * 64 + lane) * 16), _raw(fx.Int32(0))
        )


@flyc.jit
def gemm(A, B, SA, SB, C, waves: fx.Constexpr[int], k_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    block_scaled_gemm(A, B, SA, SB, C, k_blocks).launch(grid=(waves // 4, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 8 waves (two workgroups), 16 k-blocks of 32."""
    waves, k_blocks = 8, 16
    a = torch.empty(waves * k_blocks * 64 * 8, dtype=torch.float16)
    b = torch.empty(waves * k_blocks * SUBTILES * 64 * 8, dtype=torch.float16)
    sa = torch.empty(waves * k_blocks * 64 * 4, dtype=torch.float32)
    sb = torch.empty(waves * k_blocks * 64 * 4, dtype=torch.float32)
    c = torch.empty(waves * SUBTILES * 64 * 4, dtype=torch.float32)
    return launch, (a, b, sa, sb, c, waves, k_blocks)
