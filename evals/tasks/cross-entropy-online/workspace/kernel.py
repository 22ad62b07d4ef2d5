"""Per-row cross-entropy loss[i] = -log(softmax(logits[i])[target[i]]) for (M, V) fp32 logits over a large
vocabulary (V up to 128k: a row does not fit in one program's registers, so every pass loops over the row).

Four kernels: the row max; exp(x - max) written to a probability buffer with the row sum; the buffer normalised in
place; the target's probability gathered and its -log taken."""

import torch
import triton
import triton.language as tl

BLOCK = 2048
OPTIONS = {"num_warps": 8}


@triton.jit
def row_max_kernel(x_ptr, max_ptr, V, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(x_ptr + row * V + cols, mask=cols < V, other=float("-inf")))
    tl.store(max_ptr + row, tl.max(m, 0))


@triton.jit
def exp_sum_kernel(x_ptr, max_ptr, p_ptr, sum_ptr, V, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    row_max = tl.load(max_ptr + row)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < V
        e = tl.exp(tl.load(x_ptr + row * V + cols, mask=mask, other=float("-inf")) - row_max)
        tl.store(p_ptr + row * V + cols, e, mask=mask)
        acc += e
    tl.store(sum_ptr + row, tl.sum(acc, 0))


@triton.jit
def normalize_kernel(p_ptr, sum_ptr, V, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    inv = 1.0 / tl.load(sum_ptr + row)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < V
        tl.store(p_ptr + row * V + cols, tl.load(p_ptr + row * V + cols, mask=mask) * inv, mask=mask)


@triton.jit
def nll_kernel(p_ptr, target_ptr, loss_ptr, M, V, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = rows < M
    t = tl.load(target_ptr + rows, mask=mask, other=0)
    p = tl.load(p_ptr + rows.to(tl.int64) * V + t, mask=mask, other=1.0)
    tl.store(loss_ptr + rows, -tl.log(p), mask=mask)


def forward(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    M, V = logits.shape
    row_max = torch.empty(M, device=logits.device, dtype=torch.float32)
    row_sum = torch.empty(M, device=logits.device, dtype=torch.float32)
    probs = torch.empty_like(logits)
    loss = torch.empty(M, device=logits.device, dtype=torch.float32)
    row_max_kernel[(M,)](logits, row_max, V, BLOCK=BLOCK, **OPTIONS)
    exp_sum_kernel[(M,)](logits, row_max, probs, row_sum, V, BLOCK=BLOCK, **OPTIONS)
    normalize_kernel[(M,)](probs, row_sum, V, BLOCK=BLOCK, **OPTIONS)
    nll_kernel[(triton.cdiv(M, 256),)](probs, target, loss, M, V, BLOCK=256, num_warps=4)
    return loss


def kernelpilot_entry():
    M, V = 2048, 32000
    x, p = torch.empty((M, V)), torch.empty((M, V))
    row_max, row_sum = torch.empty(M), torch.empty(M)
    args = (x, row_max, p, row_sum, V)
    return {"kernel": exp_sum_kernel, "args": args, "kwargs": {"BLOCK": BLOCK, **OPTIONS}, "grid": (M,)}
