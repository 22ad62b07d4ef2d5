"""Running column-block scaling: out[m-tile] = x[m-tile] * (sum of all x tiles up to and including this one).

Each iteration loads a 64 x 64 tile, reduces it across the workgroup (LDS + ``s_barrier``), then stores. The next
tile's loads are only issued after the reduction, so the waves sit in the barrier with no memory in flight.
"""

import torch
import triton
import triton.language as tl

BM, BN = 64, 64
OPTIONS = {"num_warps": 4, "num_stages": 1}


@triton.jit
def prefix_scale_kernel(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    rows = tl.arange(0, BM)
    total = 0.0
    for m in range(0, M, BM):
        x = tl.load(x_ptr + (m + rows)[:, None] * N + cols[None, :])
        total += tl.sum(tl.sum(x, 1), 0)
        tl.store(out_ptr + (m + rows)[:, None] * N + cols[None, :], x * total)


def forward(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    M, N = x.shape
    prefix_scale_kernel[(N // BN,)](x, out, M, N, BM=BM, BN=BN, **OPTIONS)
    return out


def kernelpilot_entry():
    """The launch forward() makes for a 256 x 128 input. CPU tensors stand in: Triton's JIT specialises on
    dtypes, 16-byte alignment and integer values, and so does kernelpilot from these example arguments
    (kernelpilot README, "File mode")."""
    x = torch.empty(256, 128)
    out = torch.empty_like(x)
    M, N = x.shape
    return {
        "kernel": prefix_scale_kernel,
        "args": (x, out, M, N),
        "kwargs": {"BM": BM, "BN": BN, **OPTIONS},
        "grid": (N // BN,),
    }
