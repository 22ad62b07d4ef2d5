"""A W8A8 GEMM in FlyDSL with per-channel dequantisation: out[r, c] = sa[r] * sb[c] * sum_k A[r, k] B[k, c] for int8
A and B, fp32 scales per row of A and per column of B (one 16 x 16*SUBTILES output tile per wave).

Per 64-wide k-block a lane loads one dwordx4 of A (two 8-byte k-step fragments) and one dwordx4 of B per 16-column
subtile (pre-shuffled so a lane's fragments are contiguous), and runs two v_mfma_i32_16x16x32_i8 per subtile. The
block's int32 product is converted to fp32, multiplied by the scale product sa * sb (formed before the loop, one f32x4
per subtile: 32 VGPRs) and added into the fp32 accumulator.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

SUBTILES = 8


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def w8a8_gemm(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor, k_blocks: fx.Int32):
    i64x2 = ir.VectorType.get([2], ir.IntegerType.get_signless(64))
    i32x4 = ir.VectorType.get([4], ir.IntegerType.get_signless(32))
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_sa = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(SA)))
    rsrc_sb = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(SB)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    # per-channel scale products: this lane's 4 rows times its column of each subtile
    sa = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_sa, (wave * 64 + lane) * 16, 0))
    sb = [
        fx.Vector(fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_sb, (wave * 64 + lane) * 32 + 16 * h, 0)) for h in range(2)
    ]
    scale = [sa * sb[j // 4][j % 4] for j in range(SUBTILES)]
    zero_i = fx.arith.constant_vector(0, i32x4)
    zero = fx.arith.constant_vector(0.0, f32x4)
    for kb, acc in range(fx.Int32(0), k_blocks, fx.Int32(1), init=[zero] * SUBTILES):
        blk = wave * k_blocks + fx.Int32(kb)
        a = fx.Vector(fx.rocdl.raw_ptr_buffer_load(i64x2, rsrc_a, (blk * 64 + lane) * 16, 0))
        new = []
        for j in fx.range_constexpr(SUBTILES):
            b = fx.Vector(fx.rocdl.raw_ptr_buffer_load(i64x2, rsrc_b, ((blk * SUBTILES + j) * 64 + lane) * 16, 0))
            part = fx.rocdl.mfma_i32_16x16x32_i8(i32x4, [a[0], b[0], zero_i])
            part = fx.rocdl.mfma_i32_16x16x32_i8(i32x4, [a[1], b[1], part])
            new.append(_raw(fx.Vector(acc[j]) + fx.Vector(part).to(fx.Float32) * scale[j]))
        results = yield new
    for j in fx.range_constexpr(SUBTILES):
        fx.rocdl.raw_ptr_buffer_store(
            _raw(results[j]), _raw(rsrc_c), _raw(((wave * SUBTILES + j) * 64 + lane) * 16), _raw(fx.Int32(0))
        )


@flyc.jit
def gemm(A, B, SA, SB, C, waves: fx.Constexpr[int], k_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    w8a8_gemm(A, B, SA, SB, C, k_blocks).launch(grid=(waves // 4, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 8 waves (two workgroups), 16 k-blocks of 64."""
    waves, k_blocks = 8, 16
    a = torch.empty(waves * k_blocks * 64 * 16, dtype=torch.int8)
    b = torch.empty(waves * k_blocks * SUBTILES * 64 * 16, dtype=torch.int8)
    sa = torch.empty(waves * 64 * 4, dtype=torch.float32)
    sb = torch.empty(waves * 64 * SUBTILES, dtype=torch.float32)
    c = torch.empty(waves * SUBTILES * 64 * 4, dtype=torch.float32)
    return launch, (a, b, sa, sb, c, waves, k_blocks)
