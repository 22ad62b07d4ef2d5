"""The frontend interface and the helpers every frontend shares.

A frontend compiles one language for one target and returns ``KernelDump`` models whose ``stages`` list every
artifact in compile order (like Triton's backends: ``ttir → ttgir → llir → amdgcn → hsaco``). Adding a language is
adding a file here and a line in ``tools.frontends.registry.FRONTENDS``.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import sys
from abc import ABC, abstractmethod
from pathlib import Path

from tools.childproc import read_result
from tools.errors import CompileError, InputError, KernelpilotError
from tools.executors import LOCAL, RunResult
from tools.frontends.registry import FRONTENDS, LANGUAGE_OF_SUFFIX, PYTHON_FRONTENDS
from tools.isa import arch as archmod
from tools.isa.metadata import detect_arch, read_kernel_metadata, resources_from_metadata
from tools.models.dump import CompilerVersions, KernelDump, Resources, Stage

_STAGE_NUMBER = re.compile(r"^\d+_")
ENTRY_NAME = "kernelpilot_entry"


def stage_name(path: Path) -> str:
    """``23_final_isa.s`` → ``final_isa``: stages are found by name, never by number (numbers vary)."""
    return _STAGE_NUMBER.sub("", path.name).rsplit(".", 1)[0]


def stages_of(paths: list[Path]) -> list[Stage]:
    return [Stage(name=stage_name(p), path=str(p), bytes=p.stat().st_size) for p in paths]


_WAVES_PER_EU_RE = re.compile(r'"amdgpu-waves-per-eu"="(\d+),(\d+)"')


def waves_per_eu_from_llir(text: str) -> int | None:
    """The upper bound of ``amdgpu-waves-per-eu`` in an LLVM IR module (Triton's ``waves_per_eu``); None if unset."""
    bounds = [int(m.group(2)) for m in _WAVES_PER_EU_RE.finditer(text)]
    return min(bounds) if bounds else None


def amd_resources(
    isa_path: Path,
    kernel: str,
    arch: str,
    dynamic_lds_bytes: int = 0,
    workgroup_size: int | None = None,
    llir: Path | None = None,
) -> Resources:
    """Resources of ``kernel`` read from its final ISA; when the ISA holds one kernel it is that one.

    Launch facts enter the occupancy: LDS the launch allocates beyond the static group segment (Triton's
    ``metadata.shared``), the launch's workgroup size, and ``amdgpu-waves-per-eu`` read from the LLVM IR stage."""
    text = isa_path.read_text(errors="replace")
    metas = read_kernel_metadata(text)
    meta = metas.get(kernel) or (next(iter(metas.values())) if len(metas) == 1 else None)
    if meta is None:
        return Resources(notes=[f"no resource metadata for {kernel} in {isa_path.name}"])
    waves_per_eu = waves_per_eu_from_llir(llir.read_text(errors="replace")) if llir and llir.exists() else None
    arch = arch or detect_arch(text)
    return resources_from_metadata(meta, arch, dynamic_lds_bytes, workgroup_size, waves_per_eu)


class Frontend(ABC):
    """Compile one language; subclasses set ``name``, ``archs`` and implement the two modes."""

    name: str = ""
    archs: tuple[str, ...] = ()
    # environment variables the compiler reads (a name ending in "_" is a prefix): in the cache key, since C code's
    # getenv is not seen by the compile child's record (tools/readlog.py)
    env_keys: tuple[str, ...] = ()

    @property
    def suffixes(self) -> tuple[str, ...]:
        """The kernel-file suffixes of this language, as the registry lists them (detection reads the registry)."""
        return FRONTENDS[self.name].suffixes

    def check_arch(self, arch: str) -> str:
        arch = archmod.normalize_arch(arch)
        if arch not in self.archs:
            raise InputError(
                f"the {self.name} frontend cannot target {arch}",
                hint=f"{self.name} targets: {', '.join(self.archs)}",
            )
        return arch

    def check_flags(self, path: Path, flags: list[str]) -> None:
        """Refuse compiler flags this frontend does not pass on safely (the Python frontends take none)."""
        if flags:
            raise InputError(
                f"the {self.name} frontend takes no compiler flags (got {' '.join(flags)[:200]})",
                hint="flags apply to .cu, .hip and .mojo files; set Triton/FlyDSL options in kernelpilot_entry()",
            )

    @abstractmethod
    def versions(self) -> CompilerVersions:
        """Compiler versions, cheaply (no heavy imports): part of the cache key and of every result."""

    @abstractmethod
    def compile_file(self, path: Path, arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        """File mode: compile the kernel file for ``arch`` into ``out_dir``."""

    def compile_command(self, argv: list[str], arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        raise InputError(f"command mode is not supported for {self.name}", hint="use file mode")


RUNNER_CAPTURE_BYTES = 1024 * 1024  # a kernel file printing in a loop must not fill memory, the log or the cache


def python_runner(
    frontend: str,
    path: Path,
    arch: str,
    out_dir: Path,
    env: dict[str, str],
    timeout: float,
    entry_kwargs=None,
    call: str | None = None,
) -> RunResult:
    """Run tools.frontends._pyrunner in a child interpreter with the compiler's environment (``entry_kwargs``: the
    keyword arguments ``kernelpilot_entry`` is called with, e.g. check's ``--shape``; ``call``: a call spec's JSON,
    tools.callspec, which replaces the entry)."""
    root = str(Path(__file__).resolve().parents[2])
    # kernelpilot's root first, then whatever the caller had (e.g. packages installed with --target)
    inherited = [p for p in (env.get("PYTHONPATH"), os.environ.get("PYTHONPATH")) if p]
    pythonpath = os.pathsep.join([root, *inherited])
    argv = [sys.executable, "-m", "tools.frontends._pyrunner", *(["--call", call] if call else [])]
    argv += [frontend, str(path), arch, str(out_dir)]
    argv += [json.dumps(entry_kwargs)] if entry_kwargs else []
    (out_dir / "runner.json").unlink(missing_ok=True)
    return LOCAL.run(
        argv,
        timeout=timeout,
        env={**env, "PYTHONPATH": pythonpath},
        cwd=path.parent,
        max_capture=RUNNER_CAPTURE_BYTES,
    )


def run_user_command(argv: list[str], env: dict[str, str], options: dict) -> RunResult:
    """Command mode: the user's program with the compiler's dump environment, its output bounded like a kernel
    file's (it may print without end)."""
    return LOCAL.run(
        argv,
        timeout=options.get("timeout", 600),
        env=env,
        cwd=options.get("cwd"),
        max_capture=RUNNER_CAPTURE_BYTES,
    )


_NOISE = re.compile(
    r"^\[flydsl\.compile\] dump |^\s*warn_once\(|UserWarning: (TRITON_DEFAULT_FP_FUSION|Failed to initialize NumPy)"
)
_SIGNAL_MEANING = {
    "SIGSEGV": "segmentation fault",
    "SIGBUS": "bus error",
    "SIGABRT": "abort",
    "SIGILL": "illegal instruction",
    "SIGFPE": "arithmetic fault",
    "SIGKILL": "killed, often by the out-of-memory killer",
}


COMPILER_PACKAGES = ("flydsl", "triton", "torch")  # what the frontends import in the compile child


def runner_outcome(out_dir: Path) -> dict | None:
    """What ``_pyrunner`` reported in ``out_dir/runner.json``; None when it ended before reporting."""
    return read_result(out_dir / "runner.json")


def raise_for_runner(result: RunResult, path: Path, frontend: str, log_path: Path) -> None:
    """Turn a failed child run into a CompileError/InputError carrying the user's own traceback.

    The runner's own report (runner.json) decides, never the exit code: a kernel file may exit with any code.
    """
    outcome = runner_outcome(log_path.parent)
    status = outcome["status"] if outcome else None
    if status == "ok" and not result.timed_out:
        return
    err = "\n".join(line for line in result.stderr.splitlines() if not _NOISE.search(line)).strip()
    tail = "\n".join(err.splitlines()[-60:])
    if result.timed_out:
        raise CompileError(
            f"compiling {path.name} took longer than {result.duration_s:.0f}s and was stopped",
            hint="raise --timeout, or reduce the problem sizes used by kernelpilot_entry()",
            details=tail,
        )
    if status == "convention":
        raise InputError(
            f"{path.name} does not follow the file-mode convention: {outcome.get('message', '')}",
            hint="define kernelpilot_entry() as described in the README (File mode), or use command mode "
            "(kernelpilot dump-ir --cmd python your_script.py)",
            details=tail,
        )
    if status == "exited":
        raise InputError(
            f"{path.name}: {outcome.get('message', 'the kernel file exited the interpreter')}",
            hint="remove the sys.exit() call, or guard script code with `if __name__ == '__main__':` (kernelpilot "
            f"imports the file and calls {ENTRY_NAME}())",
            details=tail,
        )
    if status is None:
        if result.signal_name:
            meaning = _SIGNAL_MEANING.get(result.signal_name, "killed by a signal")
            raise CompileError(
                f"the process compiling {path.name} with {frontend} crashed: {result.signal_name} ({meaning}) "
                f"(full log: {log_path})",
                hint="a crash in native code (the compiler, or a library the kernel file calls); the last lines "
                "above are what it printed before dying",
                details=tail,
            )
        raise CompileError(
            f"the process compiling {path.name} ended with exit code {result.returncode} before it reported a "
            "result: the kernel file (or a library it calls) ended the interpreter, e.g. with os._exit()",
            hint=f"remove the os._exit()/exit call from the kernel file; kernelpilot imports it and calls "
            f"{ENTRY_NAME}()",
            details=tail,
        )
    # the child's record of the exception decides (tools.childproc.exception_fields), not text the kernel printed
    if "lld invocation failed" in outcome.get("exception_text", ""):
        raise CompileError(
            f"{frontend} could not link the code object for {path.name}",
            hint="check that ziglang is installed (pip install ziglang) or that $ROCM_PATH/llvm/bin/ld.lld works",
            details=tail,
        )
    missing = outcome.get("missing_module") or ""
    if missing.partition(".")[0] in COMPILER_PACKAGES and importlib.util.find_spec(missing.partition(".")[0]) is None:
        raise KernelpilotError(
            f"a compiler package is missing: No module named {missing!r} (imported by {path.name})",
            hint="pip install -e '.[compilers]' in the kernelpilot checkout",
        )
    raise CompileError(
        f"{path.name} failed to compile with {frontend} (full log: {log_path})",
        hint="fix the kernel; the lines above are the compiler's and your code's own",
        details=tail,
    )


def write_log(out_dir: Path, result: RunResult) -> Path:
    log = out_dir / "compile.log"
    log.write_text(f"$ {' '.join(result.argv)}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}")
    return log


MAX_IMPORT_DEPTH = 3  # local modules followed from the entry file (entry → kernel module → its helpers)


def _python_frontend(path: Path, seen: list[Path], depth: int) -> str | None:
    """flydsl or triton when ``path`` imports it, or imports (through up to :data:`MAX_IMPORT_DEPTH` local modules) a
    module that does: an entry file in a sub-folder that puts the kernel's folder on ``sys.path`` and imports the
    kernel module, not ``triton`` itself. ``seen`` collects every file read, in order."""
    seen.append(path.resolve())
    tree = _parse(path, strict=depth == 0)
    if tree is None:
        return None
    imported = _imports(tree)
    # a package by its top-level name: `import torch, triton`, `from triton.language import core`
    tops = {name.split(".")[0] for level, name in imported if level == 0}
    found = next((lang for lang in PYTHON_FRONTENDS if lang in tops), None)
    if found or depth >= MAX_IMPORT_DEPTH:
        return found
    for module in _local_modules(path, tree, imported):
        if module.resolve() not in seen and (found := _python_frontend(module, seen, depth + 1)):
            return found
    return None


def _parse(path: Path, *, strict: bool) -> ast.Module | None:
    """The file's syntax tree; a file that does not parse is an error for the entry file (``strict``), skipped when
    it is only a module the entry imports."""
    try:
        return ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as e:
        if strict:
            # the import lines that parse alone: a kernel file of a known language with a syntax error elsewhere is
            # compiled, so the compile child shows the user's line and Python's own message (not ours)
            imports = _import_lines(path)
            if {name.split(".")[0] for _, name in _imports(imports)} & set(PYTHON_FRONTENDS):
                return imports
            raise InputError(
                f"{path.name} does not parse as Python: line {e.lineno}: {e.msg}",
                hint="fix the syntax error (python -m py_compile " + path.name + " shows it), or pass --frontend",
            ) from None
    except (OSError, ValueError):  # unreadable, or null bytes
        if strict:
            raise InputError(
                f"{path.name} is not a readable Python source file", hint="give the kernel's .py file"
            ) from None
    return None


def _import_lines(path: Path) -> ast.Module:
    """The file's top-level ``import``/``from`` lines that parse on their own, as one module."""
    body = []
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(("import ", "from ")):
            try:
                body += ast.parse(line).body
            except SyntaxError:
                continue
    return ast.Module(body=body, type_ignores=[])


def _imports(tree: ast.Module) -> list[tuple[int, str]]:
    """Every module the file imports, anywhere in it (a try block, a function): ``(level, dotted name)``, level > 0
    for a relative import; ``from pkg import a`` gives ``pkg`` and ``pkg.a`` (a may be a submodule)."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(0, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            out += [(node.level, base)] if base else []
            out += [(node.level, f"{base}.{a.name}" if base else a.name) for a in node.names if a.name != "*"]
    return out


def _local_modules(path: Path, tree: ast.Module, imported: list[tuple[int, str]]) -> list[Path]:
    """Files of the imported modules that would load from the entry's own search path: its folder (Python's
    ``sys.path[0]``; kernelpilot runs the file from there), folders it adds to ``sys.path`` itself, ``PYTHONPATH``,
    and the two folders above it (scratch wrappers put ``..`` on ``sys.path`` in ways not read here). Relative imports
    resolve from the file's folder. Each module is ``name.py`` or ``name/__init__.py``; ``a.b`` also loads ``a``."""
    folder = path.parent
    roots = [folder, *_sys_path_additions(tree, path)]
    roots += [Path(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    roots += list(path.resolve().parents)[:2]
    out: list[Path] = []
    for level, name in dict.fromkeys(imported):
        parts = name.split(".") if name else []
        bases = [folder.joinpath(*[".."] * (level - 1))] if level else roots
        for k in range(1, len(parts) + 1):
            rel = Path(*parts[:k])
            for base in bases:
                for cand in (base / f"{rel}.py", base / rel / "__init__.py"):
                    if cand.is_file() and cand.resolve() not in {c.resolve() for c in out}:
                        out.append(cand)
    return out


def _sys_path_additions(tree: ast.Module, path: Path) -> list[Path]:
    """Folders the file puts on ``sys.path`` (``sys.path.insert(0, X)`` / ``sys.path.append(X)``) where X is built
    from string constants, ``__file__``, ``os.path.dirname/abspath/realpath/join`` and ``Path(...)``'s ``.parent``,
    ``.parents[n]``, ``.resolve()`` and ``/``; anything else is not guessed."""
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("insert", "append")
            and ast.unparse(node.func.value) == "sys.path"
            and node.args
        ):
            value = _static_path(node.args[-1], path)
            if value is not None:
                out.append(value if value.is_absolute() else path.parent / value)
    return out


def _static_path(node: ast.expr, path: Path) -> Path | None:
    """The path an expression of constants and ``__file__`` evaluates to (see ``_sys_path_additions``), else None."""
    here = path.resolve()
    match node:
        case ast.Constant(value=str(text)):
            return Path(text)
        case ast.Name(id="__file__"):
            return here
        case ast.Call(func=func, args=args) if ast.unparse(func) in ("str", "Path", "pathlib.Path", "os.fspath"):
            return _static_path(args[0], path) if len(args) == 1 else None
        case ast.Call(func=func, args=args) if ast.unparse(func) in ("os.path.abspath", "os.path.realpath"):
            inner = _static_path(args[0], path) if len(args) == 1 else None
            return inner.resolve() if inner else None
        case ast.Call(func=func, args=args) if ast.unparse(func) == "os.path.dirname" and len(args) == 1:
            inner = _static_path(args[0], path)
            return inner.parent if inner else None
        case ast.Call(func=func, args=args) if ast.unparse(func) == "os.path.join" and args:
            pieces = [_static_path(a, path) for a in args]
            return Path(*pieces) if all(p is not None for p in pieces) else None
        case ast.Call(func=ast.Attribute(value=inner, attr="resolve" | "absolute"), args=[]):
            base = _static_path(inner, path)
            return base.resolve() if base else None
        case ast.Attribute(value=inner, attr="parent"):
            base = _static_path(inner, path)
            return base.parent if base else None
        case ast.Subscript(value=ast.Attribute(value=inner, attr="parents"), slice=ast.Constant(value=int(n))):
            base = _static_path(inner, path)
            return base.parents[n] if base and n < len(base.parents) else None
        case ast.BinOp(left=left, op=ast.Div(), right=right):
            a, b = _static_path(left, path), _static_path(right, path)
            return a / b if a is not None and b is not None else None
    return None


def detect_frontend(path: Path) -> str:
    """Pick the frontend from the file: .cu → cuda, .hip → hip, .mojo → mojo, Python importing flydsl/triton (itself
    or through the local modules it imports) → that."""
    suffix = path.suffix.lower()
    if suffix in LANGUAGE_OF_SUFFIX:
        return LANGUAGE_OF_SUFFIX[suffix]
    if suffix == ".py":
        seen: list[Path] = []
        found = _python_frontend(path, seen, 0)
        if found:
            return found
        followed = ", ".join(p.name for p in seen[1:]) or "none"
        raise InputError(
            f"{path.name} imports neither {' nor '.join(PYTHON_FRONTENDS)}, nor does a local module it imports "
            f"(local modules followed, up to {MAX_IMPORT_DEPTH} deep: {followed}), so it is not a kernel file kernelpilot knows",
            hint=f"pass --frontend {'|'.join(PYTHON_FRONTENDS)}, or give a .cu/.hip/.mojo file",
        )
    raise InputError(
        f"cannot tell the kernel language of {path.name} (suffix '{suffix}')",
        hint="use a .py (FlyDSL/Triton), .cu (CUDA), .hip or .mojo file, or pass --frontend " + "|".join(FRONTENDS),
    )


def get_frontend(name: str) -> Frontend:
    if name not in FRONTENDS:
        raise InputError(f"unknown frontend '{name}'", hint=f"use one of: {', '.join(FRONTENDS)}")
    module, cls = FRONTENDS[name].module, FRONTENDS[name].cls
    import importlib

    return getattr(importlib.import_module(module), cls)()
