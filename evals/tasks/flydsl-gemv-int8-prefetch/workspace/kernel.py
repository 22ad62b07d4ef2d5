"""Decode-time GEMV over an int8 weight matrix with one fp32 dequant scale per row and 1024-wide k-group.

y_partial[row, lane] = sum over k-groups g of scale[row, g] * sum_j float(W[row, k]) * float(x[k]), where each of the
64 lanes of a wave owns 16 consecutive k of every group (k = g * 1024 + lane * 16 + j). One wave per row, four rows
per workgroup; the 64 per-lane partial sums of a row are written out (a split-K epilogue adds them).
Per k-group a lane reads 16 int8 weights (one dwordx4), 16 f16 activations (two dwordx4) and the group's scale.
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

GROUP = 1024  # k per group: 64 lanes x 16


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def gemv_int8(W: fx.Tensor, X: fx.Tensor, Scale: fx.Tensor, Y: fx.Tensor, groups: fx.Int32):
    i32x4 = ir.VectorType.get([4], ir.IntegerType.get_signless(32))
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x16 = ir.VectorType.get([16], ir.F32Type.get())
    f32 = ir.F32Type.get()
    tid = fx.Int32(fx.thread_idx.x)
    row = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_w = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(W)))
    rsrc_x = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(X)))
    rsrc_s = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Scale)))
    rsrc_y = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Y)))
    w_row = row * groups * GROUP  # byte offset of this row (int8)
    acc0 = fx.arith.constant_vector(0.0, f32x16)
    for g, state in range(fx.Int32(0), groups, fx.Int32(1), init=[acc0]):
        k0 = fx.Int32(g) * GROUP + lane * 16
        w = fx.Vector(fx.rocdl.raw_ptr_buffer_load(i32x4, rsrc_w, w_row + k0, 0)).bitcast(fx.Int8)
        x_lo = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_x, k0 * 2, 0))
        x_hi = fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_x, k0 * 2 + 16, 0))
        scale = fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_s, (row * groups + fx.Int32(g)) * 4, 0))
        x = fx.Vector(x_lo.to(fx.Float32)).shuffle(fx.Vector(x_hi.to(fx.Float32)), list(range(16)))
        acc = fx.Vector(state[0]) + w.to(fx.Float32) * x * scale
        results = yield [_raw(acc)]
    out = fx.Vector(results)
    for q in fx.range_constexpr(4):  # four dwordx4 stores of the lane's 16 partial sums
        part = out.shuffle(out, [4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3])
        fx.rocdl.raw_ptr_buffer_store(
            _raw(part), _raw(rsrc_y), _raw((row * 64 + lane) * 64 + 16 * q), _raw(fx.Int32(0))
        )


@flyc.jit
def gemv(W, X, Scale, Y, rows: fx.Constexpr[int], groups: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    gemv_int8(W, X, Scale, Y, groups).launch(grid=(rows // 4, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-group


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemv(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 64 rows x 8 k-groups (8192 k)."""
    rows, groups = 64, 8
    w = torch.empty(rows * groups * GROUP, dtype=torch.int8)
    x = torch.empty(groups * GROUP, dtype=torch.float16)
    s = torch.empty(rows * groups, dtype=torch.float32)
    y = torch.empty(rows * 64 * 16, dtype=torch.float32)
    return launch, (w, x, s, y, rows, groups)
