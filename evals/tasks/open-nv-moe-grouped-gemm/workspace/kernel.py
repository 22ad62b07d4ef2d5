"""The expert projection of a mixture-of-experts layer, tokens already grouped by expert.

x is (T, K) fp16: the routed tokens, sorted so that expert e owns rows offsets[e] to offsets[e + 1] - 1
(offsets is (E + 1,) int32, offsets[0] = 0, offsets[E] = T; an expert may own no rows). w is (E, N, K) fp16: one
weight per expert, one output feature per row. out[t] = x[t] @ w[e]^T for the expert e owning row t, (T, N) fp32.

One program per (token, BLOCK_N output features) finds its expert, then walks K BLOCK_K at a time."""

import torch
import triton
import triton.language as tl

BLOCK_N = 64
BLOCK_K = 64
OPTIONS = {"num_warps": 4}


@triton.jit
def moe_rows_kernel(
    x_ptr, w_ptr, offsets_ptr, out_ptr, N, K, E, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    t = tl.program_id(0)
    n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    kk = tl.arange(0, BLOCK_K)
    expert = 0
    for e in range(1, E):  # the last expert whose first row is at or before t
        if tl.load(offsets_ptr + e) <= t:
            expert = e
    cols = n < N
    w_rows = w_ptr + (expert * N + n[:, None]).to(tl.int64) * K
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + kk
        xv = tl.load(x_ptr + t.to(tl.int64) * K + k, mask=k < K, other=0.0).to(tl.float32)
        wv = tl.load(w_rows + k[None, :], mask=cols[:, None] & (k[None, :] < K), other=0.0).to(tl.float32)
        acc += tl.sum(wv * xv[None, :], 1)
    tl.store(out_ptr + t.to(tl.int64) * N + n, acc, mask=cols)


def forward(x, w, offsets):
    T, K = x.shape
    E, N, _ = w.shape
    out = torch.empty((T, N), device=x.device, dtype=torch.float32)
    grid = (T, triton.cdiv(N, BLOCK_N))
    moe_rows_kernel[grid](x, w, offsets, out, N, K, E, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, **OPTIONS)
    return out


def kernelpilot_entry():
    T, E, K, N = 8192, 8, 2048, 4096
    x = torch.empty((1, K), dtype=torch.float16)
    w = torch.empty((1, K), dtype=torch.float16)  # only dtype and alignment matter to the compiler
    offsets = torch.empty((E + 1,), dtype=torch.int32)
    out = torch.empty((1, N))
    kwargs = {"BLOCK_N": BLOCK_N, "BLOCK_K": BLOCK_K, **OPTIONS}
    grid = (T, triton.cdiv(N, BLOCK_N))
    return {"kernel": moe_rows_kernel, "args": (x, w, offsets, out, N, K, E), "kwargs": kwargs, "grid": grid}
