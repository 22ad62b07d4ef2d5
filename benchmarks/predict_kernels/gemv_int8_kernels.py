"""int8 weight-only GEMV: y = (W * scale[:, None]) @ x for W int8 [16384, 16384] (256 MB), per-row fp32 scales and an
fp16 x. Memory bound on W. One row per program loads 1 KB of W per iteration; a BLOCK_N-row tile per program loads
BLOCK_N rows at once and reuses each x chunk across them."""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

N, K = 16384, 16384


@triton.jit
def gemv_int8_kernel(w_ptr, scale_ptr, x_ptr, y_ptr, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    k = tl.arange(0, BLOCK_K)
    w_ptrs = w_ptr + rows.to(tl.int64)[:, None] * K + k[None, :]
    acc = tl.zeros((BLOCK_N, BLOCK_K), tl.float32)
    for start in range(0, K, BLOCK_K):
        w = tl.load(w_ptrs + start).to(tl.float32)
        x = tl.load(x_ptr + start + k).to(tl.float32)
        acc += w * x[None, :]
    y = tl.sum(acc, 1) * tl.load(scale_ptr + rows)
    tl.store(y_ptr + rows, y)


def launch_spec(device, block_n, block_k, num_warps):
    if str(device) == "cpu":
        w = torch.empty((N, K), dtype=torch.int8)
    else:
        gen = torch.Generator(device=device).manual_seed(1)
        w = torch.randint(-127, 128, (N, K), generator=gen, device=device, dtype=torch.int8)
    scale = randn((N,), torch.float32, device, seed=2).abs() / 127
    x = randn((K,), torch.float16, device, seed=3)
    y = empty((N,), torch.float32, device)
    kwargs = {"BLOCK_N": block_n, "BLOCK_K": block_k, "num_warps": num_warps}
    return {"kernel": gemv_int8_kernel, "args": (w, scale, x, y, N, K), "kwargs": kwargs, "grid": (N // block_n,)}


def entry(*config):
    return launch_spec("cpu", *config)


def run(device, *config):
    spec = launch_spec(device, *config)
    w, scale, x, y = spec["args"][:4]

    def launch():
        gemv_int8_kernel[spec["grid"]](*spec["args"], **spec["kwargs"])

    def reference():
        return (w.float() @ x.float()) * scale

    block_n, block_k, warps = config
    shape = f"W int8 {N}x{K}, {block_n} row(s) x {block_k} per program, {warps} warps"
    return runner(launch, y, reference, 1e-3, shape, spec["grid"])
