"""An f16 GEMM k-loop in FlyDSL with a 32 x 128 output tile per wave (four 32 x 32 MFMA blocks) and 64-wide k-blocks,
compiled for 4 waves per SIMD (waves_per_eu = 4, so at most 128 VGPRs).

Per k-block a lane needs its whole A fragment set (four dwordx4: eight f16x4 k-steps) and the whole B tile of all
four subtiles (sixteen dwordx4), pre-shuffled so a lane's fragments are contiguous, for the 32 v_mfma_f32_32x32x8_f16
of the block (subtile by subtile, k-step by k-step). The loop is software-pipelined as a register double buffer: the
next k-block's twenty dwordx4 are loaded while this k-block's MFMAs run.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

SUBTILES = 4
STEPS = 8  # k-steps of 8 per 64-wide k-block


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def wide_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_blocks: fx.Int32):
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x16 = ir.VectorType.get([16], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    zero = fx.arith.constant_vector(0.0, f32x16)

    def fragments(rsrc, off):  # STEPS f16x4 k-step fragments from STEPS/2 dwordx4 loads
        out = []
        for i in fx.range_constexpr(STEPS // 2):
            v = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc, off + 16 * i, 0))
            out += [v.shuffle(v, [0, 1, 2, 3]), v.shuffle(v, [4, 5, 6, 7])]
        return out

    def load_block(kb):  # every fragment of k-block kb: A (STEPS) then B (SUBTILES x STEPS)
        blk = wave * k_blocks + kb
        frags = fragments(rsrc_a, (blk * 64 + lane) * 16 * STEPS // 2)
        for j in fx.range_constexpr(SUBTILES):
            frags += fragments(rsrc_b, ((blk * SUBTILES + j) * 64 + lane) * 16 * STEPS // 2)
        return frags

    def mma_block(acc, frags):
        new = []
        for j in fx.range_constexpr(SUBTILES):
            p = acc[j]
            for s in fx.range_constexpr(STEPS):
                p = fx.rocdl.mfma_f32_32x32x8f16(f32x16, [frags[s], frags[STEPS * (j + 1) + s], p])
            new.append(p)
        return new

    # register double buffer: k-block kb+1's fragments are loaded while k-block kb's MFMAs run
    first = load_block(fx.Int32(0))
    for kb, state in range(fx.Int32(0), k_blocks - 1, fx.Int32(1), init=[zero] * SUBTILES + first):
        nxt = load_block(fx.Int32(kb) + 1)
        results = yield mma_block(state[:SUBTILES], state[SUBTILES:]) + nxt
    results = mma_block(results[:SUBTILES], results[SUBTILES:])
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
    wide_gemm(A, B, C, k_blocks).launch(grid=(waves // 4, 1, 1), block=(256, 1, 1), stream=stream)


# One ISA iteration = one k-block; 4 waves per SIMD caps the kernel at 128 VGPRs (arch + acc).
HINTS = {"llvm_options": {"unroll-runtime": False}, "waves_per_eu": 4}


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(HINTS):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 8 waves (two workgroups), 8 k-blocks of 64."""
    waves, k_blocks = 8, 8
    a = torch.empty(waves * k_blocks * 64 * 4 * STEPS, dtype=torch.float16)
    b = torch.empty(waves * k_blocks * SUBTILES * 64 * 4 * STEPS, dtype=torch.float16)
    c = torch.empty(waves * SUBTILES * 64 * 16, dtype=torch.float32)
    return launch, (a, b, c, waves, k_blocks)
