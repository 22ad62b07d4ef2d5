"""A decode-like row sum whose loop bound is loaded from a tensor (issue 31, loop bounds read from tensors): program
p sums the first lens[p] of its row's 131072 fp32 values, 1024 at a time (``ctx_len = tl.load(lens + pid)``, then
``for i in range(0, ctx_len, BLOCK)``), 128 programs of 4 warps. The lengths are the variable: real values, the
same on the CPU (kernelpilot_entry, where the predictor reads them) as on the GPU."""

import torch
import triton
import triton.language as tl
from predict_common import empty, randn, runner

PROGRAMS, MAX_LEN, BLOCK = 128, 128 * 1024, 1024


@triton.jit
def loadedlen_kernel(x_ptr, lens_ptr, out_ptr, MAX_LEN: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    ctx_len = tl.load(lens_ptr + pid)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, ctx_len, BLOCK):
        acc += tl.load(x_ptr + pid * MAX_LEN + i + offs)
    tl.store(out_ptr + pid, tl.sum(acc, 0))


def lengths(kind: str, device):
    p = torch.arange(PROGRAMS, dtype=torch.int32)
    blocks = {"ragged": p + 1, "short": p % 16 + 1, "full": torch.full_like(p, 128)}[kind]
    return (blocks * BLOCK).to(device)


def launch_spec(device, kind):
    x = randn((PROGRAMS, MAX_LEN), torch.float32, device, seed=3)
    lens = lengths(kind, device)
    out = empty((PROGRAMS,), torch.float32, device)
    kwargs = {"MAX_LEN": MAX_LEN, "BLOCK": BLOCK, "num_warps": 4}
    return {"kernel": loadedlen_kernel, "args": (x, lens, out), "kwargs": kwargs, "grid": (PROGRAMS,)}


def entry(kind):
    return launch_spec("cpu", kind)


def run(device, kind):
    spec = launch_spec(device, kind)
    x, lens, out = spec["args"]

    def launch():
        loadedlen_kernel[spec["grid"]](*spec["args"], **spec["kwargs"])

    def reference():
        cols = torch.arange(MAX_LEN, device=x.device)
        return (x * (cols[None, :] < lens[:, None].long())).sum(1)

    shape = f"{PROGRAMS} rows of {MAX_LEN} fp32, {kind} loaded lengths (mean {lens.float().mean().item():.0f})"
    return runner(launch, out, reference, 1e-4, shape, spec["grid"])
