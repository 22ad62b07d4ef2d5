"""What every validation kernel file shares: deterministic inputs and the check against a torch reference."""

import torch

H100_SMS = 132  # grids sized per SM use the H100 SXM's count, the same in kernelpilot_entry and on the GPU


def randn(shape, dtype, device, seed=0):
    """Random values on a GPU; on the CPU (kernelpilot_entry, compile-only) an empty tensor of the same shape and
    dtype, since only dtypes, alignment and integer arguments reach the compiler and 268 MB of randn takes seconds."""
    if str(device) == "cpu":
        return torch.empty(shape, dtype=dtype)
    gen = torch.Generator(device=device).manual_seed(seed)
    return torch.randn(shape, generator=gen, device=device, dtype=torch.float32).to(dtype)


def empty(shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device)


def close(out, ref, rtol: float) -> tuple[bool, str]:
    """(ok, detail): max |out - ref| within ``rtol`` of max |ref| (no NaN)."""
    err = (out.double() - ref.double()).abs().max().item()
    tol = rtol * max(ref.double().abs().max().item(), 1e-6)
    ok = err <= tol and not torch.isnan(out).any().item()
    return ok, f"max |out - ref| = {err:.3g} (tolerance {tol:.3g})"


def runner(launch, output, reference, rtol: float, shape: str, grid=None) -> dict:
    """kernelpilot_run's answer: ``launch()`` writes ``output``; ``check()`` zeroes it, launches, compares."""

    def check():
        output.zero_()
        launch()
        torch.cuda.synchronize()
        return close(output, reference(), rtol)

    out = {"launch": launch, "check": check, "shape": shape}
    if grid is not None:
        out["grid"] = grid
    return out
