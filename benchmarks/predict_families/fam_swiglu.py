"""Gated MLP activation out[M, N] = act(g) * u, gate and up halves of one [M, 2N] projection output (SwiGLU: act =
silu; GeGLU: the tanh gelu): a flat 1-D grid over the outputs (a row and column per element by division), a
(row, column block) grid, or tiles of ROWS rows. A fresh-corpus-only family (issue 31)."""

import torch
import triton
import triton.language as tl
from gen_common import Built, cdiv, empty, randn, spec

FAMILY = "swiglu"
PROBLEMS = {}
FRESH_PROBLEMS = {
    "silu_bf16_4096x11008": {"M": 4096, "N": 11008, "dtype": torch.bfloat16, "act": "silu"},
    "gelu_f16_2500x5120": {"M": 2500, "N": 5120, "dtype": torch.float16, "act": "gelu"},
    "silu_f32_777x14336": {"M": 777, "N": 14336, "dtype": torch.float32, "act": "silu"},
    "silu_bf16_128x3584": {"M": 128, "N": 3584, "dtype": torch.bfloat16, "act": "silu"},
}


def fresh_designs(p):
    return {
        "flat1024w4": {"kind": "flat", "BLOCK": 1024, "warps": 4},
        "flat4096w8": {"kind": "flat", "BLOCK": 4096, "warps": 8},
        "row2048w4": {"kind": "tile", "ROWS": 1, "BLOCK": 2048, "warps": 4},
        "tile8x256w4": {"kind": "tile", "ROWS": 8, "BLOCK": 256, "warps": 4},
    }


def shrink(p):
    return dict(p, M=3, N=300, dtype=torch.float16 if p["dtype"] == torch.bfloat16 else p["dtype"])


@triton.jit
def _glu(g, u, GELU: tl.constexpr):
    if GELU:
        inner = 0.7978845608028654 * (g + 0.044715 * g * g * g)
        a = 0.5 * g * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    else:
        a = g * tl.sigmoid(g)
    return a * u


@triton.jit
def glu_flat_kernel(x_ptr, y_ptr, total, N, GELU: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    row = offs // N
    col = offs - row * N
    g = tl.load(x_ptr + row * 2 * N + col, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(x_ptr + row * 2 * N + N + col, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, _glu(g, u, GELU).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def glu_tile_kernel(x_ptr, y_ptr, M, N, GELU: tl.constexpr, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    src = x_ptr + rows[:, None].to(tl.int64) * 2 * N + cols[None, :]
    g = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(src + N, mask=mask, other=0.0).to(tl.float32)
    out = y_ptr + rows[:, None].to(tl.int64) * N + cols[None, :]
    tl.store(out, _glu(g, u, GELU).to(y_ptr.dtype.element_ty), mask=mask)


def build(p, d, device):
    M, N, dt, gelu = p["M"], p["N"], p["dtype"], p["act"] == "gelu"
    x = randn((M, 2 * N), dt, device, seed=111, scale=2.0)
    y = empty((M, N), dt, device)
    if d["kind"] == "flat":
        s = spec(glu_flat_kernel, (cdiv(M * N, d["BLOCK"]),), x, y, M * N, N, GELU=gelu, BLOCK=d["BLOCK"],
                 num_warps=d["warps"])  # fmt: skip
    else:
        s = spec(glu_tile_kernel, (cdiv(M, d["ROWS"]), cdiv(N, d["BLOCK"])), x, y, M, N, GELU=gelu, ROWS=d["ROWS"],
                 BLOCK=d["BLOCK"], num_warps=d["warps"])  # fmt: skip

    def ref():
        g, u = x.float()[:, :N], x.float()[:, N:]
        a = torch.nn.functional.gelu(g, approximate="tanh") if gelu else torch.nn.functional.silu(g)
        return [a * u]

    tol = 1e-5 if dt == torch.float32 else 2e-2
    return Built([s], [y], ref, tol, f"{M}x{N} {'geglu' if gelu else 'swiglu'} {dt}")


# --- the sixth corpus (novel.*, issue 31): shapes no corpus had, for the learned correction's held-out band ---

NOVEL_PROBLEMS = {
    "silu_bf16_2048x18432": {"M": 2048, "N": 18432, "dtype": torch.bfloat16, "act": "silu"},
    "gelu_bf16_8192x2560": {"M": 8192, "N": 2560, "dtype": torch.bfloat16, "act": "gelu"},
    "silu_f16_16x13824": {"M": 16, "N": 13824, "dtype": torch.float16, "act": "silu"},
}
