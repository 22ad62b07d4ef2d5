"""SwiGLU activation for MI300X/MI355X: out = silu(gate) * up, elementwise over fp16 tensors of n elements (fp32 math).
Each program handles BLOCK elements."""

import torch
import triton
import triton.language as tl

BLOCK = 16384
OPTIONS = {"num_warps": 4}


@triton.jit
def swiglu_kernel(gate_ptr, up_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(gate_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(up_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (g * tl.sigmoid(g) * u).to(tl.float16), mask=mask)


def forward(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(gate)
    n = gate.numel()
    swiglu_kernel[(triton.cdiv(n, BLOCK),)](gate, up, out, n, BLOCK=BLOCK, **OPTIONS)
    return out


def kernelpilot_entry():
    n = 1 << 26
    gate, up, out = (torch.empty(n, dtype=torch.float16) for _ in range(3))
    return {"kernel": swiglu_kernel, "args": (gate, up, out, n), "kwargs": {"BLOCK": BLOCK, **OPTIONS}, "grid": (triton.cdiv(n, BLOCK),)}
