"""A latency-bound fp16 GEMM K-loop (issue 31, num_stages): C = A @ B with M = N = 512, K = 8192, one 32x32 C tile
per program (256 programs of 4 warps, fewer than two per SM), 256 K-iterations of a 32-wide tl.dot; its tiles are
re-read from L2, so each iteration waits on a load latency unless the cp.async pipeline (num_stages) keeps the next
tiles in flight. The same kernel as examples/prefetch/triton_dot; num_stages 1 to 4 are the variants."""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

M, N, K = 512, 512, 8192
BM = BN = BK = 32


@triton.jit
def lstages_kernel(a_ptr, b_ptr, c_ptr, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def launch_spec(device, num_stages):
    a = randn((M, K), torch.float16, device, seed=1)
    b = randn((K, N), torch.float16, device, seed=2)
    c = empty((M, N), torch.float32, device)
    kwargs = {"BM": BM, "BN": BN, "BK": BK, "num_warps": 4, "num_stages": num_stages}
    return {"kernel": lstages_kernel, "args": (a, b, c, N, K), "kwargs": kwargs, "grid": (M // BM, N // BN)}


def entry(num_stages):
    return launch_spec("cpu", num_stages)


def run(device, num_stages):
    spec = launch_spec(device, num_stages)
    a, b, c = spec["args"][:3]

    def launch():
        lstages_kernel[spec["grid"]](*spec["args"], **spec["kwargs"])

    shape = f"{M}x{N}x{K} fp16, tiles {BM}x{BN}x{BK}, 4 warps, {num_stages} stage(s)"
    return runner(launch, c, lambda: a.float() @ b.float(), 1e-2, shape, spec["grid"])
