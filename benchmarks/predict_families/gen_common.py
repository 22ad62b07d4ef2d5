"""What every generated family shares (issue 31 item 3): inputs, the launch of a variant's specs, the check.

A family module names ``FAMILY``, ``PROBLEMS`` ({problem: params}), ``designs(params) -> {design: params}`` and
``build(problem_params, design_params, device) -> Built``. ``device="cpu"`` builds the same launch specs on empty
tensors of the same shapes and dtypes (for compiling on a CPU, where only dtypes and integers reach the compiler)."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

SMS = 132  # the H200's (and the H100 SXM's) multiprocessors: grids sized per SM use it here and on the GPU
# True: "cpu" means real random inputs on the CPU (Triton's interpreter, TRITON_INTERPRET=1, checks small shapes)
CPU_INPUTS = {"real": False}


def compile_only(device) -> bool:
    return str(device) == "cpu" and not CPU_INPUTS["real"]


def randn(shape, dtype, device, seed=0, scale=1.0):
    """Random normal values on the GPU; an empty tensor of the same shape and dtype on the CPU."""
    if compile_only(device):
        return torch.empty(shape, dtype=dtype)
    gen = torch.Generator(device=device).manual_seed(seed)
    return (torch.randn(shape, generator=gen, device=device, dtype=torch.float32) * scale).to(dtype)


def randint(low, high, shape, device, seed=0, dtype=torch.int32):
    if compile_only(device):
        return torch.empty(shape, dtype=dtype)
    gen = torch.Generator(device=device).manual_seed(seed)
    return torch.randint(low, high, shape, generator=gen, device=device, dtype=torch.int64).to(dtype)


def empty(shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device)


def npow2(n: int) -> int:
    return 1 << (int(n) - 1).bit_length()


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def spec(kernel, grid, *args, **kwargs) -> dict:
    """One ``kernel[grid](*args, **kwargs)`` (compile_example's spec)."""
    return {"kernel": kernel, "grid": tuple(grid), "args": args, "kwargs": kwargs}


@dataclass
class Built:
    """A variant: its launches in order (specs, or callables such as the zero fill an atomic output needs, which
    are part of the timed call), the outputs they write, the torch reference of each, and the tolerance."""

    launches: list
    outputs: list
    reference: object  # () -> list of tensors, one per output
    rtol: float
    shape: str
    notes: list[str] = field(default_factory=list)

    def launch(self) -> None:
        for s in self.launches:
            if callable(s):
                s()
            else:
                s["kernel"][s["grid"]](*s["args"], **s["kwargs"])

    def specs(self) -> list[dict]:
        return [s for s in self.launches if not callable(s)]


def _poison(t) -> None:
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    else:
        t.fill_(-7)


def check(built: Built) -> tuple[bool, str]:
    """Poison every output, launch once, compare each with the reference: max |out - ref| within ``rtol`` of
    max |ref|, no NaN (an element the kernel did not write stays NaN)."""
    for t in built.outputs:
        _poison(t)
    built.launch()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    refs = built.reference()
    details, ok = [], True
    for out, ref in zip(built.outputs, refs, strict=True):
        o, r = out.double(), ref.double()
        err = (o - r).abs().max().item() if o.numel() else 0.0
        tol = built.rtol * max(r.abs().max().item(), 1e-6)
        good = err <= tol and not torch.isnan(o).any().item()
        ok = ok and good
        details.append(f"max |out - ref| = {err:.3g} (tolerance {tol:.3g})")
    return ok, "; ".join(details)
