"""Compile a Triton kernel from example launch arguments exactly as ``kernel[grid](*args, **kwargs)`` would.

A small adapter over Triton's own JIT machinery, run inside the file-mode child process (it imports triton): the
binder Triton generates for the kernel (``create_function_from_signature``) specialises each argument through the
target backend (pointer 16-byte alignment, integers divisible by 16 or equal to 1, AMD buffer-op pointer ranges), and
``JITFunction._pack_args`` turns that into the signature, constexprs and attributes handed to ``triton.compile``.
Written against Triton 3.9; the fallbacks keep 3.6 (the JIT on the GPU machine) working.
"""

from __future__ import annotations

import math
from typing import Any


class LaunchSpecError(Exception):
    """The example launch is one Triton's JIT itself would refuse (e.g. an option the target does not have)."""


def is_example_form(spec: Any) -> bool:
    """The example-argument form: a dict with ``args`` and no ``signature``."""
    return isinstance(spec, dict) and "args" in spec and "signature" not in spec


def gpu_target(arch: str):
    """Triton's GPUTarget for a kernelpilot arch name (gfx*: hip, wave64; sm_N: cuda, warp 32)."""
    from triton.backends.compiler import GPUTarget

    if arch.startswith("gfx"):
        return GPUTarget("hip", arch, 64)
    return GPUTarget("cuda", int(arch.removeprefix("sm_")), 32)


def _jit_kwargs(fn, kwargs: dict) -> dict:
    """The keyword arguments ``JITFunction.run`` adds before binding (debug and, on newer Triton, sanitiser modes)."""
    from triton import knobs

    out = dict(kwargs)
    out["debug"] = out.get("debug", getattr(fn, "debug", None)) or knobs.runtime.debug
    for name in ("instrumentation_mode", "fpsan_homomorphic_casts"):
        if hasattr(knobs.compilation, name):
            out[name] = getattr(knobs.compilation, name)
    return out


def _pack_args(fn, backend, kwargs, bound_args, specialization, options):
    """``JITFunction._pack_args`` where Triton has it; the same steps otherwise (Triton <= 3.6 did them inline)."""
    if hasattr(fn, "_pack_args"):
        return fn._pack_args(backend, kwargs, bound_args, specialization, options)
    from triton._utils import find_paths_if, get_iterable_path

    options = backend.parse_options(kwargs)
    sigkeys = [p.name for p in fn.params]
    sigvals = [s[0] for s in specialization]
    signature = dict(zip(sigkeys, sigvals, strict=True))
    for k in kwargs:
        if k not in options.__dict__ and k not in sigkeys:
            raise KeyError(f"Keyword argument {k} was specified but unrecognised")
    paths = find_paths_if(sigvals, lambda _, val: val == "constexpr")
    constexprs = {p: get_iterable_path(list(bound_args.values()), p) for p in paths}
    attrvals = ["" if s[0] == "constexpr" else s[1] for s in specialization]
    attr_paths = find_paths_if(attrvals, lambda _, x: isinstance(x, str))
    attrs = {k: backend.parse_attr(get_iterable_path(attrvals, k)) for k in attr_paths}
    return options, signature, constexprs, attrs


def _describe(kind: str, key: Any, value: Any) -> str:
    """One argument's specialisation in words: aligned16 / div16 / ==1 / constexpr=V / ''."""
    if kind == "constexpr":
        text = repr(value) if not hasattr(value, "__name__") else value.__name__
        return f"constexpr={text[:40]}"
    if not isinstance(key, str):
        return ""
    words = []
    if "D" in key:
        words.append("aligned16" if kind.startswith("*") else "div16")
    if "S" in key:
        words.append("within2GB")
    return " ".join(words)


def _grid(grid: Any, bound_args: dict) -> list[int] | None:
    if grid is None:
        return None
    if callable(grid):
        grid = grid(bound_args)
    if isinstance(grid, int):
        grid = (grid,)
    values = [int(g) for g in grid]
    if not values or len(values) > 3 or any(g < 1 for g in values):
        raise ValueError(f"'grid' must be 1 to 3 positive integers, got {tuple(grid)}")
    return values


MAX_RECORDED_VALUES = 1024  # an integer tensor's elements kept with the launch (a batch's lengths, not a table)


