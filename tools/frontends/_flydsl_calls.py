"""The argument values of each ``@flyc.jit`` call a FlyDSL kernel file makes (file mode), and which kernels it compiled.

Runs in the child (``_pyrunner``): FlyDSL bakes constexprs into the IR but a runtime scalar (``n_blocks: fx.Int32``)
is only an argument of the host function, so its value exists nowhere but in the call. Each outermost call's bound
arguments are recorded with the kernel folders FlyDSL's dump wrote during it; the parent turns one record into the
KernelDump's ``launch`` (``launch_of``), which the predictor reads to evaluate loop bounds.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from pathlib import Path

from tools.models.dump import LaunchArgument, LaunchInfo


def _argument(name: str, annotation, value) -> dict:
    from flydsl.compiler.jit_argument import is_type_param_annotation
    from flydsl.expr.typing import Constexpr

    baked = annotation is not inspect.Parameter.empty and (
        Constexpr.is_constexpr_annotation(annotation) or is_type_param_annotation(annotation)
    )
    if baked:  # traced into the IR: no argument of the host function
        shown = value if isinstance(value, bool | int | float | str) else repr(value)
        return {"name": name, "kind": "constexpr", "value": shown}
    if hasattr(value, "shape") and hasattr(value, "element_size") and hasattr(value, "numel"):
        return {
            "name": name,
            "kind": "tensor",
            "dtype": str(value.dtype).removeprefix("torch."),
            "shape": [int(d) for d in value.shape],
            "nbytes": int(value.numel()) * int(value.element_size()),
        }
    raw = getattr(value, "value", value)  # fx.Int32(40) or a Stream hold their Python value
    if isinstance(raw, bool | int | float):
        return {"name": name, "kind": "scalar", "dtype": type(raw).__name__, "value": raw}
    return {"name": name, "kind": "scalar", "dtype": type(value).__name__, "value": None}


def _signature(fn) -> inspect.Signature:
    try:
        return inspect.signature(fn, eval_str=True)
    except (NameError, TypeError, SyntaxError):
        return inspect.signature(fn)


@contextmanager
def record_jit_calls(dump_dir: Path):
    """While active, every outermost ``JitFunction`` call is appended to the yielded list as ``{"function",
    "arguments", "kernels"}`` (``kernels``: the folders that appeared in ``dump_dir`` during the call)."""
    from flydsl.compiler.jit_function import JitFunction

    calls: list[dict] = []
    original = JitFunction.__call__
    depth = [0]

    def listing() -> set[str]:
        return {p.name for p in dump_dir.iterdir() if p.is_dir()} if dump_dir.is_dir() else set()

    def recorded(self, *args, **kwargs):
        if depth[0]:
            return original(self, *args, **kwargs)
        try:
            params = list(_signature(self.func).parameters.values())
            if params and params[0].name == "self":
                params, args = params[1:], args[1:]
            bound = inspect.Signature(params).bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = [
                _argument(p.name, p.annotation, bound.arguments[p.name]) for p in params if p.name in bound.arguments
            ]
        except (TypeError, ValueError):
            arguments = None  # the call itself reports a wrong call; nothing to record
        before = listing()
        depth[0] += 1
        try:
            return original(self, *args, **kwargs)
        finally:
            depth[0] -= 1
            if arguments is not None:
                new = sorted(listing() - before)
                calls.append({"function": getattr(self.func, "__name__", "?"), "arguments": arguments, "kernels": new})

    JitFunction.__call__ = recorded
    try:
        yield calls
    finally:
        JitFunction.__call__ = original


def launch_of(kernel: str, calls: list[dict]) -> LaunchInfo | None:
    """The launch of the kernel folder ``kernel`` from the recorded calls: the arguments of the one call that
    compiled it (None when no call or several did). The grid stays None: the predictor reads it from the host IR."""
    owners = [c for c in calls if kernel in c.get("kernels", [])]
    if len(owners) != 1:
        return None
    return LaunchInfo(
        arguments=[LaunchArgument(**a) for a in owners[0]["arguments"]],
        source="call",
        note=f"argument values of the @flyc.jit call {owners[0]['function']}() that compiled it",
    )
