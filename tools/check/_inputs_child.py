"""Child process: load a kernel file, build its launch arguments for one seed and shape, and write them to disk.

``python -m tools.check._inputs_child FILE FRONTEND CASES_JSON OUT_DIR [interpret [LOAD_DIR]]``

``CASES_JSON`` lists ``[seed, shape]`` pairs; case ``i`` is written to ``OUT_DIR/case<i>/`` (one process for all
cases: importing torch and the compiler is most of the cost).

Arguments come from ``kernelpilot_inputs(seed, **shape)`` when the file defines it (its values are used as given),
else from ``kernelpilot_entry(**shape)`` with every tensor refilled from the seed: floats standard normal, integers
uniform in ``[0, numel)``, booleans fair coins. Writes ``inputs.json`` (launches, arguments, buffers) and one
``bufN.bin`` per distinct tensor storage (tensors sharing storage share the buffer, as on the GPU).
With ``interpret`` (Triton only) it then runs each launch under Triton's interpreter and writes ``outN.bin`` for
every buffer after the run; with LOAD_DIR it first overwrites every buffer with ``LOAD_DIR/case<i>/bufN.bin`` (the other
file's inputs), so both kernels start from identical bytes.

The outcome is ``OUT_DIR/result.json`` (``tools.childproc``: ``ok``, ``convention`` when the file does not follow
the convention, ``user_error`` / ``exited`` / ``memory`` when its code failed); the exit code means nothing (a
kernel file may call ``sys.exit(4)`` itself).
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

from tools import readlog
from tools.childproc import failure, import_user_file, write_result

INPUTS = "kernelpilot_inputs"
ENTRY = "kernelpilot_entry"
RESULT_FILE = "result.json"


class ConventionError(Exception):
    """The file does not follow check's convention (no maker, a --shape key it does not take, a wrong return)."""


def _fill(storage_view, gen, torch):
    t = storage_view
    if t.dtype.is_floating_point:
        t.copy_(torch.randn(t.shape, generator=gen, dtype=torch.float32).to(t.dtype))
    elif t.dtype == torch.bool:
        t.copy_(torch.randint(0, 2, t.shape, generator=gen).bool())
    else:
        t.copy_(torch.randint(0, max(1, t.numel()), t.shape, generator=gen, dtype=torch.int64).to(t.dtype))


def _call(fn, seed, shape, with_seed):
    params = inspect.signature(fn).parameters
    args = (seed,) if with_seed else ()
    unknown = [k for k in shape if k not in params and not any(p.kind == p.VAR_KEYWORD for p in params.values())]
    if unknown:
        raise ConventionError(f"{fn.__name__}() takes no parameter {unknown[0]!r} (from --shape); it takes "
                         f"{', '.join(params) or 'none'}")  # fmt: skip
    return fn(*args, **shape)


def _launches(spec, frontend):
    if frontend == "flydsl":
        if not isinstance(spec, tuple) or len(spec) not in (2, 3) or not (spec[0] is None or callable(spec[0])):
            raise ConventionError("must return (jit_function, args[, kwargs]) for FlyDSL")
        fn, args, kwargs = (*spec, {}) if len(spec) == 2 else spec
        return [{"fn": fn, "args": list(args), "kwargs": dict(kwargs), "grid": None}]
    specs = spec if isinstance(spec, list) else [spec]
    out = []
    for s in specs:
        if not isinstance(s, dict) or "kernel" not in s or "args" not in s:
            raise ConventionError(
                "must return the example-argument form {'kernel', 'args', 'kwargs', 'grid'} for Triton"
            )
        out.append({"fn": s["kernel"], "args": list(s["args"]), "kwargs": dict(s.get("kwargs") or {}),
                    "grid": tuple(s.get("grid") or (1,))})  # fmt: skip
    return out


