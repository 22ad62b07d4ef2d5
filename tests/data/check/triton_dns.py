"""Check test data: a Triton scaled copy whose ``stride`` is in do_not_specialize and equal to 1, beside ``scale``
(also 1) that the JIT turns into a constant: the kernel keeps ``stride`` as a runtime parameter and drops ``scale``.
OFFSET (rewritten by the tests) plants a bug at the store line."""

import torch
import triton
import triton.language as tl

OFFSET = tl.constexpr(0)


@triton.jit(do_not_specialize=["stride"])
def scaled_copy(x_ptr, out_ptr, n, stride, scale, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    mask = i < n
    x = tl.load(x_ptr + i * stride, mask=mask)
    y = tl.inline_asm_elementwise("v_mov_b32 $0, $1", "=v,v", [x * scale], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(out_ptr + i + OFFSET, y, mask=mask)


def kernelpilot_inputs(seed, n=100):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-1000, 1000, (n,), generator=g, dtype=torch.int32)
    out = torch.zeros(n + 1, dtype=torch.int32)
    return {"kernel": scaled_copy, "args": (x, out, n, 1, 1), "kwargs": {"BLOCK": 128, "num_warps": 2}, "grid": (1,)}


def kernelpilot_entry():
    return kernelpilot_inputs(0)
