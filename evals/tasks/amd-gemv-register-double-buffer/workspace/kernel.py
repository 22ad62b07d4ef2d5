"""fp16 matrix-vector product y = A x with fp32 accumulation for MI300X/MI355X: A (M, K) row-major fp16, x (K,)
fp16, y (M,) fp32. One program per row walks the row BLOCK elements at a time; every iteration loads its slice of
A and x and consumes them immediately, so each iteration waits for memory."""

import torch
import triton
import triton.language as tl

BLOCK = 1024
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def gemv_kernel(a_ptr, x_ptr, y_ptr, K, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, K, BLOCK):
        c = start + cols
        a = tl.load(a_ptr + row * K + c, mask=c < K, other=0.0)
        x = tl.load(x_ptr + c, mask=c < K, other=0.0)
        acc += a.to(tl.float32) * x.to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, 0))


def forward(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    y = torch.empty(M, device=a.device, dtype=torch.float32)
    gemv_kernel[(M,)](a, x, y, K, BLOCK=BLOCK, **OPTIONS)
    return y


def kernelpilot_entry():
    M, K = 8192, 8192
    a, x, y = torch.empty((M, K), dtype=torch.float16), torch.empty(K, dtype=torch.float16), torch.empty(M)
    return {"kernel": gemv_kernel, "args": (a, x, y, K), "kwargs": {"BLOCK": BLOCK, **OPTIONS}, "grid": (M,)}
