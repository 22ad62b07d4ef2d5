"""Mixture-of-experts router (the gating step) for a batch of tokens, in Triton for MI300X/MI355X.

logits [T, E] (fp16 or fp32, one row per token, E experts): p = softmax(logits[t]) over the experts (fp32 math); the
TOPK experts of largest logit, in descending order of logit (equal logits: the lower expert index first), give
topk_idx [T, TOPK] int32 and topk_weight [T, TOPK] fp32 = their p renormalised to sum to 1 over the TOPK.
route() returns (topk_weight, topk_idx); forward() returns both in one [T, 2 * TOPK] fp32 tensor (the weights, then
the indices) for the oracle.

Three launches, one program per token each: the softmax writes p [T, E] fp32, the selection reads the row of p again
for each of the TOPK picks (the next pick is the largest entry below the previous one in (value, lower index) order),
and the last kernel renormalises the picked values.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(logits_ptr, probs_ptr, E, BLOCK_E: tl.constexpr):
    t = tl.program_id(0)
    cols = tl.arange(0, BLOCK_E)
    mask = cols < E
    x = tl.load(logits_ptr + t * E + cols, mask=mask, other=-float("inf")).to(tl.float32)
    p = tl.exp(x - tl.max(x, axis=0))
    tl.store(probs_ptr + t * E + cols, p / tl.sum(p, axis=0), mask=mask)


@triton.jit
def select_kernel(probs_ptr, val_ptr, idx_ptr, E, TOPK: tl.constexpr, BLOCK_E: tl.constexpr):
    t = tl.program_id(0)
    cols = tl.arange(0, BLOCK_E)
    mask = cols < E
    prev_v = float("inf")
    prev_i = -1
    for j in tl.static_range(TOPK):
        p = tl.load(probs_ptr + t * E + cols, mask=mask, other=-1.0)
        below = (p < prev_v) | ((p == prev_v) & (cols > prev_i))
        p = tl.where(below & mask, p, -1.0)
        v = tl.max(p, axis=0)
        i = tl.min(tl.where(p == v, cols, BLOCK_E), axis=0)
        tl.store(val_ptr + t * TOPK + j, v)
        tl.store(idx_ptr + t * TOPK + j, i)
        prev_v = v
        prev_i = i


@triton.jit
def renorm_kernel(val_ptr, weight_ptr, TOPK: tl.constexpr, BLOCK_K: tl.constexpr):
    t = tl.program_id(0)
    ks = tl.arange(0, BLOCK_K)
    mask = ks < TOPK
    v = tl.load(val_ptr + t * TOPK + ks, mask=mask, other=0.0)
    tl.store(weight_ptr + t * TOPK + ks, v / tl.sum(v, axis=0), mask=mask)


def route(logits, topk):
    """(topk_weight [T, topk] fp32, topk_idx [T, topk] int32) for logits [T, E], 1 <= topk <= E."""
    T, E = logits.shape
    probs = torch.empty(T, E, dtype=torch.float32, device=logits.device)
    vals = torch.empty(T, topk, dtype=torch.float32, device=logits.device)
    weight = torch.empty(T, topk, dtype=torch.float32, device=logits.device)
    idx = torch.empty(T, topk, dtype=torch.int32, device=logits.device)
    block_e = triton.next_power_of_2(E)
    softmax_kernel[(T,)](logits, probs, E, BLOCK_E=block_e, num_warps=4)
    select_kernel[(T,)](probs, vals, idx, E, TOPK=topk, BLOCK_E=block_e, num_warps=4)
    renorm_kernel[(T,)](vals, weight, TOPK=topk, BLOCK_K=triton.next_power_of_2(topk), num_warps=1)
    return weight, idx


def forward(logits, topk):
    """route()'s two results in one [T, 2 * topk] fp32 tensor: the weights, then the expert indices."""
    weight, idx = route(logits, topk)
    return torch.cat((weight, idx.to(torch.float32)), dim=1)


def kernelpilot_entry():
    """A prefill batch: 4096 tokens routed over 128 experts, top-8, fp32 logits."""
    T, E, topk = 4096, 128, 8
    return {"call": forward, "args": (torch.empty(T, E, dtype=torch.float32), topk), "kwargs": {}}
