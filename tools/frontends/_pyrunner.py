"""Child process that loads a Python kernel file and compiles it (file mode).

Run by the FlyDSL and Triton frontends as ``python -m tools.frontends._pyrunner FRONTEND FILE ARCH OUT_DIR``, with
the compiler's dump environment already set by the parent. The file-mode convention: the kernel file defines
``kernelpilot_entry()``, which returns

* FlyDSL: ``(jit_function, args)`` or ``(jit_function, args, kwargs)`` — called once with CPU tensors, compile-only;
  or ``None`` after launching the jit function itself;
* Triton, example-argument form (what the JIT launches): ``{"kernel": fn, "args": (...), "kwargs": {...},
  "grid": (...)}``, exactly the arguments of ``fn[grid](*args, **kwargs)``; the signature and the JIT's
  specialisation are derived by Triton's own binder (``tools.frontends._triton_jit``);
* Triton, signature form: ``{"kernel": fn, "signature": {...}, "constexprs": {...}, "options": {...}}`` (options
  such as ``num_warps``/``num_stages``), compiled without launch specialisation;
* or a list of such dicts (several launches);
* Triton, whole-call form: ``{"call": host_fn, "args": (...), "kwargs": {...}}``: the host function runs with every
  ``kernel[grid](...)`` recorded instead of executed (``_triton_jit.capture_launches``), and each recorded launch
  is compiled in order as an example-argument spec (its launch says ``source: "call"``).

The outcome goes to ``OUT_DIR/runner.json`` (``{"status": "ok" | "user_error" | "convention" | "exited", ...}``);
the exit code (0 compiled, 3 the user's code failed, 4 the convention was not followed) is informative only, since a
kernel file may exit with any code itself. No runner.json means the process ended early (``os._exit``, a crash).
"""

from __future__ import annotations

import inspect
import json
import math
import os
import sys
import traceback
from pathlib import Path

from tools import readlog
from tools.childproc import ConventionError, exception_fields, import_user_file, user_traceback, write_result
from tools.frontends._triton_jit import LaunchSpecError

ENTRY = "kernelpilot_entry"


def _load(path: Path):
    return import_user_file(path)


def compiler_cache_dirs() -> list[str]:
    """Where Triton and FlyDSL keep their own caches: files they read back from there are not the user's inputs."""
    home = Path.home()
    dirs = [home / ".triton", home / ".flydsl", os.environ.get("TRITON_CACHE_DIR"), os.environ.get("TRITON_HOME")]
    return [str(d) for d in dirs if d]


UNSPECIALISED = (
    "compiled without launch specialisation: pointers assumed unaligned; return example arguments (see README) "
    "to compile the kernel Triton's JIT launches"
)


def _check_triton_spec(spec) -> None:
    from tools.frontends._triton_jit import is_example_form

    if not isinstance(spec, dict) or "kernel" not in spec:
        raise ConventionError(
            f"{ENTRY}() must return a dict with 'kernel' and either 'args' (example arguments, as in "
            "kernel[grid](*args, **kwargs)) or 'signature' (or a list of such dicts)"
        )
    if is_example_form(spec):
        if not isinstance(spec["args"], (tuple, list)):
            raise ConventionError(
                f"'args' must be a tuple of the kernel's arguments, got {type(spec['args']).__name__}"
            )
        if not isinstance(spec.get("kwargs") or {}, dict):
            raise ConventionError("'kwargs' must be a dict of constexprs and launch options (num_warps, ...)")
        grid = spec.get("grid")
        if grid is not None and not (callable(grid) or isinstance(grid, (int, tuple, list))):
            raise ConventionError(f"'grid' must be a tuple of ints (or a callable), got {type(grid).__name__}")
    elif "signature" not in spec:
        raise ConventionError(f"{ENTRY}() returned a dict with neither 'args' nor 'signature'")


