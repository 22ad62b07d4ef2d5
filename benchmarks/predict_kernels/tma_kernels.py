"""bf16 GEMM C = A @ B^T (A: M x K, B: N x K, fp32 accumulation, bf16 out) through TMA tensor descriptors made on
the device (``tl.make_tensor_descriptor``), in the three shapes an agent writes for Hopper (issue 36): one program per
128x256 tile (tiled), one program per SM walking its tiles with the tile and K loops merged
(``tl.range(..., flatten=True)``: persistent) and split-K (SPLIT programs per tile write fp32 partials, a second kernel
sums them). Tiles 128x256x64 (split-K 128x128x64), 8 warps, 3 stages: wgmma (HGMMA) fed by UTMALDG."""

import torch
import triton
import triton.language as tl
from predict_common import H100_SMS, empty, randn, runner

BM, BN, BK, WARPS, STAGES = 128, 256, 64, 8, 3
# split-K's tile is 128 wide: on Triton 3.6 its fp32 epilogue buffer (128 x BN x 4 B) does not reuse the stages'
# shared memory, and 128 x 256 needed 278552 B, over the H200's 232448 (the run of 2026-12-02); 128 x 128: 163864 B
SPLIT_BN = 128


@triton.jit
def tma_gemm_tiled(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.bfloat16))


@triton.jit
def tma_gemm_persistent(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NUM_SMS: tl.constexpr
):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tiles_n = tl.cdiv(N, BN)
    num_tiles = tl.cdiv(M, BM) * tiles_n
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        acc = tl.zeros((BM, BN), tl.float32)
        for k in range(0, k_tiles):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([pid_n * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.bfloat16))


@triton.jit
def tma_gemm_splitk(
    a_ptr, b_ptr, w_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT: tl.constexpr
):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    w_desc = tl.make_tensor_descriptor(w_ptr, shape=[SPLIT * M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    part = tl.program_id(2)
    steps = tl.cdiv(K, BK * SPLIT)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(part * steps, part * steps + steps):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    w_desc.store([part * M + pid_m * BM, pid_n * BN], acc)


@triton.jit
def splitk_reduce(w_ptr, c_ptr, MN, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for s in range(SPLIT):
        acc += tl.load(w_ptr + s * MN + offs)
    tl.store(c_ptr + offs, acc.to(tl.bfloat16))


def tensors(device, m, n, k):
    a = randn((m, k), torch.bfloat16, device, seed=1)
    b = randn((n, k), torch.bfloat16, device, seed=2)
    return a, b, empty((m, n), torch.bfloat16, device)


def launches(kind, device, m, n, k, split=4):
    """The launch list of ``kind`` (tiled, persistent, splitk) at M x N x K."""
    a, b, c = tensors(device, m, n, k)
    opts = {"BM": BM, "BN": BN, "BK": BK, "num_warps": WARPS, "num_stages": STAGES}
    tiles = (triton.cdiv(m, BM), triton.cdiv(n, BN))
    if kind == "tiled":
        return [{"kernel": tma_gemm_tiled, "args": (a, b, c, m, n, k), "kwargs": opts, "grid": tiles}], c, (a, b)
    if kind == "persistent":
        programs = min(H100_SMS, tiles[0] * tiles[1])
        spec = {"kernel": tma_gemm_persistent, "args": (a, b, c, m, n, k), "kwargs": {**opts, "NUM_SMS": programs},
                "grid": (programs,)}  # fmt: skip
        return [spec], c, (a, b)
    w = empty((split * m, n), torch.float32, device)
    block = 1024
    return (
        [
            {
                "kernel": tma_gemm_splitk,
                "args": (a, b, w, m, n, k),
                "kwargs": {**opts, "BN": SPLIT_BN, "SPLIT": split},
                "grid": (tiles[0], triton.cdiv(n, SPLIT_BN), split),
            },  # fmt: skip
            {
                "kernel": splitk_reduce,
                "args": (w, c, m * n),
                "kwargs": {"SPLIT": split, "BLOCK": block, "num_warps": 4},
                "grid": (triton.cdiv(m * n, block),),
            },  # fmt: skip
        ],
        c,
        (a, b),
    )


def entry(kind, m, n, k):
    return launches(kind, "cpu", m, n, k)[0]


def _scratch(size, alignment, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def run(device, kind, m, n, k):
    triton.set_allocator(_scratch)  # device-side descriptors need a global scratch buffer
    specs, c, (a, b) = launches(kind, device, m, n, k)

    def launch():
        for s in specs:
            s["kernel"][s["grid"]](*s["args"], **s["kwargs"])

    shape = f"{m}x{n}x{k} bf16 TMA GEMM ({kind}), tiles {BM}x{BN}x{BK}, {WARPS} warps, {STAGES} stages"
    return runner(launch, c, lambda: (a.float() @ b.float().T).to(torch.bfloat16), 2e-2, shape, specs[0]["grid"])
