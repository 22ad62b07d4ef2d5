"""Baseline: a FlyDSL MFMA loop whose buffer_loads are consumed in the iteration that issues them.

Each iteration loads four f16x4 fragments (two of A, two of B) with ``buffer_load_dwordx2`` and feeds them straight
into two ``v_mfma_f32_16x16x16_f16``; the ``s_waitcnt vmcnt`` before the first MFMA exposes the load latency.
The loop has runtime bounds (``k_tiles`` is a kernel argument), so FlyDSL emits an ``scf.for``, not an unrolled body;
and a barrier per k-tile gives the analysis a barrier-wait region.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

TILE_ELEMS = 2048  # f16 elements one iteration reads per operand: 256 lanes x 8


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def mfma_loop_baseline(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_tiles: fx.Int32):
    f16x4 = ir.VectorType.get([4], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    lane = tid * 16  # byte offset of this lane's 8 halves
    acc0 = fx.arith.constant_vector(0.0, f32x4)
    for kt, state in range(fx.Int32(0), k_tiles, fx.Int32(1), init=[acc0]):
        acc = state[0]
        base = lane + fx.Int32(kt) * (TILE_ELEMS * 2)
        a0 = fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_a, base, 0)
        a1 = fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_a, base + 8, 0)
        b0 = fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_b, base, 0)
        b1 = fx.rocdl.raw_ptr_buffer_load(f16x4, rsrc_b, base + 8, 0)
        acc = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a0, b0, acc])
        acc = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a1, b1, acc])
        fx.gpu.barrier()  # the workgroup syncs per k-tile, as when tiles are staged through LDS
        results = yield [acc]
    fx.rocdl.raw_ptr_buffer_store(_raw(results), _raw(rsrc_c), _raw(tid * 16), _raw(fx.Int32(0)))


@flyc.jit
def mfma_loop(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_tiles: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    mfma_loop_baseline(A, B, C, k_tiles).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)


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
