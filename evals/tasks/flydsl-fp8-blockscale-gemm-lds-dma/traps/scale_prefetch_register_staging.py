"""A wrong answer to flydsl-fp8-blockscale-gemm-lds-dma, kept to show the task is coupled: the scales are
carried one k-block ahead, but A and B still go through VGPRs and ds_write into one LDS tile, waited for in the
k-block that loads them (tests/test_eval_tasks.py). Its values are right."""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

TILE_BYTES = 4096  # one 64 x 64 fp8 block of A or B: 256 lanes x 16 B


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def fp8_gemm(A: fx.Tensor, B: fx.Tensor, SA: fx.Tensor, SB: fx.Tensor, C: fx.Tensor, n_tiles: fx.Int32,
             k_blocks: fx.Int32):  # fmt: skip
    i64 = ir.IntegerType.get_signless(64)
    i32x4 = ir.VectorType.get([4], ir.IntegerType.get_signless(32))
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
    lds_a = smem.allocate(fx.Array[fx.Int8, TILE_BYTES, 16]).peek().ptr
    lds_b = smem.allocate(fx.Array[fx.Int8, TILE_BYTES, 16]).peek().ptr
    # fragment addresses (bytes): row / column (lane % 16) of a 16-wide block, k-eighth (lane // 16)
    k8 = (lane // 16) * 8
    a_rows = [(wave // 2) * 32 + i * 16 + lane % 16 for i in range(2)]
    b_cols = [(wave % 2) * 32 + j * 16 + lane % 16 for j in range(2)]
    # the 4 rows of block i whose sa this lane's accumulator needs: 4 consecutive floats
    sa_rows = [(wave // 2) * 32 + i * 16 + (lane // 16) * 4 for i in range(2)]
    zero = fx.arith.constant_vector(0.0, f32x4)

    def scales(kb):
        sa = [fx.rocdl.raw_ptr_buffer_load(f32x4, rsrc_sa, ((mt * k_blocks + kb) * 64 + r) * 4, 0) for r in sa_rows]
        return [*sa, fx.rocdl.raw_ptr_buffer_load(f32, rsrc_sb, (nt * k_blocks + kb) * 4, 0)]

    first = scales(fx.Int32(0))
    for kb, state in range(fx.Int32(0), k_blocks, fx.Int32(1), init=[*([zero] * 4), *first]):
        a = fx.rocdl.raw_ptr_buffer_load(i32x4, rsrc_a, (mt * k_blocks + fx.Int32(kb)) * TILE_BYTES + tid * 16, 0)
        b = fx.rocdl.raw_ptr_buffer_load(i32x4, rsrc_b, (nt * k_blocks + fx.Int32(kb)) * TILE_BYTES + tid * 16, 0)
        nxt = scales(fx.min(fx.Int32(kb) + 1, k_blocks - 1))
        sa, sb = state[4:6], fx.Float32(state[6])
        (lds_a + tid * 16).store(a)
        (lds_b + tid * 16).store(b)
        fx.gpu.barrier()
        acc = list(state[:4])
        for i in fx.range_constexpr(2):
            a_frag = [(lds_a + a_rows[i] * 64 + ks * 32 + k8).load(i64) for ks in range(2)]
            scale = fx.Vector(sa[i]) * sb
            for j in fx.range_constexpr(2):
                part = zero
                for ks in fx.range_constexpr(2):
                    b_frag = (lds_b + b_cols[j] * 64 + ks * 32 + k8).load(i64)
                    part = fx.rocdl.mfma_f32_16x16x32_fp8_fp8(f32x4, [a_frag[ks], b_frag, part])
                acc[2 * i + j] = _raw(fx.Vector(acc[2 * i + j]) + fx.Vector(part) * scale)
        fx.gpu.barrier()
        results = yield [*acc, *nxt]
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
