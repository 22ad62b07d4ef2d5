"""A weight-only int8 tile product in bf16, as w8a16 GEMMs write it: the int8 weights cast to bf16 and fed with the
bf16 activations to ``tl.dot`` (fp32 accumulate). Triton 3.9's interpreter gets both the int8 -> bf16 cast and the
bf16 dot wrong, so check's interpreter engine must not give a verdict on it. ``SCALE`` (the only change a test makes)
scales the result."""

import torch
import triton
import triton.language as tl

SCALE = 1.0


@triton.jit
def w8_tile_kernel(a_ptr, w_ptr, out_ptr, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None] * BLOCK
    cols = tl.arange(0, BLOCK)[None, :]
    a = tl.load(a_ptr + rows + cols)
    w = tl.load(w_ptr + rows + cols).to(tl.bfloat16)
    acc = tl.dot(a, w)
    tl.store(out_ptr + rows + cols, acc * SCALE)


def w8_tile(a, w, out=None):
    if out is None:
        out = torch.empty(a.shape, dtype=torch.float32)
    w8_tile_kernel[(1,)](a, w, out, BLOCK=a.shape[0], SCALE=SCALE)
    return out
