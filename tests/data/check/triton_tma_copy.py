"""A tile copy through device-side TMA tensor descriptors (tl.make_tensor_descriptor, the Hopper way to write it):
y = x * SCALE, 64 x 64 fp32 in 16 x 16 tiles. check runs it on the llvm engine (Triton lowers the descriptors to
plain loads and stores off Hopper), so a kernel written for sm_90's TMA still has a CPU oracle."""

import torch
import triton
import triton.language as tl

SCALE = 1.0
M, N, B = 64, 64, 16


@triton.jit
def tma_scale(x_ptr, y_ptr, M, N, SCALE: tl.constexpr, B: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[B, B])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[B, B])
    tile = x_desc.load([tl.program_id(0) * B, tl.program_id(1) * B])
    y_desc.store([tl.program_id(0) * B, tl.program_id(1) * B], tile * SCALE)


def _launch(x):
    y = torch.zeros_like(x)
    return {"kernel": tma_scale, "args": (x, y, M, N), "kwargs": {"SCALE": SCALE, "B": B}, "grid": (M // B, N // B)}


def kernelpilot_entry():
    return _launch(torch.randn(M, N))


def kernelpilot_inputs(seed):
    return _launch(torch.randn(M, N, generator=torch.Generator().manual_seed(seed)))
