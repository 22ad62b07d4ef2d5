"""out = alpha * x + y over 64M fp32 values (768 MB moved): memory bound when enough loads are in flight. Either one
block per program (BLOCK values each) or a fixed number of programs striding over the array (persistent)."""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

NUMEL = 64 * 1024 * 1024
ALPHA = 0.5


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


@triton.jit
def axpy_persistent_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    for start in range(tl.program_id(0).to(tl.int64) * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, alpha * x + y, mask=mask)


def launch_spec(device, block, programs, num_warps):
    """``programs`` None: one block per program; else that many persistent programs."""
    x = randn((NUMEL,), torch.float32, device, seed=1)
    y = randn((NUMEL,), torch.float32, device, seed=2)
    out = empty((NUMEL,), torch.float32, device)
    kernel = axpy_kernel if programs is None else axpy_persistent_kernel
    grid = (triton.cdiv(NUMEL, block) if programs is None else programs,)
    kwargs = {"BLOCK": block, "num_warps": num_warps}
    return {"kernel": kernel, "args": (x, y, out, NUMEL, ALPHA), "kwargs": kwargs, "grid": grid}


def entry(*config):
    return launch_spec("cpu", *config)


def run(device, *config):
    spec = launch_spec(device, *config)
    x, y, out = spec["args"][:3]

    def launch():
        spec["kernel"][spec["grid"]](*spec["args"], **spec["kwargs"])

    block, programs, warps = config
    kind = "one block per program" if programs is None else "persistent"
    shape = f"n={NUMEL} fp32, BLOCK {block}, {spec['grid'][0]} programs ({kind}), {warps} warps"
    return runner(launch, out, lambda: ALPHA * x + y, 1e-6, shape, spec["grid"])
