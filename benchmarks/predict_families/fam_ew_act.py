"""Fused bias + activation, elementwise: y = act(x + b[col]) over a row-major [M, N] tensor, flattened."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randn, spec

FAMILY = "ew_act"
PROBLEMS = {
    "gelu_f32_16m": {"M": 4096, "N": 4096, "dtype": torch.float32, "act": "gelu"},
    "silu_bf16_32m": {"M": 8192, "N": 4096, "dtype": torch.bfloat16, "act": "silu"},
    "gelu_f16_8m": {"M": 2048, "N": 4096, "dtype": torch.float16, "act": "gelu"},
}
SMALL = {  # the same dtypes and designs on shapes Triton's interpreter checks in seconds (tests)
    "gelu_f32_16m": {"M": 3, "N": 1000, "dtype": torch.float32, "act": "gelu"},
    "silu_bf16_32m": {"M": 2, "N": 640, "dtype": torch.bfloat16, "act": "silu"},
}


def designs(p):
    out = {}
    for block in (256, 1024, 2048, 4096, 8192):
        for warps in (4, 8):
            if block // (warps * 32) in (1, 2, 4, 8, 16, 32):
                out[f"b{block}w{warps}"] = {"BLOCK": block, "warps": warps}
    return out


@triton.jit
def bias_act_kernel(x_ptr, b_ptr, y_ptr, n_elem, N, ACT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elem
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % N, mask=mask, other=0.0).to(tl.float32)
    v = x + b
    if ACT == "gelu":
        inner = 0.7978845608028654 * (v + 0.044715 * v * v * v)
        t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
        y = 0.5 * v * (1.0 + t)
    else:
        y = v / (1.0 + tl.exp(-v))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def build(p, d, device):
    M, N, dt = p["M"], p["N"], p["dtype"]
    x = randn((M, N), dt, device, seed=1)
    b = randn((N,), dt, device, seed=2)
    y = empty((M, N), dt, device)
    n = M * N
    s = spec(bias_act_kernel, (cdiv(n, d["BLOCK"]),), x, b, y, n, N, ACT=p["act"], BLOCK=d["BLOCK"],
             num_warps=d["warps"])  # fmt: skip

    def ref():
        v = x.float() + b.float()
        if p["act"] == "gelu":
            return [torch.nn.functional.gelu(v, approximate="tanh")]
        return [torch.nn.functional.silu(v)]

    return Built([s], [y], ref, 2e-2 if dt != torch.float32 else 1e-4, f"{M}x{N} {dt} {p['act']}")


# --- the second corpus (hold.*, issue 31): shapes the first never had, designs where cheap ---------------------

HOLD_PROBLEMS = {
    "silu_f32_3000x5000": {"M": 3000, "N": 5000, "dtype": torch.float32, "act": "silu"},
    "gelu_bf16_12288x3072": {"M": 12288, "N": 3072, "dtype": torch.bfloat16, "act": "gelu"},
    "silu_f16_16384x1000": {"M": 16384, "N": 1000, "dtype": torch.float16, "act": "silu"},
}


def hold_designs(p):
    return {f"b{block}w{warps}": {"BLOCK": block, "warps": warps}
            for block, warps in ((512, 2), (512, 4), (2048, 2), (2048, 16), (8192, 16), (16384, 16))}  # fmt: skip


# --- the third corpus (fresh.*, issue 31): shapes neither corpus had, designs where cheap; written blind to the model

FRESH_PROBLEMS = {
    "gelu_f32_20000x2000": {"M": 20000, "N": 2000, "dtype": torch.float32, "act": "gelu"},
    "silu_bf16_7x999999": {"M": 7, "N": 999999, "dtype": torch.bfloat16, "act": "silu"},
    "gelu_f16_640x1280": {"M": 640, "N": 1280, "dtype": torch.float16, "act": "gelu"},
}


def fresh_designs(p):
    return {f"b{block}w{warps}": {"BLOCK": block, "warps": warps}
            for block, warps in ((128, 1), (1024, 2), (4096, 16), (32768, 32))}  # fmt: skip


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "silu_bf16_6144x7168": {"M": 6144, "N": 7168, "dtype": torch.bfloat16, "act": "silu"},
    "gelu_f32_333x2560": {"M": 333, "N": 2560, "dtype": torch.float32, "act": "gelu"},
}
