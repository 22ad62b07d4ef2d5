"""bf16 GEMM C = A @ B^T through device-side TMA descriptors with a warp-specialised loop
(``tl.range(..., warp_specialize=True)``, issue 36): ``tiled`` (one program per 128x256 tile, the K loop
specialised) and ``persistent`` (one program per SM walking its tiles, the tile loop specialised, no flatten: Triton
3.9 does not specialise a flatten=True nest). num_warps=4: Triton 3.9 makes a 4-warp TMA producer and two 4-warp
wgmma consumers (12 warps). Tiles 128x256x64, 3 stages, as tma_kernels.py's."""

import torch
import triton
import triton.language as tl
from predict_common import H100_SMS, empty, randn, runner
from tma_kernels import _scratch  # the device-side descriptors' scratch allocator, shared

BM, BN, BK, WARPS, STAGES = 128, 256, 64, 4, 3


@triton.jit
def ws_gemm_tiled(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.bfloat16))


@triton.jit
def ws_gemm_persistent(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NUM_SMS: tl.constexpr
):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tiles_n = tl.cdiv(N, BN)
    num_tiles = tl.cdiv(M, BM) * tiles_n
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS, warp_specialize=True):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([pid_n * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.bfloat16))


def launches(kind, device, m, n, k):
    """The launch list of ``kind`` (tiled, persistent) at M x N x K."""
    a = randn((m, k), torch.bfloat16, device, seed=1)
    b = randn((n, k), torch.bfloat16, device, seed=2)
    c = empty((m, n), torch.bfloat16, device)
    opts = {"BM": BM, "BN": BN, "BK": BK, "num_warps": WARPS, "num_stages": STAGES}
    tiles = (triton.cdiv(m, BM), triton.cdiv(n, BN))
    if kind == "tiled":
        return [{"kernel": ws_gemm_tiled, "args": (a, b, c, m, n, k), "kwargs": opts, "grid": tiles}], c, (a, b)
    programs = min(H100_SMS, tiles[0] * tiles[1])
    spec = {"kernel": ws_gemm_persistent, "args": (a, b, c, m, n, k), "kwargs": {**opts, "NUM_SMS": programs},
            "grid": (programs,)}  # fmt: skip
    return [spec], c, (a, b)


def entry(kind, m, n, k):
    return launches(kind, "cpu", m, n, k)[0]


def kernelpilot_entry(kind="tiled", m=4096, n=4096, k=4096):
    return entry(kind, m, n, k)


def run(device, kind, m, n, k):
    triton.set_allocator(_scratch)  # device-side descriptors need a global scratch buffer
    specs, c, (a, b) = launches(kind, device, m, n, k)

    def launch():
        for s in specs:
            s["kernel"][s["grid"]](*s["args"], **s["kwargs"])

    shape = f"{m}x{n}x{k} bf16 warp-specialised TMA GEMM ({kind}), tiles {BM}x{BN}x{BK}, {WARPS} warps, {STAGES} stages"
    return runner(launch, c, lambda: (a.float() @ b.float().T).to(torch.bfloat16), 2e-2, shape, specs[0]["grid"])
