"""Schedule test data: a FlyDSL k-loop of four barrier-delimited phases.

Phase 0 loads one f32 per lane from global memory and writes it to LDS; phase 1 reads a neighbour's value from LDS
and writes it, doubled, to a second LDS array; phase 2 reads that back and runs the MFMAs on operands loaded an
iteration ahead; phase 3 writes the running sum to LDS and loads the next iteration's MFMA operands (a prefetch:
their wait is in the next iteration, across the back edge). Each phase ends with a workgroup barrier.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl._mlir import ir
from phases_common import TILE_BYTES, entry, raw


@flyc.kernel
def four_phase_loop(A: fx.Tensor, B: fx.Tensor, X: fx.Tensor, C: fx.Tensor, k_tiles: fx.Int32):
    f16x4 = ir.VectorType.get([4], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    f32 = ir.F32Type.get()
    tid = fx.Int32(fx.thread_idx.x)
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_x = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(X)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    lds = fx.SharedAllocator()
    smem = lds.allocate(fx.Array[fx.Float32, 256]).peek()
    smem2 = lds.allocate(fx.Array[fx.Float32, 256]).peek()
    smem3 = lds.allocate(fx.Array[fx.Float32, 256]).peek()
    acc0 = fx.arith.constant_vector(0.0, f32x4)
    first = [fx.rocdl.raw_ptr_buffer_load(f16x4, r, tid * 16 + o, 0) for r in (rsrc_a, rsrc_b) for o in (0, 8)]
    for kt, state in range(fx.Int32(0), k_tiles, fx.Int32(1), init=[acc0, fx.Float32(0.0), *first]):
        acc, total, a0, a1, b0, b1 = state[0], state[1], state[2], state[3], state[4], state[5]
        base = tid * 16 + (fx.Int32(kt) + 1) * TILE_BYTES
        # phase 0: global load, LDS write
        x = fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_x, tid * 4 + fx.Int32(kt) * 1024, 0))
        smem[tid] = x
        fx.gpu.barrier()
        # phase 1: LDS read, LDS write
        y = smem[(tid + 64) % 256]
        smem2[tid] = y * 2.0
        fx.gpu.barrier()
        # phase 2: LDS read, MFMA
        total = total + smem2[(tid + 128) % 256]
        acc = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a0, b0, acc])
        acc = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a1, b1, acc])
        fx.gpu.barrier()
        # phase 3: LDS write, the next iteration's operands
        smem3[tid] = total
        nxt = [fx.rocdl.raw_ptr_buffer_load(f16x4, r, base + o, 0) for r in (rsrc_a, rsrc_b) for o in (0, 8)]
        fx.gpu.barrier()
        results = yield [acc, total, *nxt]
    fx.rocdl.raw_ptr_buffer_store(raw(results[0]), raw(rsrc_c), raw(tid * 16), raw(fx.Int32(0)))
    fx.rocdl.raw_ptr_buffer_store(raw(results[1]), raw(rsrc_c), raw(tid * 4 + 4096), raw(fx.Int32(0)))


@flyc.jit
def four_phase(A, B, X, C, k_tiles: fx.Int32, stream: fx.Stream = fx.Stream(None)):  # noqa: B008
    four_phase_loop(A, B, X, C, k_tiles).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)


def kernelpilot_entry(k_tiles=8):
    return entry(four_phase, k_tiles, extra_tiles=1)
