"""A wrong answer to vgpr-spill-row-norm, kept to show what the task rejects (tests/test_eval_tasks.py): the weights
are reloaded for every row instead of held across the row loop. That removes the 56 spilled weight registers, but
one wave still holds 64 values per lane of every live copy of the row: on gfx942 it takes all 128 VGPRs and still
spills one (an address) to scratch, reloaded in every iteration of the row loop."""

import torch
import triton
import triton.language as tl

BLOCK = 4096
PROGRAMS = 4864  # 304 CUs x 16 one-wave workgroups (4 waves per SIMD)
OPTIONS = {"num_warps": 1, "waves_per_eu": 4}


@triton.jit
def row_norm_kernel(x_ptr, w_ptr, out_ptr, rows, N, eps, BLOCK: tl.constexpr, PROGRAMS: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    for row in range(tl.program_id(0), rows, PROGRAMS):  # grid min(rows, PROGRAMS): row r on program r % PROGRAMS
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        mean = tl.sum(x, 0) / N
        xc = tl.where(mask, x - mean, 0.0)
        var = tl.sum(xc * xc, 0) / N
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        tl.store(out_ptr + row * N + cols, xc * tl.rsqrt(var + eps) * w, mask=mask)


def forward(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    rows, N = x.shape
    row_norm_kernel[(min(rows, PROGRAMS),)](x, w, out, rows, N, 1e-5, BLOCK=BLOCK, PROGRAMS=PROGRAMS, **OPTIONS)
    return out


def kernelpilot_entry():
    # the launch forward() makes for 16384 rows of 4096 values
    rows, N = 16384, 4096
    x, w = torch.empty((rows, N)), torch.empty(N)
    return {
        "kernel": row_norm_kernel,
        "args": (x, w, torch.empty_like(x), rows, N, 1e-5),
        "kwargs": {"BLOCK": BLOCK, "PROGRAMS": PROGRAMS, **OPTIONS},
        "grid": (min(rows, PROGRAMS),),
    }
