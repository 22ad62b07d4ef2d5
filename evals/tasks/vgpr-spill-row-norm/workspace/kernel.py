"""Row LayerNorm (no bias) for rows of up to 4096 fp32 values, persistent: each program loads the weights once and
normalises rows pid, pid + programs, ... with them.

The whole row lives in one wave's registers: 4096 values over 64 lanes is 64 values per lane per live copy. The
weights stay in registers across the row loop, beside the row and its centred copy; with ``waves_per_eu=4`` (at most
128 VGPRs) the kernel spills to scratch and reloads in every iteration of the row loop.
"""

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
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)  # loaded once per program, used for every row
    for row in range(tl.program_id(0), rows, PROGRAMS):  # grid min(rows, PROGRAMS): row r on program r % PROGRAMS
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
        mean = tl.sum(x, 0) / N
        xc = tl.where(mask, x - mean, 0.0)
        var = tl.sum(xc * xc, 0) / N
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
