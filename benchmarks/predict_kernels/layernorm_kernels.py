"""LayerNorm over rows of 8192 fp32 values (8192 rows, 256 MB in, 256 MB out), one program per row, 1024 columns per
iteration. Two-pass: a loop for the mean, a loop for the variance, a loop to normalise (three reads of the row).
One-pass: sum and sum of squares in one loop, then the normalising loop (two reads)."""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

M, N = 8192, 8192
BLOCK = 1024
EPS = 1e-5


@triton.jit
def _normalise(x_row, y_row, w_ptr, b_ptr, mean, rstd, N, BLOCK: tl.constexpr):
    c = tl.arange(0, BLOCK)
    for start in range(0, N, BLOCK):
        x = tl.load(x_row + start + c)
        y = (x - mean) * rstd * tl.load(w_ptr + start + c) + tl.load(b_ptr + start + c)
        tl.store(y_row + start + c, y)


@triton.jit
def layernorm_two_pass_kernel(x_ptr, y_ptr, w_ptr, b_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * N
    c = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        acc += tl.load(x_ptr + row + start + c)
    mean = tl.sum(acc, 0) / N
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        d = tl.load(x_ptr + row + start + c) - mean
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, 0) / N + eps)
    _normalise(x_ptr + row, y_ptr + row, w_ptr, b_ptr, mean, rstd, N, BLOCK)


@triton.jit
def layernorm_one_pass_kernel(x_ptr, y_ptr, w_ptr, b_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * N
    c = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    acc2 = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row + start + c)
        acc += x
        acc2 += x * x
    mean = tl.sum(acc, 0) / N
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, 0) / N - mean * mean + eps)
    _normalise(x_ptr + row, y_ptr + row, w_ptr, b_ptr, mean, rstd, N, BLOCK)


def launch_spec(device, one_pass):
    x = randn((M, N), torch.float32, device, seed=1)
    w = randn((N,), torch.float32, device, seed=2)
    b = randn((N,), torch.float32, device, seed=3)
    y = empty((M, N), torch.float32, device)
    kernel = layernorm_one_pass_kernel if one_pass else layernorm_two_pass_kernel
    kwargs = {"BLOCK": BLOCK, "num_warps": 4}
    return {"kernel": kernel, "args": (x, y, w, b, N, EPS), "kwargs": kwargs, "grid": (M,)}


def entry(one_pass):
    return launch_spec("cpu", one_pass)


def run(device, one_pass):
    spec = launch_spec(device, one_pass)
    x, y, w, b = spec["args"][:4]

    def launch():
        spec["kernel"][spec["grid"]](*spec["args"], **spec["kwargs"])

    def reference():
        return torch.nn.functional.layer_norm(x, (N,), w, b, EPS)

    shape = f"{M}x{N} fp32 layernorm, {'one' if one_pass else 'two'}-pass statistics"
    return runner(launch, y, reference, 1e-3, shape, spec["grid"])
