"""Decode attention (one query token per head, fp16 K/V cache [B*H, CTX, D]): one program per head walking the whole
context, or the context split over SPLITS programs per head (flash-decoding) and a merge kernel. K and V are read
once either way (2 * B*H*CTX*D * 2 bytes = 268 MB); what differs is how many bytes are in flight per SM."""

import math

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

B, H, CTX, D = 4, 32, 16384, 128
BLOCK_N = 64
SPLITS = 32
SCALE = 1.0 / math.sqrt(D)


@triton.jit
def _attend(q, k_ptr, v_ptr, base, start, stop, D: tl.constexpr, BLOCK_N: tl.constexpr):
    """Online softmax over tokens [start, stop): (unnormalised acc [D], running max, running sum)."""
    d = tl.arange(0, D)
    n = tl.arange(0, BLOCK_N)
    m_i = tl.max(tl.full((BLOCK_N,), float("-inf"), tl.float32), 0)
    l_i = tl.sum(tl.zeros((BLOCK_N,), tl.float32), 0)
    acc = tl.zeros((D,), tl.float32)
    for tok in range(start, stop, BLOCK_N):
        offs = base + (tok + n)[:, None] * D + d[None, :]
        k = tl.load(k_ptr + offs).to(tl.float32)
        v = tl.load(v_ptr + offs).to(tl.float32)
        s = tl.sum(k * q[None, :], 1)
        m_new = tl.maximum(m_i, tl.max(s, 0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m_i - m_new)
        acc = acc * alpha + tl.sum(p[:, None] * v, 0)
        l_i = l_i * alpha + tl.sum(p, 0)
        m_i = m_new
    return acc, m_i, l_i


@triton.jit
def decode_whole_kernel(q_ptr, k_ptr, v_ptr, o_ptr, ctx, scale, D: tl.constexpr, BLOCK_N: tl.constexpr):
    bh = tl.program_id(0)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + bh * D + d).to(tl.float32) * scale
    acc, m_i, l_i = _attend(q, k_ptr, v_ptr, bh.to(tl.int64) * ctx * D, 0, ctx, D, BLOCK_N)
    tl.store(o_ptr + bh * D + d, acc / l_i)


@triton.jit
def decode_split_kernel(
    q_ptr, k_ptr, v_ptr, part_ptr, ml_ptr, ctx, scale, SPLITS: tl.constexpr, D: tl.constexpr, BLOCK_N: tl.constexpr
):
    bh = tl.program_id(0)
    split = tl.program_id(1)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + bh * D + d).to(tl.float32) * scale
    per = ctx // SPLITS
    acc, m_i, l_i = _attend(q, k_ptr, v_ptr, bh.to(tl.int64) * ctx * D, split * per, split * per + per, D, BLOCK_N)
    row = bh * SPLITS + split
    tl.store(part_ptr + row * D + d, acc)
    tl.store(ml_ptr + row * 2, m_i)
    tl.store(ml_ptr + row * 2 + 1, l_i)


@triton.jit
def decode_merge_kernel(part_ptr, ml_ptr, o_ptr, SPLITS: tl.constexpr, D: tl.constexpr):
    bh = tl.program_id(0)
    s = tl.arange(0, SPLITS)
    d = tl.arange(0, D)
    m = tl.load(ml_ptr + (bh * SPLITS + s) * 2)
    l_s = tl.load(ml_ptr + (bh * SPLITS + s) * 2 + 1)
    w = tl.exp(m - tl.max(m, 0))
    part = tl.load(part_ptr + (bh * SPLITS + s)[:, None] * D + d[None, :])
    out = tl.sum(part * w[:, None], 0) / tl.sum(l_s * w, 0)
    tl.store(o_ptr + bh * D + d, out)


def tensors(device):
    q = randn((B * H, D), torch.float16, device, seed=1)
    k = randn((B * H, CTX, D), torch.float16, device, seed=2)
    v = randn((B * H, CTX, D), torch.float16, device, seed=3)
    o = empty((B * H, D), torch.float32, device)
    part = empty((B * H * SPLITS, D), torch.float32, device)
    ml = empty((B * H * SPLITS, 2), torch.float32, device)
    return q, k, v, o, part, ml


def whole_launches(q, k, v, o, part, ml):
    return [
        {
            "kernel": decode_whole_kernel,
            "args": (q, k, v, o, CTX, SCALE),
            "kwargs": {"D": D, "BLOCK_N": BLOCK_N, "num_warps": 4},
            "grid": (B * H,),
        }
    ]


def split_launches(q, k, v, o, part, ml):
    return [
        {
            "kernel": decode_split_kernel,
            "args": (q, k, v, part, ml, CTX, SCALE),
            "kwargs": {"SPLITS": SPLITS, "D": D, "BLOCK_N": BLOCK_N, "num_warps": 4},
            "grid": (B * H, SPLITS),
        },
        {
            "kernel": decode_merge_kernel,
            "args": (part, ml, o),
            "kwargs": {"SPLITS": SPLITS, "D": D, "num_warps": 4},
            "grid": (B * H,),
        },
    ]


def paged_decode(q, k, v, o, part, ml):
    """The host function a user would write: the split kernel, then the merge kernel."""
    for spec in split_launches(q, k, v, o, part, ml):
        spec["kernel"][spec["grid"]](*spec["args"], **spec["kwargs"])
    return o


def launch_all(specs):
    for spec in specs:
        spec["kernel"][spec["grid"]](*spec["args"], **spec["kwargs"])


def run(device, make_launches):
    ts = tensors(device)
    q, k, v, o = ts[:4]
    specs = make_launches(*ts)

    def reference():
        s = torch.einsum("bd,bnd->bn", q.float() * SCALE, k.float())
        return torch.einsum("bn,bnd->bd", torch.softmax(s, -1), v.float())

    shape = f"B={B} H={H} ctx={CTX} D={D} fp16, {len(specs)} launch(es)"
    return runner(lambda: launch_all(specs), o, reference, 2e-3, shape)
