"""bf16 GEMM C = A @ B^T through device-side TMA descriptors with a warp-specialised K loop
(``tl.range(..., warp_specialize=True)``; tests/test_predict_warpspec.py), 1024 x 1024 x 512, tiles 128x128x64, 3
stages. At num_warps=4 Triton 3.9 splits it for sm_90 into a 4-warp producer (the default partition: TMA loads) and
two 4-warp consumers (each wgmma on a 64x128 half of the tile): 12 warps, 384 threads. At num_warps=8 (``ws8``) the
same source is not split: the hint stays on the loop and the loop is software-pipelined as without it."""

import torch
import triton
import triton.language as tl

M, N, K, BM, BN, BK = 1024, 1024, 512, 128, 128, 64


@triton.jit
def ws_tiled(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([tl.program_id(0) * BM, k * BK])
        b = b_desc.load([tl.program_id(1) * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc.to(tl.bfloat16))


@triton.jit
def ws8(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([tl.program_id(0) * BM, k * BK])
        b = b_desc.load([tl.program_id(1) * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc.to(tl.bfloat16))


def kernelpilot_entry():
    a, b = torch.empty(M, K, dtype=torch.bfloat16), torch.empty(N, K, dtype=torch.bfloat16)
    c = torch.empty(M, N, dtype=torch.bfloat16)
    opts = {"BM": BM, "BN": BN, "BK": BK, "num_stages": 3}
    grid = (M // BM, N // BN)
    return [
        {"kernel": ws_tiled, "args": (a, b, c, M, N, K), "kwargs": {**opts, "num_warps": 4}, "grid": grid},
        {"kernel": ws8, "args": (a, b, c, M, N, K), "kwargs": {**opts, "num_warps": 8}, "grid": grid},
    ]
