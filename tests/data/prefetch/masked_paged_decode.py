"""Test kernel (our own): a paged decode loop whose K/V tile loads are masked (the last block is partial).

One program per sequence walks its block table: block id -> K and V tiles (masked by the sequence length) -> online
softmax. Compiled in the dict form (no launch specialisation), Triton cannot prove the pointers aligned, so on gfx942
each masked element load is a scalar load in its own small branch block: a loop of many blocks.
"""

import triton
import triton.language as tl

BLOCK, D = 16, 64
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def masked_paged_decode(
    q_ptr, k_ptr, v_ptr, table_ptr, out_ptr, seq_len, max_blocks, BLOCK: tl.constexpr, D: tl.constexpr
):
    seq = tl.program_id(0)
    d = tl.arange(0, D)
    t = tl.arange(0, BLOCK)
    q = tl.load(q_ptr + seq * D + d)
    m_i = -float("inf")
    l_i = 0.0
    acc = tl.zeros((D,), dtype=tl.float32)
    for i in range(tl.cdiv(seq_len, BLOCK)):
        blk = tl.load(table_ptr + seq * max_blocks + i)
        pos = i * BLOCK + t
        mask = (pos < seq_len)[:, None]
        offs = blk * BLOCK * D + t[:, None] * D + d[None, :]
        k = tl.load(k_ptr + offs, mask=mask, other=0.0)
        v = tl.load(v_ptr + offs, mask=mask, other=0.0)
        s = tl.where(pos < seq_len, tl.sum(k * q[None, :], 1), -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, 0))
        p = tl.exp(s - m_new)
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 0)
        acc = acc * alpha + tl.sum(p[:, None] * v, 0)
        m_i = m_new
    tl.store(out_ptr + seq * D + d, acc / l_i)


def kernelpilot_entry():
    return {
        "kernel": masked_paged_decode,
        "signature": {
            "q_ptr": "*fp16",
            "k_ptr": "*fp16",
            "v_ptr": "*fp16",
            "table_ptr": "*i32",
            "out_ptr": "*fp16",
            "seq_len": "i32",
            "max_blocks": "i32",
            "BLOCK": "constexpr",
            "D": "constexpr",
        },
        "constexprs": {"BLOCK": BLOCK, "D": D},
        "options": OPTIONS,
    }