def fill_uninitialized() -> None:
    """While the entry runs, torch fills the memory of ``torch.empty`` with a known value (NaN, an integer dtype's
    maximum: its deterministic mode, nondeterministic ops only warned about), so ``tensor_values`` can tell an
    integer tensor the entry left uninitialised (a table it never filled) from real lengths. No torch: nothing."""
    try:
        import torch
    except ImportError:
        return
    # what torch.use_deterministic_algorithms sets, without the 1 s import of torch._inductor.config it also does
    # (only to copy the flag into inductor's config, which no compile here reads)
    setter = getattr(getattr(torch, "_C", None), "_set_deterministic_algorithms", None)
    if setter is not None:
        setter(True, warn_only=True)
    else:
        torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True


def tensor_values(value) -> list[int] | None:
    """An integer CPU tensor's elements (at most MAX_RECORDED_VALUES), for loop bounds loaded from it; None for any
    other tensor, and for one holding its dtype's maximum: memory ``torch.empty`` left as ``fill_uninitialized`` marks
    it, not values the entry gave."""
    dtype = str(getattr(value, "dtype", ""))
    if (
        not dtype.startswith(("torch.int", "torch.uint"))
        or getattr(getattr(value, "device", None), "type", "") != "cpu"
    ):
        return None
    if value.numel() > MAX_RECORDED_VALUES:
        return None
    import torch

    values = [int(v) for v in value.flatten().tolist()]
    return None if torch.iinfo(value.dtype).max in values else values


MAX_COUNTED_VALUES = 1 << 26  # an integer tensor's elements counted for ``hottest`` (a histogram's input, not more)
LINE_ELEMENTS = (1, 16, 32, 64, 128)  # one element; one 128-byte line of 8-, 4-, 2- and 1-byte elements


def hottest_counts(value) -> dict[str, int] | None:
    """How skewed an integer CPU tensor used as addresses is: for each ``d`` in LINE_ELEMENTS, the most of its
    elements whose ``value // d`` is the same (d=1: the most common value; d=32: the most indices into one 128-byte
    line of 4-byte elements). A histogram's or a scatter's atomics to the hottest line run one after another, so
    the predictor reads these (tools.predict.atomics). None for other tensors, for tensors small enough that their
    values are recorded whole, for huge ones, and for memory ``torch.empty`` left (``fill_uninitialized``)."""
    if getattr(getattr(value, "device", None), "type", "") != "cpu":
        return None
    return line_counts(value)


def line_counts(value) -> dict[str, int] | None:
    """``hottest_counts`` of an integer tensor on any device (benchmarks/predict_collect.py records a GPU launch's
    with it); None outside MAX_RECORDED_VALUES < elements <= MAX_COUNTED_VALUES or for a non-integer tensor."""
    dtype = str(getattr(value, "dtype", ""))
    if (
        not dtype.startswith(("torch.int", "torch.uint"))
        or not MAX_RECORDED_VALUES < value.numel() <= MAX_COUNTED_VALUES
    ):
        return None
    import torch

    flat = value.detach().flatten().to(torch.int64)
    if bool((flat == torch.iinfo(value.dtype).max).any()):
        return None
    ordered = flat.sort().values
    out = {}
    for d in LINE_ELEMENTS:
        _, counts = torch.unique_consecutive(torch.div(ordered, d, rounding_mode="floor"), return_counts=True)
        out[str(d)] = int(counts.max())
    return out


def describe_arguments(fn, bound_args: dict) -> list[dict]:
    """Each bound argument as a LaunchArgument dict: tensors by dtype, shape and bytes (and a small integer tensor's
    values), the rest by value."""
    constexprs = {p.name for p in fn.params if p.is_constexpr}
    out = []
    for name, value in bound_args.items():
        if hasattr(value, "data_ptr") and hasattr(value, "shape") and hasattr(value, "element_size"):
            out.append({
                "name": name, "kind": "tensor", "dtype": str(value.dtype).removeprefix("torch."),
                "shape": [int(d) for d in value.shape], "nbytes": int(value.numel() * value.element_size()),
                "values": tensor_values(value), "hottest": hottest_counts(value),
            })  # fmt: skip
        elif isinstance(value, (bool, int, float, str)) or value is None:
            out.append({"name": name, "kind": "constexpr" if name in constexprs else "scalar", "value": value})
        else:
            text = getattr(value, "__name__", None) or repr(value)[:40]
            out.append({"name": name, "kind": "constexpr" if name in constexprs else "scalar", "value": text})
    return out


