"""Paged decode attention over an int8 KV cache with one fp32 scale per cache block.

One program per sequence walks its block table: block id → scale → K and V tiles → online softmax. Every step
starts with a dependent chain (table load, then the scale and the K/V addresses that need it), so each iteration
pays the full latency of the table and scale loads before any math can start.
"""

import torch
import triton
import triton.language as tl

BLOCK, D = 16, 128
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def paged_decode_kernel(
    q_ptr, k_ptr, v_ptr, scale_ptr, table_ptr, out_ptr, num_blocks, max_blocks, BLOCK: tl.constexpr, D: tl.constexpr
):
    seq = tl.program_id(0)
    d = tl.arange(0, D)
    t = tl.arange(0, BLOCK)
    q = tl.load(q_ptr + seq * D + d)
    m_i = -float("inf")
    l_i = 0.0
    acc = tl.zeros((D,), dtype=tl.float32)
    for i in range(num_blocks):
        blk = tl.load(table_ptr + seq * max_blocks + i)
        scale = tl.load(scale_ptr + blk)
        offs = blk * BLOCK * D + t[:, None] * D + d[None, :]
        k = tl.load(k_ptr + offs).to(tl.float32) * scale
        v = tl.load(v_ptr + offs).to(tl.float32) * scale
        s = tl.sum(k * q[None, :], 1)
        m_new = tl.maximum(m_i, tl.max(s, 0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 0)
        acc = acc * alpha + tl.sum(p[:, None] * v, 0)
        m_i = m_new
    tl.store(out_ptr + seq * D + d, acc / l_i)


def forward(q, k_cache, v_cache, scales, table, num_blocks):
    out = torch.empty_like(q)
    n = int(num_blocks.item())
    paged_decode_kernel[(q.shape[0],)](
        q, k_cache, v_cache, scales, table, out, n, table.shape[1], BLOCK=BLOCK, D=D, **OPTIONS
    )
    return out


def kernelpilot_entry():
    """The launch forward() makes for 4 sequences of 6 blocks from a pool of 32. CPU tensors stand in: Triton's JIT specialises on
    dtypes, 16-byte alignment and integer values, and so does kernelpilot from these example arguments
    (kernelpilot README, "File mode")."""
    seqs, blocks, pool = 4, 6, 32
    q = torch.empty(seqs, D)
    k_cache = torch.empty(pool, BLOCK, D, dtype=torch.int8)
    v_cache = torch.empty(pool, BLOCK, D, dtype=torch.int8)
    scales = torch.empty(pool)
    table = torch.zeros(seqs, blocks, dtype=torch.int32)
    out = torch.empty_like(q)
    return {
        "kernel": paged_decode_kernel,
        "args": (q, k_cache, v_cache, scales, table, out, blocks, table.shape[1]),
        "kwargs": {"BLOCK": BLOCK, "D": D, **OPTIONS},
        "grid": (seqs,),
    }
