"""Check test data (gfx950): one wave of 64 lanes; VARIANT (rewritten by the tests) picks what Out holds and how.

xor16_* / xor32_*: Out[t] = Inp[t ^ 16] / Inp[t ^ 32], read directly (plain), through ds_bpermute (an explicit lane
index), or through shuffle_xor, which FlyDSL lowers to permlane16.swap / permlane32.swap on gfx950. sum_*: every lane
holds the sum of the wave's 64 values, by an xor butterfly over 32, 16, 8, 4, 2, 1 lanes. pair16_* / pair32_*: the
two registers a swap returns for two different inputs (a = Inp[t], b = Inp[64 + t]), in Out[t] and Out[64 + t]."""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir
from flydsl._mlir.dialects import arith, llvm

VARIANT = "xor16_plain"


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


def _outputs(v, tid, load, by_index):
    """(value, Out index) pairs of VARIANT; a plain function, so its `if`s are Python's, decided while tracing."""
    i32, f32 = ir.IntegerType.get_signless(32), ir.F32Type.get()
    off = 16 if VARIANT.startswith(("xor16", "pair16")) else 32
    if VARIANT.startswith("xor"):
        if VARIANT.endswith("_plain"):
            return [(load(tid ^ off), tid)]
        if VARIANT.endswith("_bpermute"):
            return [(by_index(v, tid ^ off), tid)]
        wrong = VARIANT.endswith("_bug")  # the other swap: 32 for 16, 16 for 32
        return [(fx.gpu.shuffle_xor(fx.Int32(v), 48 - off if wrong else off, 64), tid)]
    if VARIANT.startswith("sum"):
        s = fx.Float32(arith.sitofp(f32, v))  # float sums of integers below 2**24 are exact in any order
        for k in (16, 8, 4, 2, 1) if VARIANT == "sum_bug" else (32, 16, 8, 4, 2, 1):  # the bug skips 32
            if VARIANT == "sum_bpermute":
                other = arith.bitcast(f32, by_index(arith.bitcast(i32, _raw(s)), tid ^ k))
            else:
                other = fx.gpu.shuffle_xor(s, k, 64)
            s = s + fx.Float32(other)
        return [(arith.fptosi(i32, _raw(s)), tid)]
    if VARIANT.endswith("_plain"):  # the upper lane of each pair takes b from its partner into vdst
        upper = _raw((tid & off) != 0)
        first = load(arith.select(upper, _raw((tid ^ off) + 64), _raw(tid)))
        second = load(arith.select(upper, _raw(tid + 64), _raw(tid ^ off)))
        return [(first, tid), (second, tid + 64)]
    swap = fx.rocdl.permlane16_swap if off == 16 else fx.rocdl.permlane32_swap
    r = swap(llvm.StructType.get_literal([i32, i32]), v, load(tid + 64), False, False)
    first, second = llvm.extractvalue(i32, r, [0]), llvm.extractvalue(i32, r, [1])
    if VARIANT.endswith("_bug"):  # the two results taken in the wrong order
        first, second = second, first
    return [(first, tid), (second, tid + 64)]


@flyc.kernel
def permlane_kernel(Inp: fx.Tensor, Out: fx.Tensor):
    i32 = ir.IntegerType.get_signless(32)
    tid = fx.Int32(fx.thread_idx.x)
    rin = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Inp)))
    rout = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))

    def load(index):
        return fx.rocdl.raw_ptr_buffer_load(i32, rin, _raw(index * 4), 0)

    def by_index(value, lane):  # ds_bpermute: `value` as lane `lane` holds it (byte address lane * 4)
        return fx.rocdl.ds_bpermute(i32, _raw(lane * 4), _raw(value))

    for value, index in _outputs(load(tid), tid, load, by_index):
        fx.rocdl.raw_ptr_buffer_store(_raw(value), _raw(rout), _raw(index * 4), _raw(fx.Int32(0)))


@flyc.jit
def run(Inp: fx.Tensor, Out: fx.Tensor, stream: fx.Stream = fx.Stream(None)):  # noqa: B008
    permlane_kernel(Inp, Out).launch(grid=(1, 1, 1), block=(64, 1, 1), stream=stream)


def kernelpilot_entry():
    return run, (torch.arange(128, dtype=torch.int32), torch.zeros(128, dtype=torch.int32))
