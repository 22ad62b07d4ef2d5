"""A wrong answer to flydsl-block-scaled-gemm-prefetch, kept to show the task is coupled: every load of k-block kb+1
is carried as a plain double buffer. The loop is prefetched, but the buffer costs 40 VGPRs: 82 in all, 5 waves per
SIMD on gfx942, below the 7 the task asks for (tests/test_eval_tasks.py)."""

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

    def load_block(kb):
        blk = wave * k_blocks + kb
        frags = [
            fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_a, (blk * 64 + lane) * 16, 0),
            fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_sa, (blk * 64 + lane) * 16, 0),
            fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_sb, (blk * 64 + lane) * 16, 0),
        ]
        for j in fx.range_constexpr(SUBTILES):
            frags.append(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_b, ((blk * SUBTILES + j) * 64 + lane) * 16, 0))
        return frags

    def fold_block(acc, frags):
        a, sa, sb = fx.Vector(frags[0]), fx.Vector(frags[1]), fx.Vector(frags[2])
        a_lo = a.shuffle(a, [0, 1, 2, 3])
        a_hi = a.shuffle(a, [4, 5, 6, 7])
        new = []
        for j in fx.range_constexpr(SUBTILES):
            b = fx.Vector(frags[3 + j])
            part = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a_lo, b.shuffle(b, [0, 1, 2, 3]), zero])
            part = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a_hi, b.shuffle(b, [4, 5, 6, 7]), part])
            new.append(_raw(fx.Vector(acc[j]) + fx.Vector(part) * sa * sb[j]))
        return new

    first = load_block(fx.Int32(0))
    for kb, state in range(fx.Int32(0), k_blocks - 1, fx.Int32(1), init=[zero] * SUBTILES + first):
        nxt = load_block(fx.Int32(kb) + 1)
        results = yield fold_block(state[:SUBTILES], state[SUBTILES:]) + nxt
    results = fold_block(results[:SUBTILES], results[SUBTILES:])
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
