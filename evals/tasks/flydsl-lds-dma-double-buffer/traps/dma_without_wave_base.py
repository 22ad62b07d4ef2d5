"""A wrong answer to flydsl-lds-dma-double-buffer that passes every ISA check: double-buffered async LDS DMA, but
every wave hands the DMA the stage's base pointer, as if it addressed LDS per lane like a ds_write. The hardware
writes lane l of every wave at M0 + 16 l, so the four waves overwrite the same first KiB of each tile and the rest
is never written. Only the output oracle sees it (tests/test_check_eval.py)."""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir
from flydsl._mlir.dialects import rocdl as rocdl_ops

TILE_BYTES = 4096  # one 64 x 32 bf16 operand tile


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def bf16_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_tiles: fx.Int32):
    i16x4 = ir.VectorType.get([4], ir.IntegerType.get_signless(16))
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    tile = fx.Int32(fx.block_idx.x)
    wave = tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    smem = fx.SharedAllocator()
    # two LDS stages, each an A and a B tile: the DMA fills one while the MFMAs read the other
    stages = [
        (smem.allocate(fx.Array[fx.Int16, 2048, 16]).peek().ptr, smem.allocate(fx.Array[fx.Int16, 2048, 16]).peek().ptr)
        for _ in range(2)
    ]
    # fragment addresses (in elements): row (lane % 16) of a 16-row block, k-quarter (lane // 16)
    row = lane % 16
    kq = (lane // 16) * 4
    a_rows = [(wave // 2) * 32 + i * 16 + row for i in range(2)]
    b_cols = [(wave % 2) * 32 + j * 16 + row for j in range(2)]
    zero = fx.arith.constant_vector(0.0, f32x4)

    def dma(kt, stage):
        """k-tile kt straight from global memory into an LDS stage (buffer_load ... lds, no VGPRs), as one async
        group: the compiler does not wait for it, wait_asyncmark does."""
        base = (tile * k_tiles + kt) * TILE_BYTES + tid * 16
        for rsrc, lds in ((rsrc_a, stages[stage][0]), (rsrc_b, stages[stage][1])):
            zero_i32 = _raw(fx.Int32(0))
            rocdl_ops.raw_ptr_buffer_load_async_lds(
                _raw(rsrc), lds.llvm_ptr, _raw(fx.Int32(16)), _raw(base), zero_i32, zero_i32
            )
        fx.rocdl.asyncmark()

    def mma(acc, stage):
        lds_a, lds_b = stages[stage]
        acc = list(acc)
        for h in fx.range_constexpr(2):  # the two 16-wide halves of the k-tile
            a_frag = [(lds_a + r * 32 + h * 16 + kq).load(i16x4) for r in a_rows]
            b_frag = [(lds_b + c * 32 + h * 16 + kq).load(i16x4) for c in b_cols]
            for i in fx.range_constexpr(2):
                for j in fx.range_constexpr(2):
                    acc[2 * i + j] = fx.rocdl.mfma_f32_16x16x16bf16_1k(f32x4, [a_frag[i], b_frag[j], acc[2 * i + j]])
        return acc

    dma(fx.Int32(0), 0)  # prologue: k-tile 0 into stage 0
    # two k-tiles per iteration, one per stage, so each stage is a fixed LDS allocation
    for kp, acc in range(fx.Int32(0), k_tiles // 2, fx.Int32(1), init=[zero] * 4):
        kt = fx.Int32(kp) * 2
        fx.gpu.barrier()  # every wave is done reading stage 1
        dma(kt + 1, 1)
        fx.rocdl.wait_asyncmark(1)  # k-tile kt (stage 0) has landed; kt+1 stays in flight
        fx.gpu.barrier()
        acc = mma(acc, 0)
        fx.gpu.barrier()  # every wave is done reading stage 0
        dma(fx.min(kt + 2, k_tiles - 1), 0)  # the last pair reloads k-tile k_tiles-1; it is never read
        fx.rocdl.wait_asyncmark(1)
        fx.gpu.barrier()
        results = yield mma(acc, 1)
    fx.rocdl.wait_asyncmark(0)
    for q in fx.range_constexpr(4):
        fx.rocdl.raw_ptr_buffer_store(
            _raw(results[q]), _raw(rsrc_c), _raw(((tile * 4 + q) * 256 + tid) * 16), _raw(fx.Int32(0))
        )


@flyc.jit
def gemm(A, B, C, tiles: fx.Constexpr[int], k_tiles: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    bf16_gemm(A, B, C, k_tiles).launch(grid=(tiles, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-tile


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 4 output tiles, 32 k-tiles each (k_tiles is even)."""
    tiles, k_tiles = 4, 32
    a = torch.empty(tiles * k_tiles * TILE_BYTES // 2, dtype=torch.bfloat16)
    b = torch.empty(tiles * k_tiles * TILE_BYTES // 2, dtype=torch.bfloat16)
    c = torch.empty(tiles * 4 * 256 * 4, dtype=torch.float32)
    return launch, (a, b, c, tiles, k_tiles)
