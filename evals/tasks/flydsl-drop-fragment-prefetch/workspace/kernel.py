"""A skinny f16 GEMM in FlyDSL, out = A @ B, with B (64 x 64) resident in LDS: each workgroup copies B into LDS once and
its four waves stream 32-row slabs of A past it (32 x 32 MFMA blocks, two 32-column subtiles per wave).

Per 32-wide k-block a lane loads its A fragments from global memory (two dwordx4: four f16x4 k-steps, pre-shuffled)
and uses its B fragments of both subtiles from LDS. The loop is hand-scheduled: at the top of iteration kb the B
fragments of k-block kb+1 are read from LDS (the last iteration reads block 0 again, unused) and carried to the next
iteration, and a sched_barrier keeps those reads ahead of this k-block's MFMAs so that they hide the LDS latency.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

SUBTILES = 2
K = 64  # rows of B (the reduction length); k_blocks = K / 32 at run time


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def skinny_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_blocks: fx.Int32):
    f16x4 = ir.VectorType.get([4], ir.F16Type.get())
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x16 = ir.VectorType.get([16], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    lds_b = fx.SharedAllocator().allocate(fx.Array[fx.Float16, K * 64, 16]).peek().ptr
    for i in fx.range_constexpr(K * 64 // 2048):  # 256 lanes x 8 halves per copy
        (lds_b + (i * 256 + tid) * 8).store(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_b, (i * 256 + tid) * 16, 0))
    fx.gpu.barrier()
    zero = fx.arith.constant_vector(0.0, f32x16)

    def b_frags(kb):  # B fragments of k-block kb from LDS: per subtile, four f16x4 k-steps
        blk = kb % k_blocks
        return [
            (lds_b + ((blk * SUBTILES + j) * 64 + lane) * 16 + 4 * s).load(f16x4)
            for j in range(SUBTILES)
            for s in range(4)
        ]

    for kb, state in range(fx.Int32(0), k_blocks, fx.Int32(1), init=[zero] * SUBTILES + b_frags(fx.Int32(0))):
        acc, b = state[:SUBTILES], state[SUBTILES:]
        b_next = b_frags(fx.Int32(kb) + 1)  # the next k-block's B fragments, carried to the next iteration
        fx.rocdl.sched_barrier(0)  # hand schedule: the LDS reads go out first, the MFMAs hide their latency
        off = ((wave * k_blocks + fx.Int32(kb)) * 64 + lane) * 32
        lo = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_a, off, 0))
        hi = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_a, off + 16, 0))
        a = [
            lo.shuffle(lo, [0, 1, 2, 3]),
            lo.shuffle(lo, [4, 5, 6, 7]),
            hi.shuffle(hi, [0, 1, 2, 3]),
            hi.shuffle(hi, [4, 5, 6, 7]),
        ]
        new = []
        for j in fx.range_constexpr(SUBTILES):
            p = acc[j]
            for s in fx.range_constexpr(4):
                p = fx.rocdl.mfma_f32_32x32x8f16(f32x16, [a[s], b[4 * j + s], p])
            new.append(p)
        results = yield new + b_next
    for j in fx.range_constexpr(SUBTILES):
        out = fx.Vector(results[j])
        for q in fx.range_constexpr(4):
            fx.rocdl.raw_ptr_buffer_store(
                _raw(out.shuffle(out, [4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3])),
                _raw(rsrc_c),
                _raw(((wave * SUBTILES + j) * 64 + lane) * 64 + 16 * q),
                _raw(fx.Int32(0)),
            )


@flyc.jit
def gemm(A, B, C, waves: fx.Constexpr[int], k_blocks: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    skinny_gemm(A, B, C, k_blocks).launch(grid=(waves // 4, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-block


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemm(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 8 waves (two workgroups), K = 64 (2 k-blocks)."""
    waves, k_blocks = 8, K // 32
    a = torch.empty(waves * k_blocks * 64 * 16, dtype=torch.float16)
    b = torch.empty(K * 64, dtype=torch.float16)
    c = torch.empty(waves * SUBTILES * 64 * 16, dtype=torch.float32)
    return launch, (a, b, c, waves, k_blocks)
