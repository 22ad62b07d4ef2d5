"""Row log-sum-exp for MI300X/MI355X: out[i] = log(sum_j exp(x[i, j])) over fp32 rows of any length, one program
per row. The row is walked in BLOCK-wide chunks; each chunk's max and sum are reductions across the workgroup's
waves (LDS and s_barrier), merged into a running max and a running rescaled sum."""

import torch
import triton
import triton.language as tl

BLOCK = 1024
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def row_lse_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.full((), 0.0, tl.float32)
    for start in range(0, N, BLOCK):
        c = start + cols
        x = tl.load(x_ptr + row * N + c, mask=c < N, other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, 0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), 0)
        m = m_new
    tl.store(out_ptr + row, m + tl.log(s))


def forward(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_lse_kernel[(M,)](x, out, N, BLOCK=BLOCK, **OPTIONS)
    return out


def kernelpilot_entry():
    M, N = 4096, 32768
    x, out = torch.empty((M, N)), torch.empty(M)
    return {"kernel": row_lse_kernel, "args": (x, out, N), "kwargs": {"BLOCK": BLOCK, **OPTIONS}, "grid": (M,)}
