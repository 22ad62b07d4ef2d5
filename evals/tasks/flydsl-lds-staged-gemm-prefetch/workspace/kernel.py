"""An f16 GEMM k-loop that stages its tiles through LDS, in FlyDSL (one workgroup of 4 waves per 32 x 32 tile).

Per 64-wide k-tile the 256 lanes each load one dwordx4 of A and one of B (the 32 x 64 tiles of both operands,
4 KB each), write them to LDS, and after a barrier every wave reads the f16x4 fragments its
v_mfma_f32_16x16x16_f16 need, which other lanes loaded (wave w computes the 16 x 16 quadrant w of the output
tile over the four 16-wide quarters of the k-tile).
A second barrier keeps the next iteration's LDS writes from overwriting fragments still being read.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

TILE_BYTES = 4096  # one 32 x 64 f16 tile: 256 lanes x 16 B, all of it staged in LDS


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def lds_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_tiles: fx.Int32):
    f16x4 = ir.VectorType.get([4], ir.F16Type.get())
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    tile = fx.Int32(fx.block_idx.x)
    wave = tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    smem = fx.SharedAllocator()
    lds_a = smem.allocate(fx.Array[fx.Float16, TILE_BYTES // 2, 16]).peek().ptr
    lds_b = smem.allocate(fx.Array[fx.Float16, TILE_BYTES // 2, 16]).peek().ptr
    # fragment addresses (in halves): row (lane % 16) of the wave's quadrant, k-quarter (lane // 16)
    row_a = (wave // 2) * 16 + lane % 16
    col_b = (wave % 2) * 16 + lane % 16
    kq = (lane // 16) * 4
    acc0 = fx.arith.constant_vector(0.0, f32x4)
    for kt, state in range(fx.Int32(0), k_tiles, fx.Int32(1), init=[acc0]):
        base = (tile * k_tiles + fx.Int32(kt)) * TILE_BYTES + tid * 16
        a = fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_a, base, 0)
        b = fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_b, base, 0)
        (lds_a + tid * 8).store(a)
        (lds_b + tid * 8).store(b)
        fx.gpu.barrier()
        acc = state[0]
        for h in fx.range_constexpr(4):  # the four 16-wide quarters of the k-tile
            a_frag = (lds_a + row_a * 64 + h * 16 + kq).load(f16x4)
            b_frag = (lds_b + col_b * 64 + h * 16 + kq).load(f16x4)
            acc = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a_frag, b_frag, acc])
        fx.gpu.barrier()
        results = yield [acc]
    fx.rocdl.raw_ptr_buffer_store(_raw(results), _raw(rsrc_c), _raw((tile * 256 + tid) * 16), _raw(fx.Int32(0)))


@flyc.jit
def gemm(A, B, C, tiles: fx.Constexpr[int], k_tiles: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    lds_gemm(A, B, C, k_tiles).launch(grid=(tiles, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-tile


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 4 output tiles, 16 k-tiles (K = 1024) each."""
    tiles, k_tiles = 4, 16
    a = torch.empty(tiles * k_tiles * TILE_BYTES // 2, dtype=torch.float16)
    b = torch.empty(tiles * k_tiles * TILE_BYTES // 2, dtype=torch.float16)
    c = torch.empty(tiles * 256 * 4, dtype=torch.float32)
    return launch, (a, b, c, tiles, k_tiles)
