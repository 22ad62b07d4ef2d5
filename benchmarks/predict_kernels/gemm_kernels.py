"""fp16 GEMM C = A @ B (4096^3, fp32 accumulation, fp16 out): tensor-core bound once the tiles are fed. Tile sizes
and num_stages (software pipelining of the A/B tile loads) are the variables."""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

M = N = K = 4096


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


def launch_spec(device, bm, bn, bk, num_warps, num_stages):
    a = randn((M, K), torch.float16, device, seed=1)
    b = randn((K, N), torch.float16, device, seed=2)
    c = empty((M, N), torch.float16, device)
    kwargs = {"BM": bm, "BN": bn, "BK": bk, "num_warps": num_warps, "num_stages": num_stages}
    return {"kernel": gemm_kernel, "args": (a, b, c, M, N, K), "kwargs": kwargs, "grid": (M // bm, N // bn)}


def entry(*config):
    return launch_spec("cpu", *config)


def run(device, *config):
    spec = launch_spec(device, *config)
    a, b, c = spec["args"][:3]

    def launch():
        gemm_kernel[spec["grid"]](*spec["args"], **spec["kwargs"])

    bm, bn, bk, warps, stages = config
    shape = f"{M}x{N}x{K} fp16, tiles {bm}x{bn}x{bk}, {warps} warps, {stages} stages"
    return runner(launch, c, lambda: (a.float() @ b.float()).half(), 1e-2, shape, spec["grid"])
