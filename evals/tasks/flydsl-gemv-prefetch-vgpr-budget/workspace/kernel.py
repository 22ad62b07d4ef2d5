"""Decode-time GEMV in FlyDSL over int8 weights with one fp32 scale per row and 2048-wide k-group, f16 activations:
y[row] = sum over groups g of scale[row, g] * sum_k float(W[row, k]) * float(x[k]).

One wave per row, four rows per workgroup; each of the 64 lanes owns 32 consecutive k of every group
(k = g * 2048 + lane * 32 + j). Per group a lane loads 32 int8 weights (two dwordx4), 32 f16 activations (four
dwordx4) and the group's scale, and accumulates the 32 scaled products element-wise into a 32-wide fp32 vector; after
the loop the vector is summed and each lane writes its partial dot product (a split-K epilogue adds the 64 lanes).
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

GROUP = 2048  # k per group: 64 lanes x 32


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def gemv_wide(W: fx.Tensor, X: fx.Tensor, Scale: fx.Tensor, Y: fx.Tensor, groups: fx.Int32):
    i32x4 = ir.VectorType.get([4], ir.IntegerType.get_signless(32))
    f16x8 = ir.VectorType.get([8], ir.F16Type.get())
    f32x32 = ir.VectorType.get([32], ir.F32Type.get())
    f32 = ir.F32Type.get()
    tid = fx.Int32(fx.thread_idx.x)
    row = fx.Int32(fx.block_idx.x) * 4 + tid // 64
    lane = tid % 64
    rsrc_w = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(W)))
    rsrc_x = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(X)))
    rsrc_s = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Scale)))
    rsrc_y = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Y)))
    w_row = row * groups * GROUP  # byte offset of this row (int8)
    acc0 = fx.arith.constant_vector(0.0, f32x32)
    for g, state in range(fx.Int32(0), groups, fx.Int32(1), init=[acc0]):
        k0 = fx.Int32(g) * GROUP + lane * 32
        w_lo = fx.Vector(fx.rocdl.raw_ptr_buffer_load(i32x4, rsrc_w, w_row + k0, 0)).bitcast(fx.Int8).to(fx.Float32)
        w_hi = (
            fx.Vector(fx.rocdl.raw_ptr_buffer_load(i32x4, rsrc_w, w_row + k0 + 16, 0)).bitcast(fx.Int8).to(fx.Float32)
        )
        xs = [
            fx.Vector(fx.rocdl.raw_ptr_buffer_load(f16x8, rsrc_x, k0 * 2 + 16 * i, 0)).to(fx.Float32) for i in range(4)
        ]
        scale = fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_s, (row * groups + fx.Int32(g)) * 4, 0))
        w = w_lo.shuffle(w_hi, list(range(32)))
        x = xs[0].shuffle(xs[1], list(range(16))).shuffle(xs[2].shuffle(xs[3], list(range(16))), list(range(32)))
        acc = fx.Vector(state[0]) + w * x * scale
        results = yield [_raw(acc)]
    total = fx.Vector(results)
    dot = fx.Float32(total[0])
    for i in fx.range_constexpr(1, 32):
        dot = dot + fx.Float32(total[i])
    fx.rocdl.raw_ptr_buffer_store(_raw(dot), _raw(rsrc_y), _raw((row * 64 + lane) * 4), _raw(fx.Int32(0)))


@flyc.jit
def gemv(W, X, Scale, Y, rows: fx.Constexpr[int], groups: fx.Int32, stream: fx.Stream = fx.Stream(None)):
    gemv_wide(W, X, Scale, Y, groups).launch(grid=(rows // 4, 1, 1), block=(256, 1, 1), stream=stream)


NO_UNROLL = {"llvm_options": {"unroll-runtime": False}}  # one ISA iteration = one k-group


def launch(*args):
    from flydsl.compiler.kernel_function import CompilationContext

    with CompilationContext.compile_hints(NO_UNROLL):
        return gemv(*args)


def kernelpilot_entry():
    """kernelpilot file mode: 64 rows x 4 k-groups (8192 k)."""
    rows, groups = 64, 4
    w = torch.empty(rows * groups * GROUP, dtype=torch.int8)
    x = torch.empty(groups * GROUP, dtype=torch.float16)
    s = torch.empty(rows * groups, dtype=torch.float32)
    y = torch.empty(rows * 64, dtype=torch.float32)
    return launch, (w, x, s, y, rows, groups)
