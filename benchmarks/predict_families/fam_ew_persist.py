"""Persistent elementwise axpby: a fixed grid of programs strides over the tensor (z = a*x + b*y)."""

import torch
import triton
import triton.language as tl
from gen_common import SMS, Built, cdiv, empty, randn, spec

FAMILY = "ew_persist"
PROBLEMS = {
    "f32_64m": {"n": 1 << 26, "dtype": torch.float32},
    "bf16_64m": {"n": 1 << 26, "dtype": torch.bfloat16},
    "f32_4m": {"n": 1 << 22, "dtype": torch.float32},
}
SMALL = {"f32_64m": {"n": 70000, "dtype": torch.float32}, "bf16_64m": {"n": 3000, "dtype": torch.bfloat16}}


def designs(p):
    out = {}
    for per_sm in (1, 2, 4, 8):
        for block in (1024, 4096):
            for warps in (4,):
                out[f"p{per_sm}b{block}w{warps}"] = {"per_sm": per_sm, "BLOCK": block, "warps": warps}
    out["grid_b1024w4"] = {"per_sm": 0, "BLOCK": 1024, "warps": 4}  # one program per block: not persistent
    return out


@triton.jit
def axpby_persistent_kernel(x_ptr, y_ptr, z_ptr, n, a, b, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    for start in range(pid * BLOCK, n, nprog * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(z_ptr + offs, (a * x + b * y).to(z_ptr.dtype.element_ty), mask=mask)


def build(p, d, device):
    n, dt = p["n"], p["dtype"]
    x = randn((n,), dt, device, seed=3)
    y = randn((n,), dt, device, seed=4)
    z = empty((n,), dt, device)
    blocks = cdiv(n, d["BLOCK"])
    grid = min(blocks, SMS * d["per_sm"]) if d["per_sm"] else blocks
    s = spec(axpby_persistent_kernel, (grid,), x, y, z, n, 1.5, -0.5, BLOCK=d["BLOCK"], num_warps=d["warps"])
    return Built([s], [z], lambda: [1.5 * x.float() - 0.5 * y.float()], 1e-2 if dt != torch.float32 else 1e-5,
                 f"n={n} {dt}, {grid} programs")  # fmt: skip


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "f16_48m": {"n": 48_000_000, "dtype": torch.float16},
    "f32_10m": {"n": 10_000_000, "dtype": torch.float32},
    "bf16_100m": {"n": 100_000_000, "dtype": torch.bfloat16},
}


def hold_designs(p):
    out = {}
    for per_sm, block, warps in ((3, 2048, 4), (6, 2048, 8), (16, 2048, 4), (3, 512, 4), (12, 8192, 8)):
        out[f"p{per_sm}b{block}w{warps}"] = {"per_sm": per_sm, "BLOCK": block, "warps": warps}
    out["grid_b4096w8"] = {"per_sm": 0, "BLOCK": 4096, "warps": 8}
    return out


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "f32_33m": {"n": 33_333_333, "dtype": torch.float32},
    "bf16_7m": {"n": 7_000_001, "dtype": torch.bfloat16},
}


def fresh_designs(p):
    out = {}
    for per_sm, block, warps in ((1, 8192, 8), (5, 1024, 2), (32, 512, 4), (2, 16384, 16)):
        out[f"p{per_sm}b{block}w{warps}"] = {"per_sm": per_sm, "BLOCK": block, "warps": warps}
    out["grid_b512w2"] = {"per_sm": 0, "BLOCK": 512, "warps": 2}
    return out


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "f32_150m": {"n": 150_000_000, "dtype": torch.float32},
    "f16_3m": {"n": 3_000_017, "dtype": torch.float16},
}
