"""How a Triton launch becomes the AMDGPU kernel's parameters: the non-constexpr arguments in order, then Triton's
trailing scratch pointers (global and profile scratch, null when the kernel needs none).

Triton's JIT turns an integer argument equal to 1 into a constexpr (and so drops it from the parameter list); an
explicit ``signature`` compile (dump-ir's dict form) keeps it. Both are recognised by the parameter count. An
argument named in ``@triton.jit(do_not_specialize=[…])`` stays a runtime parameter whatever its value.
"""

from __future__ import annotations

from tools.check.ir import Ty, unsupported
from tools.errors import InputError


def _fits(params_ty: list[Ty], args: list[dict]) -> bool:
    """``args`` line up with the parameters: a tensor for each pointer, a number for each scalar, and only Triton's
    scratch pointers after them."""
    if len(args) > len(params_ty) or any(t.kind != "ptr" for t in params_ty[len(args) :]):
        return False
    return all(("tensor" in a) == (t.kind == "ptr") for t, a in zip(params_ty, args, strict=False))


def kernel_params(params_ty: list[Ty], launch: dict, address_of) -> list:
    """Values for the LLVM kernel's parameters from one launch as the inputs child described it."""
    names = [p["name"] for p in launch.get("params", [])]
    if not names:
        raise InputError(
            "the Triton launch does not name its kernel's parameters",
            hint="return the example-argument form {'kernel': jit_fn, 'args': (...), 'kwargs': {...}, 'grid': (...)}",
        )
    by_name = {a["name"]: a for a in launch["args"] + launch["kwargs"]}
    runtime = [p["name"] for p in launch["params"] if not p["constexpr"]]
    missing = [n for n in runtime if n not in by_name]
    if missing:
        raise InputError(f"the launch passes no value for '{missing[0]}'", hint="pass every kernel argument")
    args = [by_name[n] for n in runtime]
    args = [a for a in args if not (a.get("opaque") == "NoneType")]
    kept = {p["name"] for p in launch["params"] if p.get("do_not_specialize")}
    # the JIT turns integers equal to 1 into constants, but not those named in do_not_specialize
    specialised = [a for a in args if a["name"] in kept or not (a.get("type") == "int" and a.get("scalar") == 1)]
    fits = [c for c in (args, specialised) if _fits(params_ty, c)]
    if not fits:
        raise unsupported(
            f"mapping {len(runtime)} Triton arguments to the kernel's {len(params_ty)} LLVM parameters",
        )
    args = fits[0]
    n_extra = len(params_ty) - len(args)
    values = []
    for ty, arg in zip(params_ty, args, strict=False):
        if ty.kind == "ptr":
            if "tensor" not in arg:
                raise InputError(f"Triton argument '{arg['name']}' is a pointer in the kernel but not a tensor here",
                                 hint="pass a torch tensor")  # fmt: skip
            values.append(address_of(arg))
        elif "scalar" in arg:
            values.append(arg["scalar"])
        else:
            raise InputError(f"Triton argument '{arg['name']}' is a {ty.kind} parameter but not a scalar here",
                             hint="pass a Python number")  # fmt: skip
    return values + [0] * n_extra
