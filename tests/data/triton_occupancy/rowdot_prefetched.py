"""``rowdot.py`` with a hand prefetch: the tile of iteration k+1 is loaded before iteration k's reduction.

The loaded tile is carried in registers across the iteration, so registers rise (gfx942: 102 → 148 VGPRs, 4 → 3
waves/SIMD; sm_90: 128 → 253 registers, 16 → 8 warps/SM). With 256 programs that drop cannot be felt.
"""

import torch
import triton
import triton.language as tl

BR, BK = 64, 256
R, K = 64 * 256, 4096
OPTIONS = {"num_warps": 4, "num_stages": 1}


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


def launch_args(rows: int, k: int = K, device="cpu"):
    """(args, kwargs, grid) of one launch over ``rows`` rows of ``k`` values."""
    gen = torch.Generator(device="cpu").manual_seed(0)
    w = torch.randn(rows, k, generator=gen).to(device=device, dtype=torch.float16)
    x = torch.randn(k, generator=gen).to(device=device, dtype=torch.float16)
    y = torch.empty(rows, device=device)
    return (w, x, y, k), {"BR": BR, "BK": BK, **OPTIONS}, (rows // BR,)


def kernelpilot_entry():
    args, kwargs, grid = launch_args(R)
    return {"kernel": rowdot_prefetch_kernel, "args": args, "kwargs": kwargs, "grid": grid}


def kernelpilot_run(device):
    args, kwargs, grid = launch_args(R, device=device)
    w, x, y, _ = args

    def launch():
        rowdot_prefetch_kernel[grid](*args, **kwargs)

    def check():
        y.zero_()
        launch()
        ref = w.float() @ x.float()
        err = (y - ref).abs().max().item()
        tol = 1e-3 * ref.abs().max().item()
        return err <= tol, f"max |y - W@x| = {err:.3g} (tolerance {tol:.3g})"

    return {"launch": launch, "check": check, "shape": f"R={R} K={K}, {grid[0]} programs", "grid": grid}