def _triton_compile(kernel, arch: str):
    """(CompiledKernel, launch dict): through the JIT's binder for example arguments, as given for a signature."""
    import triton

    from tools.frontends._triton_jit import compile_example, gpu_target, is_example_form

    if is_example_form(kernel):
        fn = kernel["kernel"]
        try:
            inspect.signature(fn.fn).bind(
                *kernel["args"],
                **{k: v for k, v in (kernel.get("kwargs") or {}).items() if k in {p.name for p in fn.params}},
            )
        except TypeError as exc:
            params = ", ".join(p.name for p in fn.params)
            raise ConventionError(f"the example arguments do not fit {fn.__name__}({params}): {exc}") from None
        except AttributeError:
            raise ConventionError(f"'kernel' must be a @triton.jit function, got {type(fn).__name__}") from None
        return compile_example(kernel, arch)
    target = gpu_target(arch)
    src = triton.compiler.ASTSource(
        fn=kernel["kernel"],
        signature=kernel["signature"],
        constexprs=kernel.get("constexprs") or {},
        attrs=kernel.get("attrs"),
    )
    options = kernel.get("options") or {}
    compiled = triton.compile(src, target=target, options=options)
    grid = kernel.get("grid")
    grid = [int(g) for g in ((grid,) if isinstance(grid, int) else grid)] if grid and not callable(grid) else None
    launch = {
        "grid": grid,
        "programs": math.prod(grid) if grid else None,
        "block_threads": compiled.metadata.num_warps * target.warp_size,
        "options": {k: v for k, v in options.items() if isinstance(v, (int, float, str, bool))},
        "specialization": {},
        "source": "signature",
        "note": None if kernel.get("attrs") else UNSPECIALISED,
    }
    return compiled, launch


def _check_call_spec(spec: dict) -> None:
    if not callable(spec["call"]):
        raise ConventionError(
            f"'call' must be the host function that launches the kernels, got {type(spec['call']).__name__}"
        )
    if not isinstance(spec.get("args") or (), (tuple, list)):
        raise ConventionError(
            f"'args' must be a tuple of the host function's arguments, got {type(spec['args']).__name__}"
        )
    if not isinstance(spec.get("kwargs") or {}, dict):
        raise ConventionError("'kwargs' must be a dict of the host function's keyword arguments")


def _triton_stages(kernel, arch: str, out: Path, index: int, called: bool = False) -> dict:
    compiled, launch = _triton_compile(kernel, arch)
    if called:
        launch["source"] = "call"
    name = compiled.metadata.name
    kdir = out / (name if index == 0 else f"{name}_{index}")
    kdir.mkdir(parents=True, exist_ok=True)
    ext = {
        "ttir": "mlir",
        "ttgir": "mlir",
        "llir": "ll",
        "amdgcn": "s",
        "ptx": "ptx",
        "hsaco": "hsaco",
        "cubin": "cubin",
    }
    stages = []
    n = 0
    for stage, body in compiled.asm.items():
        if stage == "source" or stage not in ext:
            continue
        n += 1
        path = kdir / f"{n:02d}_{stage}.{ext[stage]}"
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body)
        stages.append(str(path))
    meta = {k: v for k, v in compiled.metadata._asdict().items() if isinstance(v, (int, str, bool, float))}
    meta["target"] = str(compiled.metadata.target)
    (kdir / "metadata.json").write_text(json.dumps(meta, indent=1, default=str))
    (kdir / "launch.json").write_text(json.dumps(launch, indent=1, default=str))
    return {"name": name, "dir": str(kdir), "stages": stages}


RESULT_FILE = "runner.json"


def _report(out_dir: Path, status: str, **fields) -> None:
    """The outcome for the parent, in a file (``tools.childproc``): exit codes are the user's to choose
    (``sys.exit(4)`` in a kernel file must not read as one of ours), so the parent trusts this file only."""
    write_result(out_dir / RESULT_FILE, status, **fields)


def _exit_message(exc: SystemExit, where: str) -> str:
    return f"the kernel file called sys.exit({exc.code!r}) {where}; kernel files must not exit the interpreter"


def _entry_call(module, entry, kwargs: dict):
    """``kernelpilot_entry(**kwargs)`` (check's --shape); when the entry takes none of them and the file defines
    ``kernelpilot_inputs(seed, **shape)``, that with seed 0 (it returns the same forms)."""
    if not kwargs:
        return entry()
    params = inspect.signature(entry).parameters
    takes = any(p.kind == p.VAR_KEYWORD for p in params.values()) or all(k in params for k in kwargs)
    maker = getattr(module, "kernelpilot_inputs", None)
    if not takes and callable(maker):
        return maker(0, **kwargs)
    if not takes:
        raise ConventionError(
            f"{ENTRY}() takes no parameter {next(k for k in kwargs if k not in params)!r}: check compiles the kernel "
            f"for the shape {json.dumps(kwargs)} by calling {ENTRY}(**shape)"
        )
    return entry(**kwargs)


