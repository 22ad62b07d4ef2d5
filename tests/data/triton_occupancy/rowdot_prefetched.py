"""``rowdot.py`` with a hand prefetch: the tile of iteration k+1 is loaded before iteration k's reduction.

The loaded tile is carried in registers across the iteration, so registers rise (gfx942: 102 → 148 VGPRs, 4 → 3
waves/SIMD; sm_90: 128 → 253 registers, 16 → 8 warps/SM). With 256 programs that drop cannot be felt.
"""

import triton
import triton.language as tl
from rowdot import R, launch_args, run_on  # the same problem, launch options and check as BEFORE


@triton.jit
def rowdot_prefetch_kernel(w_ptr, x_ptr, y_ptr, K, BR: tl.constexpr, BK: tl.constexpr):
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.arange(0, BK)
    w_ptrs = w_ptr + rows[:, None] * K + cols[None, :]
    acc = tl.zeros((BR,), tl.float32)
    w = tl.load(w_ptrs)
    x = tl.load(x_ptr + cols)
    for k in range(BK, K, BK):
        w_next = tl.load(w_ptrs + k)
        x_next = tl.load(x_ptr + k + cols)
        acc += tl.sum(w.to(tl.float32) * x.to(tl.float32)[None, :], 1)
        w = w_next
        x = x_next
    acc += tl.sum(w.to(tl.float32) * x.to(tl.float32)[None, :], 1)
    tl.store(y_ptr + rows, acc)


def kernelpilot_entry():
    args, kwargs, grid = launch_args(R)
    return {"kernel": rowdot_prefetch_kernel, "args": args, "kwargs": kwargs, "grid": grid}


def kernelpilot_run(device):
    return run_on(rowdot_prefetch_kernel, device)
