"""Log-softmax over a language model's vocabulary: out[m, v] = logits[m, v] - log(sum_u exp(logits[m, u])).

logits is (M, V) fp32 contiguous: one row per sequence being decoded, V the vocabulary size; out is (M, V) fp32.

One program per row: a pass for the row max, a pass for the sum of exponentials, and a pass that writes."""

import torch
import triton
import triton.language as tl

BLOCK = 1024
OPTIONS = {"num_warps": 4}


@triton.jit
def log_softmax_kernel(x_ptr, out_ptr, V, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * V
    cols = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(0, V, BLOCK):
        x = tl.load(x_ptr + base + start + cols, mask=start + cols < V, other=float("-inf"))
        m = tl.maximum(m, x)
    row_max = tl.max(m, 0)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, V, BLOCK):
        x = tl.load(x_ptr + base + start + cols, mask=start + cols < V, other=float("-inf"))
        s += tl.exp(x - row_max)
    lse = row_max + tl.log(tl.sum(s, 0))
    for start in range(0, V, BLOCK):
        mask = start + cols < V
        x = tl.load(x_ptr + base + start + cols, mask=mask, other=0.0)
        tl.store(out_ptr + base + start + cols, x - lse, mask=mask)


def forward(logits):
    M, V = logits.shape
    out = torch.empty_like(logits)
    log_softmax_kernel[(M,)](logits, out, V, BLOCK=BLOCK, **OPTIONS)
    return out


def kernelpilot_entry():
    M, V = 64, 262144
    x = out = torch.empty((1, BLOCK))  # only dtype and alignment matter to the compiler
    return {"kernel": log_softmax_kernel, "args": (x, out, V), "kwargs": {"BLOCK": BLOCK, **OPTIONS}, "grid": (M,)}
