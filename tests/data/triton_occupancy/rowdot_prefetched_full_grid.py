"""The kernel of ``rowdot_prefetched.py`` launched over 8192 programs (524,288 rows of 1024): enough to fill every CU/SM.

The JIT specialises on dtypes, pointer alignment, integer values and (AMD) whether a tensor lies within 2 GiB, so
small example tensors stand in for the 1 GiB matrix; only the grid and K (1024, also divisible by 16) differ from ``rowdot_prefetched.py``.
"""

import triton  # noqa: F401  (marks this file as a Triton kernel file)
from rowdot_prefetched import launch_args, rowdot_prefetch_kernel

PROGRAMS = 8192


def kernelpilot_entry():
    args, kwargs, _ = launch_args(64, 1024)
    return {"kernel": rowdot_prefetch_kernel, "args": args, "kwargs": kwargs, "grid": (PROGRAMS,)}
