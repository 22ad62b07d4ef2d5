"""RMSNorm forward over the last dimension, written here for issue 31 item 4 (compared with a published MI300X
timing of the same operation and shape; see ``published.yaml``). One program per row; the row is held in registers
(BLOCK is the whole row), the sum of squares in fp32, the output in the input's dtype."""

import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_fwd_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * n_cols + cols, (x * inv * w).to(y_ptr.dtype.element_ty), mask=mask)


def rmsnorm(x, w, eps=1e-6):
    """Host function: ``x`` is (..., N), ``w`` is (N,); returns a tensor shaped like ``x``."""
    rows = x.numel() // x.shape[-1]
    n = x.shape[-1]
    y = torch.empty_like(x)
    block = triton.next_power_of_2(n)
    rmsnorm_fwd_kernel[(rows,)](x, w, y, n, eps, BLOCK=block, num_warps=8 if block >= 4096 else 4)
    return y


def kernelpilot_entry():
    return {"call": rmsnorm, "args": (torch.empty(64, 1024, dtype=torch.bfloat16), torch.empty(1024, dtype=torch.bfloat16)),
            "kwargs": {}}  # fmt: skip
