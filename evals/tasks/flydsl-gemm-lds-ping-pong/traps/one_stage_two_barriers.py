"""An f16 "NT" GEMM in FlyDSL, C[M, N] = A[M, K] @ B[N, K]^T in fp32, with v_mfma_f32_16x16x16_f16.

One workgroup of four waves per 64 x 64 output tile; wave w computes the 32 x 32 quadrant (w // 2, w % 2) as a
2 x 2 grid of 16 x 16 subtiles (four f32x4 accumulators). K is consumed 32 at a time (a k-tile: two 16-wide
k-steps). Operands are read straight from global memory into the MFMA operand registers: per k-tile each lane loads
the f16x4 fragments its eight MFMAs need (row or column lane % 16 of a 16-row block, k-quarter lane // 16 of a
k-step), four of A and four of B, 8 bytes each. Every fragment of A is loaded by both waves that share its rows,
every fragment of B by both waves that share its columns.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

TILE = 64  # output tile edge per workgroup
KT = 32  # k per k-tile


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def nt_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, n_len: fx.Int32, k_tiles: fx.Int32):
    f16x4 = ir.VectorType.get([4], ir.F16Type.get())
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    k_len = k_tiles * KT  # row length of A and B, in halves
    row0 = fx.Int32(fx.block_idx.y) * TILE + (wave // 2) * 32  # first row of the wave's quadrant
    col0 = fx.Int32(fx.block_idx.x) * TILE + (wave % 2) * 32  # first column
    # Staging: per k-tile the 256 lanes load the workgroup's whole 64 x 32 tiles of A and B, one dwordx4 of each
    # per lane (row tid // 4, k (tid % 4) * 8), and write them to one of two LDS stages (4 KB of A, then 4 KB of B).
    smem = fx.SharedAllocator()
    lds = smem.allocate(fx.Array[fx.Float16, 2 * TILE * KT, 16]).peek().ptr
    ld_row = tid // 4
    ld_k = (tid % 4) * 8
    a_src = ((fx.Int32(fx.block_idx.y) * TILE + ld_row) * k_len + ld_k) * 2
    b_src = ((fx.Int32(fx.block_idx.x) * TILE + ld_row) * k_len + ld_k) * 2

    def load_tile(kt):  # k-tile kt's dwordx4 of A and of B for this lane (8 VGPRs)
        return [
            fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_a, a_src + kt * (KT * 2), 0),
            fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_b, b_src + kt * (KT * 2), 0),
        ]

    def stage_tile(kt, a_reg, b_reg):  # write k-tile kt into LDS stage kt % 2
        base = lds
        (base + tid * 8).store(a_reg)
        (base + TILE * KT + tid * 8).store(b_reg)

    def mfma_tile(kt, acc):  # the wave's eight MFMAs on k-tile kt, fragments read from its LDS stage
        base = lds
        kq = (lane // 16) * 4
        a = [
            [(base + ((wave // 2) * 32 + rb * 16 + lane % 16) * KT + s * 16 + kq).load(f16x4) for s in range(2)]
            for rb in range(2)
        ]
        b = [
            [
                (base + TILE * KT + ((wave % 2) * 32 + cb * 16 + lane % 16) * KT + s * 16 + kq).load(f16x4)
                for s in range(2)
            ]
            for cb in range(2)
        ]
        out = []
        for rb in fx.range_constexpr(2):
            for cb in fx.range_constexpr(2):
                c = acc[rb * 2 + cb]
                for s in fx.range_constexpr(2):
                    c = fx.rocdl.mfma_f32_16x16x16f16(f32x4, [a[rb][s], b[cb][s], c])
                out.append(_raw(c))
        return out

    # One barrier per k-tile: iteration kt writes stage kt % 2, whose last readers (iteration kt - 2) all passed the
    # barrier of iteration kt - 1 before any wave got here. The next k-tile's global loads are issued right after
    # the LDS writes, so they are in flight across the barrier and the MFMAs and land in the next iteration.
    zero = fx.arith.constant_vector(0.0, f32x4)
    first = load_tile(fx.Int32(0))  # prologue: k-tile 0 into registers
    for kt, state in range(fx.Int32(0), k_tiles - 1, fx.Int32(1), init=[zero] * 4 + first):
        stage_tile(fx.Int32(kt), state[4], state[5])
        nxt = load_tile(fx.Int32(kt) + 1)
        fx.gpu.barrier()
        acc = mfma_tile(fx.Int32(kt), state[:4])
        fx.gpu.barrier()
        results = yield acc + nxt
    last = k_tiles - 1  # epilogue: the last k-tile
    stage_tile(last, results[4], results[5])
    fx.gpu.barrier()
    results = mfma_tile(last, results[:4])
    for rb in fx.range_constexpr(2):
        for cb in fx.range_constexpr(2):
            res = fx.Vector(results[rb * 2 + cb])
            for r in fx.range_constexpr(4):  # the MFMA's lane order: row 4 * (lane // 16) + r, column lane % 16
                row = row0 + rb * 16 + (lane // 16) * 4 + r
                col = col0 + cb * 16 + lane % 16
                fx.rocdl.raw_ptr_buffer_store(
                    _raw(fx.Float32(res[r])), _raw(rsrc_c), _raw((row * n_len + col) * 4), _raw(fx.Int32(0))
                )


@flyc.jit
def gemm(
    A,
    B,
    C,
    m_tiles: fx.Constexpr[int],
    n_tiles: fx.Constexpr[int],
    n_len: fx.Int32,
    k_tiles: fx.Int32,
    stream: fx.Stream = fx.Stream(None),
):
    nt_gemm(A, B, C, n_len, k_tiles).launch(grid=(n_tiles, m_tiles, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-tile


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: M = 128, N = 128, K = 512 (a 2 x 2 grid of 64 x 64 tiles, 16 k-tiles)."""
    m_tiles, n_tiles, k_tiles = 2, 2, 16
    a = torch.empty(m_tiles * TILE * k_tiles * KT, dtype=torch.float16)
    b = torch.empty(n_tiles * TILE * k_tiles * KT, dtype=torch.float16)
    c = torch.empty(m_tiles * TILE * n_tiles * TILE, dtype=torch.float32)
    return launch, (a, b, c, m_tiles, n_tiles, n_tiles * TILE, k_tiles)
