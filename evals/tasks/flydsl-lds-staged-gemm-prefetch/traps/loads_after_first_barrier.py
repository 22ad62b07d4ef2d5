"""A wrong answer to flydsl-lds-staged-gemm-prefetch, kept to show the task is coupled: k-tile kt+1 is prefetched
through registers, but its loads are issued after the first barrier, so that barrier still waits with no global
load in flight (1 of 2 barriers covered; tests/test_eval_tasks.py)."""

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

    def load_tile(kt):
        base = (tile * k_tiles + kt) * TILE_BYTES + tid * 16
        return [
            fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_a, base, 0),
            fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_b, base, 0),
        ]

    def stage(a, b):
        (lds_a + tid * 8).store(a)
        (lds_b + tid * 8).store(b)

    def mma(acc):
        for h in fx.range_constexpr(4):  # the four 16-wide quarters of the k-tile
            a_frag = (lds_a + row_a * 64 + h * 16 + kq).load(f16x4)
            b_frag = (lds_b + col_b * 64 + h * 16 + kq).load(f16x4)
            acc = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a_frag, b_frag, acc])
        return acc

    first = load_tile(fx.Int32(0))  # prologue: k-tile 0 into registers
    for kt, state in range(fx.Int32(0), k_tiles - 1, fx.Int32(1), init=[acc0, *first]):
        stage(state[1], state[2])  # k-tile kt, loaded last iteration, into LDS
        fx.gpu.barrier()
        nxt = load_tile(fx.Int32(kt) + 1)
        acc = mma(state[0])
        fx.gpu.barrier()
        results = yield [acc, *nxt]
    stage(results[1], results[2])  # epilogue: the last k-tile
    fx.gpu.barrier()
    results = mma(results[0])
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
