"""A skinny GEMM in FlyDSL, out = A @ B, with B (128 x 64, f16) resident in LDS: each workgroup copies B into LDS once
and its four waves stream 32-row slabs of A past it (32 x 32 MFMA blocks, two 32-column subtiles per wave).

B is widened to fp32 as it is copied into LDS and narrowed back to f16 for the MFMAs. Per 32-wide k-block a lane
loads its A fragments (two dwordx4: four f16x4 k-steps, pre-shuffled) and reads its B fragments for both subtiles
from LDS.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

SUBTILES = 2
K = 128  # rows of B (the reduction length); k_blocks = K / 32 at run time


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def skinny_gemm(A: fx.Tensor, B: fx.Tensor, C: fx.Tensor, k_blocks: fx.Int32):
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    f32x16 = ir.VectorType.get([16], ir.F32Type.get())
    tid = fx.Int32(fx.thread_idx.x)
    wave = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_a = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(A)))
    rsrc_b = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(B)))
    rsrc_c = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(C)))
    lds_b = fx.SharedAllocator().allocate(fx.Array[fx.Float32, K * 64, 16]).peek().ptr
    for i in fx.range_constexpr(K * 64 // 2048):  # 256 lanes x 8 values per copy
        v = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_b, (i * 256 + tid) * 16, 0)).to(fx.Float32)
        (lds_b + (i * 256 + tid) * 8).store(v.shuffle(v, [0, 1, 2, 3]))
        (lds_b + (i * 256 + tid) * 8 + 4).store(v.shuffle(v, [4, 5, 6, 7]))
    fx.gpu.barrier()
    zero = fx.arith.constant_vector(0.0, f32x16)
    for kb, acc in range(fx.Int32(0), k_blocks, fx.Int32(1), init=[zero] * SUBTILES):
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
                b = fx.Vector((lds_b + ((fx.Int32(kb) * SUBTILES + j) * 64 + lane) * 16 + 4 * s).load(f32x4))
                p = fx.rocdl.mfma_f32_32x32x8f16(f32x16, [a[s], b.to(fx.Float16), p])
            new.append(p)
        results = yield new
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
    """kernelpilot file mode: 8 waves (two workgroups), K = 128 (4 k-blocks)."""
    waves, k_blocks = 8, K // 32
    a = torch.empty(waves * k_blocks * 64 * 16, dtype=torch.float16)
    b = torch.empty(K * 64, dtype=torch.float16)
    c = torch.empty(waves * SUBTILES * 64 * 16, dtype=torch.float32)
    return launch, (a, b, c, waves, k_blocks)
