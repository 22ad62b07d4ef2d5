"""Schedule test data: a FlyDSL k-loop of two barrier-delimited phases.

Phase 0 copies this iteration's A and B tiles from global memory straight into LDS (``buffer_load_dword … lds``, DMA
to LDS); phase 1 reads each wave's MFMA fragments back from LDS (on gfx950 B's with ``ds_read_b64_tr_b16``) and runs two MFMAs. Each phase ends with a barrier.
"""

import os

import flydsl.compiler as flyc
import flydsl.expr as fx
from flydsl._mlir import ir
from flydsl._mlir.dialects.rocdl import ds_read_tr16_b64_
from phases_common import TILE_BYTES, entry, raw

TRANSPOSE = os.environ.get("ARCH", "").startswith("gfx95")  # dump-ir sets ARCH to the target


def _read_b(ptr, ty):
    """B's fragment: through the transposing LDS read on gfx950, a plain one elsewhere (decided at trace time)."""
    return ds_read_tr16_b64_(ty, raw(ptr.llvm_ptr)) if TRANSPOSE else ptr.load(ty)


@flyc.kernel
def two_phase_loop(A: fx.Tensor, B: fx.Tensor, X: fx.Tensor, C: fx.Tensor, k_tiles: fx.Int32):
    i16x4 = ir.VectorType.get([4], ir.IntegerType.get_signless(16))
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    lds = fx.SharedAllocator()
    lds_a = lds.allocate(fx.Array[fx.Int16, 2048, 16]).peek().ptr
    lds_b = lds.allocate(fx.Array[fx.Int16, 2048, 16]).peek().ptr
    frag = wave * 512 + (lane % 16) * 32 + (lane // 16) * 4  # this lane's 4 elements of its wave's 16x16 block
    acc0 = fx.arith.constant_vector(0.0, f32x4)
    for kt, acc in range(fx.Int32(0), k_tiles, fx.Int32(1), init=[acc0]):
        # phase 0: DMA to LDS: each wave copies its 1 KiB of A and of B in four dword rows (gfx942 has no
        # 16-byte LDS DMA)
        for q in fx.range_constexpr(4):
            base = fx.Int32(kt) * TILE_BYTES + wave * 1024 + q * 256 + lane * 4
            fx.rocdl.buffer_load_to_lds(rsrc_a, (lds_a + wave * 512 + q * 128).llvm_ptr, base, size_bytes=4)
            fx.rocdl.buffer_load_to_lds(rsrc_b, (lds_b + wave * 512 + q * 128).llvm_ptr, base, size_bytes=4)
        fx.gpu.barrier()
        # phase 1: LDS reads, MFMA
        acc = acc[0]
        for h in fx.range_constexpr(2):
            a = (lds_a + frag + h * 16).load(i16x4)
            b = _read_b(lds_b + frag + h * 16, i16x4)
            acc = fx.rocdl.mfma_f32_16x16x16bf16_1k(f32x4, [a, b, acc])
        fx.gpu.barrier()
        results = yield [acc]
    fx.rocdl.raw_ptr_buffer_store(raw(results[0]), raw(rsrc_c), raw(tid * 16), raw(fx.Int32(0)))


@flyc.jit
def two_phase(A, B, X, C, k_tiles: fx.Int32, stream: fx.Stream = fx.Stream(None)):  # noqa: B008
    two_phase_loop(A, B, X, C, k_tiles).launch(grid=(1, 1, 1), block=(256, 1, 1), stream=stream)


def kernelpilot_entry(k_tiles=8):
    return entry(two_phase, k_tiles)
