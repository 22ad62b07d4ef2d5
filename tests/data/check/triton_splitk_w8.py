"""An int8-weight GEMM (bf16 activations, per-column fp32 scale), three ways (VARIANT, the only change a test makes):
``plain`` one program per output tile over the whole K; ``splitk`` a second phase over K: SPLIT programs per tile
each add their K slice's partial product into the output with an fp32 atomic add (the output is zeroed first);
``splitk_broken`` the same with each slice's K offset off by one slice (slice 0 is added twice, the last never)."""

import torch
import triton
import triton.language as tl

VARIANT = "plain"
SPLIT = 4


@triton.jit
def w8_gemm_kernel(
    a_ptr,
    w_ptr,
    s_ptr,
    out_ptr,
    M,
    N,
    K,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    SPLIT: tl.constexpr,
    BROKEN: tl.constexpr,
):
    pid_n = tl.program_id(0)
    pid_k = tl.program_id(1)
    rm = tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    k_per = K // SPLIT
    k0 = (pid_k - BROKEN) if pid_k >= BROKEN else 0
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, k_per, BK):
        rk = k0 * k_per + kk + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=rm[:, None] < M, other=0.0)
        w = tl.load(w_ptr + rk[:, None] * N + rn[None, :]).to(tl.bfloat16)
        acc = tl.dot(a, w, acc)
    acc = acc * tl.load(s_ptr + rn)[None, :]
    ptrs = out_ptr + rm[:, None] * N + rn[None, :]
    if SPLIT == 1:
        tl.store(ptrs, acc, mask=rm[:, None] < M)
    else:
        tl.atomic_add(ptrs, acc, mask=rm[:, None] < M)


def w8a16_matmul(a, w, scale, out=None):
    M, K = a.shape
    N = w.shape[1]
    split = 1 if VARIANT == "plain" else SPLIT
    if out is None:
        out = torch.empty((M, N), dtype=torch.float32)
    if split > 1:
        out.zero_()
    w8_gemm_kernel[(N // 32, split)](a, w, scale, out, M, N, K, BM=16, BN=32, BK=32, SPLIT=split,
                                     BROKEN=int(VARIANT == "splitk_broken"))  # fmt: skip
    return out
