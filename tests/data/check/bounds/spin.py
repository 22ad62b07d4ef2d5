"""check test data: a Triton kernel that never ends (``i | 1`` stays positive): check's --timeout must stop it."""

import torch
import triton
import triton.language as tl


@triton.jit
def spin_kernel(x_ptr):
    i = tl.load(x_ptr)
    while i > 0:
        i = i | 1
    tl.store(x_ptr, i)


def kernelpilot_entry():
    return {"kernel": spin_kernel, "args": (torch.ones(1, dtype=torch.int32),), "grid": (1,)}


def kernelpilot_inputs(seed):
    return kernelpilot_entry()  # x = [1]: the loop never exits
