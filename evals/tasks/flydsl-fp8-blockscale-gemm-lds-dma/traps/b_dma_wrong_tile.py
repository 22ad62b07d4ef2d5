"""A wrong answer to flydsl-fp8-blockscale-gemm-lds-dma that passes every ISA check: DMA double buffer and
scales carried ahead as asked, but the B block's DMA is indexed by the tile's row (mt) instead of its column (nt),
a copy-paste slip: only the diagonal tiles come out right. Only the output oracle sees it
(tests/test_check_eval.py)."""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir
from flydsl._mlir.dialects import rocdl as rocdl_ops

TILE_BYTES = 4096  # one 64 x 64 fp8 block of A or B: 256 lanes x 16 B


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def fp8_gemm(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor, n_tiles: fx.Int32,
             k_blocks: fx.Int32):  # fmt: skip
    i64 = ir.IntegerType.get_signless(64)
    f32 = ir.F32Type.get()
    f32x4 = ir.VectorType.get([4], f32)
    tid = fx.Int32(fx.thread_idx.x)
    tile = fx.Int32(fx.block_idx.x)
    mt = tile // n_tiles
    nt = tile % n_tiles
    wave = tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_sa = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(SA)))
    rsrc_sb = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(SB)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    smem = fx.SharedAllocator()
    # two LDS stages of [A block | B block], one allocation: the stage is picked by offset, so one loop body
    # serves both and the DMA fills one stage while the MFMAs read the other
    lds = smem.allocate(fx.Array[fx.Int8, 4 * TILE_BYTES, 16]).peek().ptr
    # fragment addresses (bytes): row / column (lane % 16) of a 16-wide block, k-eighth (lane // 16)
    k8 = (lane // 16) * 8
    a_rows = [(wave // 2) * 32 + i * 16 + lane % 16 for i in range(2)]
    b_cols = [(wave % 2) * 32 + j * 16 + lane % 16 for j in range(2)]
    # the 4 rows of block i whose sa this lane's accumulator needs: 4 consecutive floats
    sa_rows = [(wave // 2) * 32 + i * 16 + (lane // 16) * 4 for i in range(2)]
    zero = fx.arith.constant_vector(0.0, f32x4)

    def dma(kb, stage):
        """k-block kb of A and B straight into an LDS stage, one async group (each wave's 64 lanes x 16 B land at
        its own KiB of the block: the DMA writes lane l at M0 + 16 l)."""
        zero_i32 = _raw(fx.Int32(0))
        for rsrc, t, off in ((rsrc_a, mt, 0), (rsrc_b, mt, TILE_BYTES)):  # wrong: B is indexed by nt
            rocdl_ops.raw_ptr_buffer_load_async_lds(
                _raw(rsrc), (lds + stage + off + wave * 1024).llvm_ptr, _raw(fx.Int32(16)),
                _raw((t * k_blocks + kb) * TILE_BYTES + tid * 16), zero_i32, zero_i32,
            )  # fmt: skip
        fx.rocdl.asyncmark()

    def scales(kb):
        """k-block kb's row scales (one f32x4 per 16-row block) and tile scale, into registers."""
        sa = [fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_sa, ((mt * k_blocks + kb) * 64 + r) * 4, 0) for r in sa_rows]
        return [*sa, fx.rocdl.raw_ptr_buffer_load(f32, rsrc_sb, (nt * k_blocks + kb) * 4, 0)]

    dma(fx.Int32(0), fx.Int32(0))  # prologue: k-block 0 into stage 0, its scales into registers
    first = scales(fx.Int32(0))
    for kb, state in range(fx.Int32(0), k_blocks, fx.Int32(1), init=[*([zero] * 4), *first]):
        cur = (fx.Int32(kb) % 2) * (2 * TILE_BYTES)  # stage of k-block kb; kb+1 goes to the other one
        nxt_kb = fx.min(fx.Int32(kb) + 1, k_blocks - 1)  # the last iteration reloads k-block k_blocks-1, unread
        fx.gpu.barrier()  # every wave is done reading the other stage (k-block kb-1)
        nxt = scales(nxt_kb)  # in flight through this k-block's MFMAs, used by the next one
        dma(nxt_kb, 2 * TILE_BYTES - cur)
        fx.rocdl.wait_asyncmark(1)  # k-block kb has landed; kb+1 stays in flight
        fx.gpu.barrier()  # ... for every wave's part of it
        acc = list(state[:4])
        sb = fx.Float32(state[6])
        for i in fx.range_constexpr(2):
            a_frag = [(lds + cur + a_rows[i] * 64 + ks * 32 + k8).load(i64) for ks in range(2)]
            scale = fx.Vector(state[4 + i]) * sb
            for j in fx.range_constexpr(2):
                part = zero
                for ks in fx.range_constexpr(2):
                    b_frag = (lds + cur + TILE_BYTES + b_cols[j] * 64 + ks * 32 + k8).load(i64)
                    part = fx.rocdl.mfma_f32_16x16x32_fp8_fp8(f32x4, [a_frag[ks], b_frag, part])
                acc[2 * i + j] = _raw(fx.Vector(acc[2 * i + j]) + fx.Vector(part) * scale)
        results = yield [*acc, *nxt]
    fx.rocdl.wait_asyncmark(0)
    for q in fx.range_constexpr(4):
        fx.rocdl.raw_ptr_buffer_store(
            _raw(results[q]), _raw(rsrc_c), _raw(((tile * 4 + wave) * 4 + q) * 1024 + lane * 16), _raw(fx.Int32(0))
        )


@flyc.jit
def gemm(A, B, SA, SB, C, tiles: fx.Constexpr[int], n_tiles: fx.Int32, k_blocks: fx.Int32,
         stream: fx.Stream = fx.Stream(None)):  # fmt: skip
    fp8_gemm(A, B, SA, SB, C, n_tiles, k_blocks).launch(grid=(tiles, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry(k_blocks=16):
    """kernelpilot file mode: a 128 x 128 C (2 x 2 tiles of 64 x 64) over K = 64 k_blocks (1024 by default)."""
    m_tiles, n_tiles = 2, 2
    a = torch.empty(m_tiles * k_blocks * TILE_BYTES, dtype=torch.float8_e4m3fn)
    b = torch.empty(n_tiles * k_blocks * TILE_BYTES, dtype=torch.float8_e4m3fn)
    sa = torch.empty(m_tiles * k_blocks * 64, dtype=torch.float32)
    sb = torch.empty(n_tiles * k_blocks, dtype=torch.float32)
    c = torch.empty(m_tiles * n_tiles * 4 * 4 * 256, dtype=torch.float32)
    return launch, (a, b, sa, sb, c, m_tiles * n_tiles, n_tiles, k_blocks)
