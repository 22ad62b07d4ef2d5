"""Child process that loads a Python kernel file and compiles it (file mode).

Run by the FlyDSL and Triton frontends as ``python -m tools.frontends._pyrunner FRONTEND FILE ARCH OUT_DIR``, with
the compiler's dump environment already set by the parent. The file-mode convention: the kernel file defines
``kernelpilot_entry()``, which returns

* FlyDSL: ``(jit_function, args)`` or ``(jit_function, args, kwargs)`` — called once with CPU tensors, compile-only;
  or ``None`` after launching the jit function itself;
* Triton: a dict ``{"kernel": fn, "signature": {...}, "constexprs": {...}, "options": {...}}`` (options such as
  ``num_warps``/``num_stages``), or a list of such dicts.

The outcome goes to ``OUT_DIR/runner.json`` (``{"status": "ok" | "user_error" | "convention" | "exited", ...}``);
the exit code (0 compiled, 3 the user's code failed, 4 the convention was not followed) is informative only, since a
kernel file may exit with any code itself. No runner.json means the process ended early (``os._exit``, a crash).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
from pathlib import Path

ENTRY = "kernelpilot_entry"


def _user_traceback(exc: BaseException, path: Path) -> str:
    """The traceback from the user's file onward: our own frames are noise to the reader."""
    frames = traceback.extract_tb(exc.__traceback__)
    start = next((i for i, f in enumerate(frames) if Path(f.filename).resolve() == path), None)
    if start is None:  # raised inside the compiler after the entry returned: its message carries the source lines
        return "".join(traceback.format_exception_only(type(exc), exc))
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames[start:])]
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines)


def _load(path: Path):
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _triton_stages(kernel, arch: str, out: Path, index: int) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget

    if arch.startswith("gfx"):
        target = GPUTarget("hip", arch, 64)
    else:
        target = GPUTarget("cuda", int(arch.removeprefix("sm_")), 32)
    fn = kernel["kernel"]
    src = triton.compiler.ASTSource(
        fn=fn, signature=kernel["signature"], constexprs=kernel.get("constexprs") or {}, attrs=kernel.get("attrs")
    )
    compiled = triton.compile(src, target=target, options=kernel.get("options") or {})
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
    return {"name": name, "dir": str(kdir), "stages": stages}


RESULT_FILE = "runner.json"


def _report(out_dir: Path, status: str, **fields) -> None:
    """The outcome for the parent, in a file: exit codes are the user's to choose (``sys.exit(4)`` in a kernel file
    must not read as one of ours), so the parent trusts this file and never the exit code."""
    tmp = out_dir / (RESULT_FILE + ".tmp")
    tmp.write_text(json.dumps({"status": status, **fields}))
    tmp.replace(out_dir / RESULT_FILE)


def _exit_message(exc: SystemExit, where: str) -> str:
    return f"the kernel file called sys.exit({exc.code!r}) {where}; kernel files must not exit the interpreter"


def main(argv: list[str]) -> int:
    frontend, file, arch, out = argv
    path = Path(file).resolve()
    out_dir = Path(out)
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
        print(_user_traceback(exc, path), file=sys.stderr)
        _report(out_dir, "user_error", message="the module raised while it was being imported")
        return 3
    entry = getattr(module, ENTRY, None)
    if not callable(entry):
        _report(out_dir, "convention", message=f"{path.name} defines no {ENTRY}() function")
        return 4
    try:
        spec = entry()
        if frontend == "flydsl":
            if spec is not None:
                if not isinstance(spec, tuple) or len(spec) not in (2, 3) or not callable(spec[0]):
                    _report(
                        out_dir, "convention", message=f"{ENTRY}() must return (jit_function, args[, kwargs]) or None"
                    )
                    return 4
                fn, args, kwargs = (*spec, {}) if len(spec) == 2 else spec
                fn(*args, **kwargs)
            result = {"kernels": []}
        else:
            specs = spec if isinstance(spec, list) else [spec]
            if not all(isinstance(s, dict) and "kernel" in s and "signature" in s for s in specs):
                _report(
                    out_dir,
                    "convention",
                    message=f"{ENTRY}() must return a dict with 'kernel' and 'signature' (or a list of them)",
                )
                return 4
            result = {"kernels": [_triton_stages(s, arch, out_dir, i) for i, s in enumerate(specs)]}
    except SystemExit as exc:
        _report(out_dir, "exited", message=_exit_message(exc, f"inside {ENTRY}()"))
        return 3
    except Exception as exc:
        print(_user_traceback(exc, path), file=sys.stderr)
        _report(out_dir, "user_error", message=f"{ENTRY}() raised")
        return 3
    _report(out_dir, "ok", **result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
