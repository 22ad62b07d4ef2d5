"""The frontend interface and the helpers every frontend shares.

A frontend compiles one language for one target and returns ``KernelDump`` models whose ``stages`` list every
artifact in compile order (like Triton's backends: ``ttir → ttgir → llir → amdgcn → hsaco``). Adding a language is
adding a file here and a line in ``FRONTENDS``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from abc import ABC, abstractmethod
from pathlib import Path

from tools.errors import CompileError, InputError, KernelpilotError
from tools.executors import LOCAL, RunResult
from tools.inputs import LANGUAGE_OF_SUFFIX
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
    suffixes: tuple[str, ...] = ()
    # environment variables the compiler reads (a name ending in "_" is a prefix): in the cache key, since C code's
    # getenv is not seen by the compile child's record (tools/readlog.py)
    env_keys: tuple[str, ...] = ()

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


def runner_outcome(out_dir: Path) -> dict | None:
    """What ``_pyrunner`` reported in ``out_dir/runner.json``; None when it ended before reporting."""
    try:
        outcome = json.loads((out_dir / "runner.json").read_text())
    except (OSError, ValueError):
        return None
    return outcome if isinstance(outcome, dict) and "status" in outcome else None


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
    if "lld invocation failed" in err:
        raise CompileError(
            f"{frontend} could not link the code object for {path.name}",
            hint="check that ziglang is installed (pip install ziglang) or that $ROCM_PATH/llvm/bin/ld.lld works",
            details=tail,
        )
    if "No module named" in err and ("flydsl" in err or "triton" in err or "torch" in err):
        raise KernelpilotError(
            f"a compiler package is missing: {err.splitlines()[-1]}",
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
_IMPORT_RE = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+import\s+([\w\s,*()]+)|import\s+([\w.,\s]+))", re.M)


def _python_frontend(path: Path, seen: set[Path], depth: int) -> str | None:
    """flydsl or triton when ``path`` imports it, or imports (through up to :data:`MAX_IMPORT_DEPTH` local modules) a
    module that does: an entry file in a sub-folder that puts the kernel's folder on ``sys.path`` and imports the
    kernel module, not ``triton`` itself."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    seen.add(path.resolve())
    if re.search(r"^\s*(import|from)\s+flydsl\b", text, re.M):
        return "flydsl"
    if re.search(r"^\s*(import|from)\s+triton\b", text, re.M):
        return "triton"
    if depth >= MAX_IMPORT_DEPTH:
        return None
    for module in _local_imports(path, text):
        if module.resolve() not in seen and (found := _python_frontend(module, seen, depth + 1)):
            return found
    return None


def _local_imports(path: Path, text: str) -> list[Path]:
    """Files of the modules ``text`` imports that live beside it, in a parent folder (scratch wrappers put ``..`` on
    ``sys.path``) or on ``PYTHONPATH``: ``kernel.py`` or ``kernel/__init__.py``."""
    roots = [path.parent, *list(path.resolve().parents)[:2]]
    roots += [Path(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    names: list[str] = []
    for m in _IMPORT_RE.finditer(text):
        if m.group(3):
            names += [n.strip().split(" ")[0] for n in m.group(3).split(",") if n.strip()]
        else:
            base = m.group(1).lstrip(".")
            items = [n.strip().split(" ")[0] for n in m.group(2).strip("()").split(",") if n.strip()]
            names += [f"{base}.{n}" if base else n for n in items if n != "*"] + ([base] if base else [])
    out = []
    for name in dict.fromkeys(names):
        rel = Path(*name.split("."))
        for root in roots:
            for cand in (root / f"{rel}.py", root / rel / "__init__.py"):
                if cand.is_file() and cand not in out:
                    out.append(cand)
    return out


def detect_frontend(path: Path) -> str:
    """Pick the frontend from the file: .cu → cuda, .hip → hip, Python importing flydsl/triton → that."""
    suffix = path.suffix.lower()
    if suffix in LANGUAGE_OF_SUFFIX:
        return LANGUAGE_OF_SUFFIX[suffix]
    if suffix == ".py":
        found = _python_frontend(path, set(), 0)
        if found:
            return found
        raise InputError(
            f"{path.name} imports neither flydsl nor triton (nor does a local module it imports), so it is not a "
            "kernel file kernelpilot knows",
            hint="pass --frontend flydsl|triton, or give a .cu/.hip file",
        )
    raise InputError(
        f"cannot tell the kernel language of {path.name} (suffix '{suffix}')",
        hint="use a .py (FlyDSL/Triton), .cu (CUDA) or .hip file, or pass --frontend",
    )


def get_frontend(name: str) -> Frontend:
    if name not in FRONTENDS:
        raise InputError(f"unknown frontend '{name}'", hint=f"use one of: {', '.join(FRONTENDS)}")
    module, cls = FRONTENDS[name]
    import importlib

    return getattr(importlib.import_module(module), cls)()


FRONTENDS: dict[str, tuple[str, str]] = {
    "flydsl": ("tools.frontends.flydsl", "FlyDSLFrontend"),
    "triton": ("tools.frontends.triton", "TritonFrontend"),
    "cuda": ("tools.frontends.cuda", "CudaFrontend"),
    "hip": ("tools.frontends.hip", "HipFrontend"),
    "mojo": ("tools.frontends.mojo", "MojoFrontend"),
}
