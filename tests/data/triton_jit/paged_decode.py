"""Single-query attention over a paged KV cache: a masked-load decode loop (one program per sequence and head).

Each iteration looks up a physical block in the block table and loads a BLOCK x D tile of K and of V, masked at the
sequence's end; an online softmax folds the tile into the running output.
"""

import torch
import triton
import triton.language as tl

SEQS, D, BLOCK, MAX_BLOCKS = 64, 64, 16, 32


@triton.jit
def paged_decode_kernel(
    q_ptr, k_cache, v_cache, block_table, seq_lens, out_ptr, max_blocks, scale, BLOCK: tl.constexpr, D: tl.constexpr
):
    seq = tl.program_id(0)
    seq_len = tl.load(seq_lens + seq)
    d = tl.arange(0, D)
    t = tl.arange(0, BLOCK)
    q = tl.load(q_ptr + seq * D + d).to(tl.float32)
    m = tl.full((), -float("inf"), tl.float32)
    l_sum = tl.zeros((), tl.float32)
    acc = tl.zeros((D,), tl.float32)
    for b in range(0, tl.cdiv(seq_len, BLOCK)):
        phys = tl.load(block_table + seq * max_blocks + b)
        mask = b * BLOCK + t < seq_len
        tile = phys * BLOCK * D + t[:, None] * D + d[None, :]
        k = tl.load(k_cache + tile, mask=mask[:, None], other=0.0).to(tl.float32)
        s = tl.where(mask, tl.sum(k * q[None, :], 1) * scale, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, 0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m - m_new)
        v = tl.load(v_cache + tile, mask=mask[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, 0)
        l_sum = l_sum * alpha + tl.sum(p, 0)
        m = m_new
    tl.store(out_ptr + seq * D + d, (acc / l_sum).to(tl.float16))


def example(device="cpu"):
    """(args, kwargs, grid) of one launch: SEQS sequences of 1..MAX_BLOCKS*BLOCK tokens in a shuffled cache."""
    gen = torch.Generator(device="cpu").manual_seed(0)
    blocks = SEQS * MAX_BLOCKS
    q = torch.randn(SEQS, D, generator=gen).to(device=device, dtype=torch.float16)
    k = torch.randn(blocks, BLOCK, D, generator=gen).to(device=device, dtype=torch.float16)
    v = torch.randn(blocks, BLOCK, D, generator=gen).to(device=device, dtype=torch.float16)
    table = torch.randperm(blocks, generator=gen).to(torch.int32).reshape(SEQS, MAX_BLOCKS).to(device)
    lens = torch.randint(1, MAX_BLOCKS * BLOCK + 1, (SEQS,), generator=gen).to(torch.int32).to(device)
    out = torch.empty(SEQS, D, device=device, dtype=torch.float16)
    args = (q, k, v, table, lens, out, MAX_BLOCKS, D**-0.5)
    return args, {"BLOCK": BLOCK, "D": D, "num_warps": 2}, (SEQS,)


def kernelpilot_entry():
    args, kwargs, grid = example()
    return {"kernel": paged_decode_kernel, "args": args, "kwargs": kwargs, "grid": grid}
