"""Planted bug (check test data): the prefetched MFMA loop runs k_tiles iterations, so its last prefetch reads
k-tile k_tiles, one tile past the end of A and B. The extra tile reads 0 here, so outputs agree; only the
out-of-bounds report catches it (the prefetch line, inlined into the loop body).
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

TILE_ELEMS = 2048  # f16 elements one iteration reads per operand: 256 lanes x 8


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def mfma_past_end(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_tiles: fx.Int32):
    f16x4 = ir.VectorType.get([4], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    lane = tid * 16  # byte offset of this lane's 8 halves
    acc0 = fx.arith.constant_vector(0.0, f32x4)

    def load_tile(kt):
        base = lane + kt * (TILE_ELEMS * 2)
        return [
            fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_a, base, 0),
            fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_a, base + 8, 0),
            fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_b, base, 0),
            fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_b, base + 8, 0),
        ]

    def compute(acc, a0, a1, b0, b1):
        acc = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a0, b0, acc])
        return fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a1, b1, acc])

    first = load_tile(fx.Int32(0))  # prologue: tile 0 before the loop
    # BUG: k_tiles iterations, one prefetch too many (k_tiles - 1 expected)
    for kt, state in range(fx.Int32(0), k_tiles, fx.Int32(1), init=[acc0, *first]):
        nxt = load_tile(fx.Int32(kt) + 1)  # issue tile kt+1 now; it is consumed next iteration
        acc = compute(state[0], state[1], state[2], state[3], state[4])
        fx.gpu.barrier()
        results = yield [acc, *nxt]
    acc = compute(results[0], results[1], results[2], results[3], results[4])  # epilogue: the last tile
    fx.rocdl.raw_ptr_buffer_store(_raw(acc), _raw(rsrc_c), _raw(tid * 16), _raw(fx.Int32(0)))


@flyc.jit
def mfma_loop(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_tiles: fx.Int32, stream: fx.Stream = fx.Stream(None)):  # noqa: B008
    mfma_past_end(A, B, C, k_tiles).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)


# Keep LLVM from runtime-unrolling the k-loop, so one ISA iteration is one k-tile and the prefetch distance reads
# directly off the loop body (production kernels with large bodies are not unrolled either).
NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return mfma_loop(*args)


def kernelpilot_entry(k_tiles=64):
    """kernelpilot file mode: k_tiles k-tiles of A and B (f16), one workgroup of 4 waves (check varies k_tiles)."""
    a = torch.empty(k_tiles * TILE_ELEMS, dtype=torch.float16)
    c = torch.empty(1024, dtype=torch.float32)
    return launch, (a, a, c, k_tiles)
