"""Check test data: one wave, Out[t] from Inp; VARIANT (rewritten by the tests) picks how. The plain variants compute
the values directly; the others use the constructs compilers emit (DPP on i64 and i32, a v_mov_b32 pin, an <8 x i1>
bitcast, a splat float constant, loads through FlyDSL's unchecked buffer descriptor) and must agree with them."""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir
from flydsl._mlir.dialects import arith, llvm, vector

VARIANT = "plain_identity"


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def xlane_kernel(Inp: fx.Tensor, Out: fx.Tensor):
    i1 = ir.IntegerType.get_signless(1)
    i8 = ir.IntegerType.get_signless(8)
    i32 = ir.IntegerType.get_signless(32)
    i64 = ir.IntegerType.get_signless(64)
    f32 = ir.F32Type.get()
    tid = fx.Int32(fx.thread_idx.x)
    rin = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Inp)))
    rout = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))

    def load(index):
        return fx.rocdl.raw_ptr_buffer_load(i32, rin, _raw(index * 4), 0)

    v = load(tid)
    p = v
    if VARIANT == "plain_newbcast":  # each row of 16 lanes takes its lane 5
        p = load((tid // 16) * 16 + 5)
    if VARIANT in ("dpp64_newbcast", "dpp64_newbcast_wrong_lane"):
        w = arith.ori(arith.shli(arith.extui(i64, v), arith.constant(i64, 32)), arith.extui(i64, v))
        ctrl = 0x155 if VARIANT == "dpp64_newbcast" else 0x156
        d = fx.rocdl.update_dpp(i64, arith.constant(i64, 0), w, ctrl, 0xF, 0xF, False)  # row_newbcast i64
        p = llvm.inline_asm(i32, [arith.trunci(i32, d)], "v_mov_b32 $0, $1", "=v,v", has_side_effects=True)  # pin
    if VARIANT == "plain_bcast15":  # rows 1..3 take lane 15 of the row before; row 0 keeps its own value
        p = load(arith.select(_raw(tid >= 16), _raw((tid // 16) * 16 - 1), _raw(tid)))
    if VARIANT in ("dpp_bcast15", "dpp_bcast15_bound"):
        p = fx.rocdl.update_dpp(i32, v, v, 0x142, 0xF, 0xF, VARIANT == "dpp_bcast15_bound")  # row_bcast15
    if VARIANT == "plain_low_byte":
        p = arith.andi(v, arith.constant(i32, 0xFF))
    if VARIANT in ("i1_bitcast", "i1_bitcast_reversed"):
        bits = [arith.trunci(i1, arith.shrui(v, arith.constant(i32, k))) for k in range(8)]
        bits = bits if VARIANT == "i1_bitcast" else bits[::-1]
        mask = vector.from_elements(ir.VectorType.get([8], i1), bits)
        p = arith.extui(i32, llvm.bitcast(i8, mask))  # <8 x i1> to i8
    if VARIANT in ("splat_max", "splat_max_wrong"):
        f = vector.broadcast(ir.VectorType.get([4], f32), arith.sitofp(f32, v))
        bound = -1.0e30 if VARIANT == "splat_max" else 1.0e30
        floor = arith.constant(ir.VectorType.get([4], f32), ir.DenseElementsAttr.get_splat(
            ir.VectorType.get([4], f32), ir.FloatAttr.get(f32, bound)))  # fmt: skip
        m = arith.maximumf(f, floor)  # splat constant
        p = arith.fptosi(i32, vector.extract(m, [], [0]))
    if VARIANT == "oob_unchecked":
        p = load(tid + 64)  # past Inp's 64 elements through a descriptor without bounds
    if VARIANT == "asm_unknown":
        p = llvm.inline_asm(i32, [_raw(v)], "v_add_u32 $0, $1, $1", "=v,v", has_side_effects=True)  # unknown asm
    fx.rocdl.raw_ptr_buffer_store(_raw(p), _raw(rout), _raw(tid * 4), _raw(fx.Int32(0)))


@flyc.jit
def run(Inp: fx.Tensor, Out: fx.Tensor, stream: fx.Stream = fx.Stream(None)):  # noqa: B008
    xlane_kernel(Inp, Out).launch(grid=(1, 1, 1), block=(64, 1, 1), stream=stream)


def kernelpilot_entry():
    return run, (torch.arange(64, dtype=torch.int32), torch.empty(64, dtype=torch.int32))
