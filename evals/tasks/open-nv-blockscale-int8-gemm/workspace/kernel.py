"""A GEMM on int8 operands quantised per block: C = dequant(A) @ dequant(B)^T.

a is (M, K) int8 with a_scale (M, K // 128) fp32: one scale per row and 128-wide group of K. b is (N, K) int8 (a
weight, one output feature per row) with b_scale (ceil(N / 128), K // 128) fp32: one scale per 128 x 128 block.
So A[m, k] = a[m, k] * a_scale[m, k // 128], B[n, k] = b[n, k] * b_scale[n // 128, k // 128], and the result is
C = A @ B^T, (M, N) fp32. K is a multiple of 128; M and N are any size.

One program per (row of A, BLOCK_N columns of C) walks K one 128-group at a time: integer products summed exactly
in fp32, then scaled by the group's two scales."""

import torch
import triton
import triton.language as tl

GROUP = 128
BLOCK_N = 64
OPTIONS = {"num_warps": 4}


@triton.jit
def blockscale_gemm_kernel(
    a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr
):
    m = tl.program_id(0)
    n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    k = tl.arange(0, GROUP)
    groups = K // GROUP
    cols = n < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for g in range(0, groups):
        a = tl.load(a_ptr + m.to(tl.int64) * K + g * GROUP + k).to(tl.float32)
        b = tl.load(b_ptr + n[:, None].to(tl.int64) * K + g * GROUP + k[None, :], mask=cols[:, None], other=0)
        part = tl.sum(b.to(tl.float32) * a[None, :], 1)
        a_s = tl.load(as_ptr + m * groups + g)
        b_s = tl.load(bs_ptr + (n // GROUP) * groups + g, mask=cols, other=0.0)
        acc += part * a_s * b_s
    tl.store(c_ptr + m.to(tl.int64) * N + n, acc, mask=cols)


def forward(a, a_scale, b, b_scale):
    M, K = a.shape
    N = b.shape[0]
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (M, triton.cdiv(N, BLOCK_N))
    blockscale_gemm_kernel[grid](a, a_scale, b, b_scale, c, N, K, GROUP=GROUP, BLOCK_N=BLOCK_N, **OPTIONS)
    return c


def kernelpilot_entry():
    M, N, K = 4096, 4096, 7168
    a, b = torch.empty((1, K), dtype=torch.int8), torch.empty((1, K), dtype=torch.int8)
    a_s, b_s = torch.empty((1, K // GROUP)), torch.empty((1, K // GROUP))
    c = torch.empty((1, N))
    kwargs = {"GROUP": GROUP, "BLOCK_N": BLOCK_N, **OPTIONS}
    grid = (M, triton.cdiv(N, BLOCK_N))
    return {"kernel": blockscale_gemm_kernel, "args": (a, a_s, b, b_s, c, N, K), "kwargs": kwargs, "grid": grid}