def _param_names(fn, n):
    for target in (fn, getattr(fn, "fn", None), getattr(fn, "func", None), getattr(fn, "__wrapped__", None)):
        if target is None:
            continue
        try:
            params = inspect.signature(target).parameters.values()
            names = [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        except (TypeError, ValueError):
            continue
        if len(names) >= n:
            return names[:n]
    return [f"arg{i}" for i in range(n)]


def main(argv):
    import torch

    file, frontend, cases_json, out = argv[:4]
    interpret = len(argv) > 4 and argv[4] == "interpret"
    load_dir = Path(argv[5]) if len(argv) > 5 else None
    path = Path(file).resolve()
    result = Path(out) / RESULT_FILE
    Path(out).mkdir(parents=True, exist_ok=True)
    readlog.start(readlog.skipped_dirs([out], keep=path.parent))  # what it reads keys the inputs cache
    try:
        module = import_user_file(path)
    except BaseException as exc:  # SystemExit included: the file's own exit is a failure, not our exit code
        write_result(result, **failure(exc, "while it was being imported", path))
        return 0
    user = callable(getattr(module, INPUTS, None))
    maker = getattr(module, INPUTS if user else ENTRY, None)
    if not callable(maker):
        write_result(result, "convention", message=f"{path.name} defines neither {INPUTS}(seed) nor {ENTRY}()")
        return 0
    for i, (seed, shape) in enumerate(json.loads(cases_json)):
        load = load_dir / f"case{i}" if load_dir else None
        try:
            _case(torch, maker, user, frontend, int(seed), shape, Path(out) / f"case{i}", interpret, load, module)
        except ConventionError as exc:
            text = str(exc)
            write_result(result, "convention", message=text if "(" in text.split()[0] else f"{maker.__name__}() {text}")
            return 0
        except BaseException as exc:
            write_result(result, **failure(exc, f"in {maker.__name__}() or a launch (seed {seed})", path))
            return 0
    readlog.write(Path(out))
    write_result(result, "ok")
    return 0


def _flydsl_jit_params(fn, module, n):
    """(name, is_constexpr) per argument of the @flyc.jit function behind ``fn`` (``fn`` itself, or the module's
    only jit function taking ``n`` arguments besides the stream, when ``fn`` is a wrapper such as ``launch``)."""
    jits = [fn] if hasattr(fn, "func") else [v for v in vars(module).values() if type(v).__name__ == "JitFunction"]
    found = []
    for jit in jits:
        try:
            params = list(inspect.signature(jit.func).parameters.values())
        except (TypeError, ValueError, AttributeError):
            continue
        params = [p for p in params if "Stream" not in repr(p.annotation)]
        if len(params) == n:
            found.append([(p.name, "Constexpr" in repr(p.annotation)) for p in params])
    return found[0] if len(found) == 1 else None


def _case(torch, maker, user, frontend, seed, shape, out_dir, interpret, load_dir, module=None):
    launches = _launches(_call(maker, seed, shape, user), frontend)
    gen = torch.Generator().manual_seed(seed)
    storages: dict[int, int] = {}
    buffers, tensors = [], []
    described = []
    for li, launch in enumerate(launches):
        names = _param_names(launch["fn"], len(launch["args"]))
        constexpr = [False] * len(launch["args"])
        if frontend == "flydsl" and module is not None:
            jit = _flydsl_jit_params(launch["fn"], module, len(launch["args"]))
            if jit:
                names, constexpr = [n for n, _ in jit], [c for _, c in jit]
        args = []
        for name, a in list(zip(names, launch["args"], strict=False)) + [(k, v) for k, v in launch["kwargs"].items()]:
            if isinstance(a, torch.Tensor):
                st = a.untyped_storage()
                key = st.data_ptr()
                if key not in storages:
                    storages[key] = len(buffers)
                    flat = torch.empty(0, dtype=a.dtype).set_(st, 0, (st.nbytes() // a.element_size(),))
                    if not user:
                        _fill(flat, gen, torch)
                    buffers.append({"name": name if li == 0 else f"{name}@{li}", "dtype": str(a.dtype).split(".")[-1],
                                    "element_size": a.element_size(), "nbytes": st.nbytes()})  # fmt: skip
                    tensors.append(flat)
                args.append({"name": name, "tensor": storages[key], "offset": a.storage_offset(),
                             "shape": list(a.shape), "strides": list(a.stride()),
                             "dtype": str(a.dtype).split(".")[-1]})  # fmt: skip
            elif isinstance(a, bool | int | float):
                args.append({"name": name, "scalar": a, "type": type(a).__name__})
            else:
                args.append({"name": name, "opaque": type(a).__name__})
        params = [{"name": p.name, "constexpr": bool(p.is_constexpr),
                   "do_not_specialize": bool(getattr(p, "do_not_specialize", False))}
                  for p in getattr(launch["fn"], "params", [])]  # fmt: skip
        for a, const in zip(args, constexpr, strict=False):
            a["constexpr"] = const  # FlyDSL Constexpr arguments are baked into the kernel, not passed to it
        described.append({"args": args[: len(launch["args"])], "kwargs": args[len(launch["args"]) :],
                          "grid": launch["grid"], "params": params})  # fmt: skip
    out_dir.mkdir(parents=True, exist_ok=True)
    for i, t in enumerate(tensors):
        (out_dir / f"buf{i}.bin").write_bytes(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    (out_dir / "inputs.json").write_text(
        json.dumps({"launches": described, "buffers": buffers, "user_inputs": user}, indent=1)
    )
    if load_dir is not None:
        for i, t in enumerate(tensors):
            data = (load_dir / f"buf{i}.bin").read_bytes() if (load_dir / f"buf{i}.bin").exists() else b""
            if len(data) != t.numel() * t.element_size():
                raise ConventionError(f"argument buffer {i} ({buffers[i]['name']}) has {t.numel() * t.element_size()} "
                                      f"bytes here but {len(data)} in the other file's inputs")  # fmt: skip
            t.view(torch.uint8).copy_(torch.frombuffer(bytearray(data), dtype=torch.uint8))
    if interpret:
        for launch in launches:
            launch["fn"][launch["grid"]](*launch["args"], **launch["kwargs"])
        for i, t in enumerate(tensors):
            (out_dir / f"out{i}.bin").write_bytes(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