def compile_example(spec: dict, arch: str):
    """(CompiledKernel, launch dict) for one example-argument spec on ``arch``; the launch dict fits LaunchInfo."""
    import triton
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    fn = spec["kernel"]
    if not hasattr(fn, "params") or not hasattr(fn, "signature"):
        raise TypeError(f"'kernel' must be a @triton.jit function, got {type(fn).__name__}")
    args = tuple(spec.get("args") or ())
    kwargs = _jit_kwargs(fn, dict(spec.get("kwargs") or {}))
    target = gpu_target(arch)
    backend = make_backend(target)
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound_args, specialization, bound_options = binder(*args, **kwargs)
    try:
        options, signature, constexprs, attrs = _pack_args(
            fn, backend, kwargs, bound_args, specialization, bound_options
        )
    except KeyError as exc:  # Triton's own check: a keyword that is neither a parameter nor a backend option
        known = sorted(k for k in backend.parse_options({}).__dict__ if not k.startswith("_"))
        raise LaunchSpecError(
            f"{exc.args[0]} for {target.backend} {target.arch} (kernel[grid](...) would fail the same way); "
            f"options this target takes: {', '.join(known)}"
        ) from None
    src = triton.compiler.ASTSource(fn, signature, constexprs, attrs)
    compiled = triton.compile(src, target=target, options=options.__dict__)

    described = {}
    for param, (kind, key), value in zip(fn.params, specialization, bound_args.values(), strict=True):
        described[param.name] = _describe(kind, key, value)
    grid = _grid(spec.get("grid"), bound_args)
    constexpr_names = {p.name for p in fn.params}
    given = {k: v for k, v in (spec.get("kwargs") or {}).items() if k not in constexpr_names}
    launch = {
        "grid": grid,
        "programs": math.prod(grid) if grid else None,
        # the compiled kernel's warps, not the option's: a warp-specialised loop adds its partitions' warps
        # (num_warps=4 on sm_90: 12 warps), and the launcher starts metadata.num_warps x 32 threads
        "block_threads": getattr(compiled.metadata, "num_warps", options.num_warps) * target.warp_size,
        "options": {k: v for k, v in given.items() if isinstance(v, (int, float, str, bool)) or v is None},
        "specialization": described,
        "arguments": describe_arguments(fn, bound_args),
        "source": "example-args",
        "note": None if grid else "no 'grid' given: launch-aware occupancy checks cannot tell how many CUs it fills",
    }
    return compiled, launch


def is_call_form(spec: Any) -> bool:
    """The whole-call form: ``{"call": host_fn, "args": (...), "kwargs": {...}}``."""
    return isinstance(spec, dict) and "call" in spec and "kernel" not in spec


def capture_launches(spec: dict) -> list[dict]:
    """Run the user's host function with every ``kernel[grid](...)`` it makes recorded instead of executed; each
    launch as an example-argument spec (kernel, args, kwargs, grid), in launch order.

    ``JITFunction.run`` is what ``kernel[grid](...)`` calls (``KernelInterface.__getitem__``); while the host function
    runs it is replaced by a recorder, so no GPU is needed: outputs stay as the host allocated them (CPU tensors).
    An autotuned kernel (``@triton.autotune``) would benchmark its configs and is refused."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    fn = spec["call"]
    if not callable(fn):
        raise TypeError(f"'call' must be the host function that launches the kernels, got {type(fn).__name__}")
    launches: list[dict] = []

    def record(self, *args, grid, warmup=False, **kwargs):
        if warmup:
            return None
        launches.append({"kernel": self, "args": tuple(args), "kwargs": dict(kwargs), "grid": grid})
        return None

    def refuse(self, *args, **kwargs):
        raise LaunchSpecError(
            f"{getattr(self.fn, '__name__', 'a kernel')} is autotuned: the call would benchmark its configs on a GPU; "
            "return the example-argument form with the chosen config instead"
        )

    saved = JITFunction.run, Autotuner.run
    JITFunction.run, Autotuner.run = record, refuse
    try:
        fn(*tuple(spec.get("args") or ()), **dict(spec.get("kwargs") or {}))
    finally:
        JITFunction.run, Autotuner.run = saved
    return launches