def main(argv: list[str]) -> int:
    call = None
    if argv[:1] == ["--call"]:  # the call spec's JSON (tools.callspec): it is the entry, kernelpilot_entry() or not
        call, argv = argv[1], argv[2:]
    frontend, file, arch, out = argv[:4]
    entry_kwargs = json.loads(argv[4]) if len(argv) > 4 else {}
    path = Path(file).resolve()
    out_dir = Path(out)
    readlog.start(readlog.skipped_dirs([out_dir, *compiler_cache_dirs()], keep=path.parent))
    try:
        module = _load(path)
    except SyntaxError as exc:
        print("".join(traceback.format_exception_only(type(exc), exc)), file=sys.stderr)
        _report(out_dir, "user_error", message="syntax error")
        return 3
    except SystemExit as exc:
        _report(out_dir, "exited", message=_exit_message(exc, "while it was being imported"))
        return 3
    except Exception as exc:  # the user's module failed at import: show their traceback
        print(user_traceback(exc, path), file=sys.stderr)
        _report(out_dir, "user_error", message="the module raised while it was being imported", **exception_fields(exc))
        return 3
    entry = getattr(module, ENTRY, None)
    if call is not None:
        from tools.callspec import entry_of

        def entry():
            try:
                return entry_of(module, call, frontend)
            except LookupError as exc:
                raise ConventionError(str(exc)) from None
    elif not callable(entry):
        _report(out_dir, "convention", message=f"{path.name} defines no {ENTRY}() function")
        return 4
    try:
        if frontend == "flydsl":
            from tools.frontends._flydsl_calls import record_jit_calls

            # the runtime scalars of each @flyc.jit call (n_blocks: fx.Int32) exist only here: recorded for the
            # predictor's loop bounds, with the kernel folders each call compiled
            with record_jit_calls(Path(os.environ.get("FLYDSL_DUMP_DIR") or out_dir / ".flydsl_dump")) as calls:
                spec = entry() if call is not None else _entry_call(module, entry, entry_kwargs)
                if spec is not None:
                    if not isinstance(spec, tuple) or len(spec) not in (2, 3) or not callable(spec[0]):
                        raise ConventionError(f"{ENTRY}() must return (jit_function, args[, kwargs]) or None")
                    fn, args, kwargs = (*spec, {}) if len(spec) == 2 else spec
                    fn(*args, **kwargs)
            result = {"kernels": [], "calls": calls}
        else:
            from tools.frontends._triton_jit import capture_launches, fill_uninitialized, is_call_form

            fill_uninitialized()
            spec = entry() if call is not None else _entry_call(module, entry, entry_kwargs)

            called = is_call_form(spec)
            if called:
                _check_call_spec(spec)
                specs = capture_launches(spec)
                if not specs:
                    what = f"--call {json.loads(call)['fn']}(...)" if call else f"the 'call' of {ENTRY}()"
                    raise ConventionError(f"{what} launched no Triton kernel")
            else:
                specs = spec if isinstance(spec, list) else [spec]
            for s in specs:
                _check_triton_spec(s)
            result = {"kernels": [_triton_stages(s, arch, out_dir, i, called) for i, s in enumerate(specs)]}
    except (ConventionError, LaunchSpecError) as exc:
        _report(out_dir, "convention", message=str(exc))
        return 4
    except SystemExit as exc:
        _report(out_dir, "exited", message=_exit_message(exc, f"inside {ENTRY}()"))
        return 3
    except Exception as exc:
        print(user_traceback(exc, path), file=sys.stderr)
        who = f"{json.loads(call)['fn']}() (--call)" if call else f"{ENTRY}()"
        _report(out_dir, "user_error", message=f"{who} raised", **exception_fields(exc))
        return 3
    readlog.write(out_dir)  # what the compile read: the cache reuses this result only while it is unchanged
    _report(out_dir, "ok", **result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
