"""bf16 GEMM C = A @ B^T through device-side TMA descriptors (tests/test_predict_hopper.py): a tiled kernel (one
program per 128x128 tile) and a persistent one (16 programs, the tile and K loops merged by flatten=True), 1024 x 1024
x 512, BK 64, 4 warps, 3 stages: 64 tiles, 4 per persistent program, 8 K steps each."""

import torch
import triton
import triton.language as tl

M, N, K, BM, BN, BK, PROGRAMS = 1024, 1024, 512, 128, 128, 64, 16


@triton.jit
def tiled(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([tl.program_id(0) * BM, k * BK])
        b = b_desc.load([tl.program_id(1) * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc.to(tl.bfloat16))


@triton.jit
def persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SMS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, SMS, flatten=True):
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = a_desc.load([(tile // tiles_n) * BM, k * BK])
            b = b_desc.load([(tile % tiles_n) * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([(tile // tiles_n) * BM, (tile % tiles_n) * BN], acc.to(tl.bfloat16))


def kernelpilot_entry():
    a, b, c = torch.empty(M, K, dtype=torch.bfloat16), torch.empty(N, K, dtype=torch.bfloat16), torch.empty(M, N)
    c = c.to(torch.bfloat16)
    opts = {"BM": BM, "BN": BN, "BK": BK, "num_warps": 4, "num_stages": 3}
    return [
        {"kernel": tiled, "args": (a, b, c, M, N, K), "kwargs": opts, "grid": (M // BM, N // BN)},
        {"kernel": persistent, "args": (a, b, c, M, N, K), "kwargs": {**opts, "SMS": PROGRAMS}, "grid": (PROGRAMS,)},
    ]
