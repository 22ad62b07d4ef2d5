"""The GEMV of w8a16.py with a bug: the int8 weights are read as uint8 (negative weights become
128..255); same host function, no entry."""

import torch
import triton
import triton.language as tl


@triton.jit
def w8a16_gemv_kernel(a_ptr, w_ptr, scale_ptr, out_ptr, K, N, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + k, mask=k < K, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + k[:, None] * N + n[None, :], mask=(k[:, None] < K) & (n[None, :] < N), other=0)
        acc += tl.sum(a[:, None] * w.to(tl.uint8).to(tl.float32), axis=0)
    s = tl.load(scale_ptr + n, mask=n < N, other=0.0)
    tl.store(out_ptr + n, acc * s, mask=n < N)


def w8a16_gemv(a, w, scale, out=None, block_n=32):
    """out[n] = sum_k a[k] * w[k, n] * scale[n]."""
    K, N = w.shape
    if out is None:
        out = torch.empty(N, dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(N, block_n),)
    w8a16_gemv_kernel[grid](a, w, scale, out, K, N, BLOCK_K=16, BLOCK_N=block_n)
    return out
