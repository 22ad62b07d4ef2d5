"""Mixture-of-experts combine for a decode batch, in FlyDSL for MI300X/MI355X.

Each token was routed to TOPK experts; the experts' outputs are rows of ``Y`` (fp16, [tokens * TOPK, HIDDEN], in
expert order), ``Perm[t * TOPK + k]`` is the row holding token t's k-th expert output and ``W[t * TOPK + k]`` its
router weight (fp32). The combine writes

    Out[t, :] = sum over k of W[t * TOPK + k] * Y[Perm[t * TOPK + k], :]        (fp32 math, fp16 result)

One workgroup of 64 lanes per token; lane l owns columns l, l + 64, l + 128, ...
"""

import flydsl.compiler as flyc
import flydsl.expr as fx
import torch
from flydsl._mlir import ir

TOPK = 8
HIDDEN = 4096


def _raw(v):
    return v.ir_value() if hasattr(v, "ir_value") else v


@flyc.kernel
def combine_kernel(Y: fx.Tensor, Perm: fx.Tensor, W: fx.Tensor, Out: fx.Tensor):
    i32 = ir.IntegerType.get_signless(32)
    f16 = ir.F16Type.get()
    f32 = ir.F32Type.get()
    lane = fx.Int32(fx.thread_idx.x)
    t = fx.Int32(fx.block_idx.x)
    rsrc_y = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Y)))
    rsrc_p = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Perm)))
    rsrc_w = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(W)))
    rsrc_o = fx.rocdl.get_buffer_rsrc(fx.rocdl.make_buffer_ptr(fx.get_iter(Out)))
    rows = [fx.Int32(fx.rocdl.raw_ptr_buffer_load(i32, rsrc_p, (t * TOPK + k) * 4, 0)) for k in range(TOPK)]
    ws = [fx.Float32(fx.rocdl.raw_ptr_buffer_load(f32, rsrc_w, (t * TOPK + k) * 4, 0)) for k in range(TOPK)]
    for c in fx.range_constexpr(HIDDEN // 64):
        col = fx.Int32(c) * 64 + lane
        acc = fx.Float32(0.0)
        for k in fx.range_constexpr(TOPK):
            y = fx.Float16(fx.rocdl.raw_ptr_buffer_load(f16, rsrc_y, (rows[k] * HIDDEN + col) * 2, 0))
            acc = acc + ws[k] * y.to(fx.Float32)
        fx.rocdl.raw_ptr_buffer_store(
            _raw(acc.to(fx.Float16)), _raw(rsrc_o), _raw((t * HIDDEN + col) * 2), _raw(fx.Int32(0))
        )


@flyc.jit
def combine(Y, Perm, W, Out, tokens: fx.Constexpr[int], stream: fx.Stream = fx.Stream(None)):
    combine_kernel(Y, Perm, W, Out).launch(grid=(tokens, 1, 1), block=(64, 1, 1), stream=stream)


def kernelpilot_entry(tokens=16):
    """kernelpilot file mode: a decode batch of `tokens` tokens (16 by default), each routed to TOPK = 8 experts."""
    y = torch.empty(tokens * TOPK * HIDDEN, dtype=torch.float16)
    perm = torch.zeros(tokens * TOPK, dtype=torch.int32)
    w = torch.empty(tokens * TOPK, dtype=torch.float32)
    out = torch.empty(tokens * HIDDEN, dtype=torch.float16)
    return combine, (y, perm, w, out, tokens)
