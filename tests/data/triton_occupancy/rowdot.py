"""y = W @ x for fp16 W (R x K) and x (K), one 64-row block per program: the BEFORE of an occupancy test pair.

Each iteration loads a 64 x 256 tile of W and 256 values of x and reduces them at once (num_stages=1: nothing is
pipelined), so every iteration waits for its own loads. 256 programs: 1 per CU on an MI300X, 2 per SM on an H100.
"""

import torch
import triton
import triton.language as tl

BR, BK = 64, 256
R, K = 64 * 256, 4096
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def rowdot_kernel(w_ptr, x_ptr, y_ptr, K, BR: tl.constexpr, BK: tl.constexpr):
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.arange(0, BK)
    w_ptrs = w_ptr + rows[:, None] * K + cols[None, :]
    acc = tl.zeros((BR,), tl.float32)
    for k in range(0, K, BK):
        w = tl.load(w_ptrs).to(tl.float32)
        x = tl.load(x_ptr + k + cols).to(tl.float32)
        acc += tl.sum(w * x[None, :], 1)
        w_ptrs += BK
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
    return {"kernel": rowdot_kernel, "args": args, "kwargs": kwargs, "grid": grid}


def run_on(kernel, device) -> dict:
    """kernelpilot_run's answer for ``kernel`` (this file's or the prefetched one): launch, check against W @ x."""
    args, kwargs, grid = launch_args(R, device=device)
    w, x, y, _ = args

    def launch():
        kernel[grid](*args, **kwargs)

    def check():
        y.zero_()
        launch()
        ref = w.float() @ x.float()
        err = (y - ref).abs().max().item()
        tol = 1e-3 * ref.abs().max().item()
        return err <= tol, f"max |y - W@x| = {err:.3g} (tolerance {tol:.3g})"

    return {"launch": launch, "check": check, "shape": f"R={R} K={K}, {grid[0]} programs", "grid": grid}


def kernelpilot_run(device):
    return run_on(rowdot_kernel, device)
