"""Mojo: compile GPU kernels with the MAX toolchain (``max-core``), keeping LLVM IR, final ISA and the binary.

File mode generates a small Mojo harness next to the dump that imports the user's module and calls
``compile_info[kernel, emission_kind=…, target=get_gpu_target["gfx942"]()]()`` once per stage (``llvm``,
``llvm-opt``, ``asm``, ``object``) and writes each result to a file; ``mojo run -I <kernel dir>`` runs it on the
host, so no GPU is needed. On NVIDIA the ``object`` stage is a real cubin from the compiler's built-in ptxas.

Which kernels, and with which compile-time parameters (the file-mode convention, also in docs/MOJO.md):

- one line ``# kernelpilot: kernel <expression>`` per kernel, where the expression names a function of the file
  with concrete parameters, e.g. ``# kernelpilot: kernel mfma_loop`` or ``# kernelpilot: kernel tiled[64, 4]``.
  The expression is evaluated with every top-level name of the file in scope (``from <module> import *``).
- without such a line: every top-level, non-parametric ``def`` that returns nothing, except ``main`` and names
  starting with ``_`` (a parametric kernel needs the header: its parameters cannot be guessed).

``max-core`` (which brings ``mojo-compiler``) is under the Modular Community License and is never bundled: it is
found at run time (the ``mojo`` wrapper beside ``sys.executable``, then PATH) and a ToolchainError says how to
install it when missing. Diagnostics come back as JSON (``--diagnostic-format json``) and become CompileErrors
that name ``file:line:col``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tools import paths
from tools.errors import CompileError, InputError, ToolchainError
from tools.executors import LOCAL, RunResult
from tools.frontends.base import Frontend, amd_resources, stages_of, write_log
from tools.frontends.nvidia import add_sass_spills, nvidia_resources, write_sass
from tools.isa.arch import AMD_TARGETS, NVIDIA_TARGETS, is_amd
from tools.models.dump import CompilerVersions, KernelDump
from tools.toolchain import cache_root, package_version

MAX_CORE = "max-core"
INSTALL_HINT = (
    "pip install max-core==26.7.0 (or pip install -e '.[mojo]' in the kernelpilot checkout); it is under the "
    "Modular Community License, so kernelpilot does not ship it"
)

_HEADER = re.compile(r"^[ \t]*#[ \t]*kernelpilot:[ \t]*kernel[ \t]+(\S.*?)[ \t]*$", re.M)
_TOP_DEF = re.compile(r"^def[ \t]+([A-Za-z_]\w*)[ \t]*(\[)?", re.M)
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_CRASHPAD = re.compile(r"^Failed to initialize Crashpad")


@dataclass(frozen=True)
class MojoKernel:
    """One kernel to compile: the Mojo expression, its function name and a directory-safe label."""

    expression: str
    function: str

    @property
    def label(self) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", self.expression).strip("_")


def _returns_nothing(text: str, start: int) -> bool:
    """True when the signature starting at ``start`` (just after the name) has no ``->`` before its colon."""
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == ":" and depth == 0:
            return "->" not in text[start:i]
        i += 1
    return False


def _function_of(expression: str) -> str:
    """``tiled[64, 4]`` → ``tiled``: the name the compiler mangles into the kernel symbol."""
    m = re.match(r"[A-Za-z_]\w*", expression)
    return m.group(0) if m else expression


def kernels_in(text: str) -> list[MojoKernel]:
    """The kernels a file asks for (header lines), else every top-level non-parametric ``def`` returning nothing."""
    declared = _HEADER.findall(text)
    if declared:
        return [MojoKernel(expr, _function_of(expr)) for expr in declared]
    found = []
    for m in _TOP_DEF.finditer(text):
        name, parametric = m.group(1), m.group(2)
        if name == "main" or name.startswith("_") or parametric:
            continue
        if _returns_nothing(text, m.end()):
            found.append(MojoKernel(name, name))
    return found


def find_mojo() -> Path:
    """The ``mojo`` wrapper of the installed max-core: beside this interpreter first (a venv), then PATH.

    The wrapper (a console script of the ``mojo`` package) sets MODULAR_MOJO_MAX_* so the compiler finds its
    stdlib and the ``max.gpu`` package; the raw driver in ``site-packages/modular/bin`` would not.
    """
    if package_version(MAX_CORE) is None:
        raise ToolchainError(
            f"{MAX_CORE} is not installed; it is needed to compile Mojo GPU kernels", hint=INSTALL_HINT
        )
    beside = Path(sys.executable).parent / "mojo"
    if beside.exists():
        return beside
    on_path = shutil.which("mojo")
    if on_path:
        return Path(on_path)
    raise ToolchainError(
        f"{MAX_CORE} is installed but its 'mojo' command was found neither beside {sys.executable} nor on PATH",
        hint="run kernelpilot from the environment max-core was installed into, or put its bin/ on PATH",
    )


def mojo_cache_env(path: Path) -> dict[str, str]:
    """A Mojo compilation cache per kernel directory.

    Mojo's cache keys on content, not on where the file lives: an identical file compiled earlier from another
    directory comes back with that directory in its ``.loc``/``.file`` lines. One cache per source directory keeps
    the line tables pointing at this file, and still makes a repeated compile of it fast (16 s → 4 s).
    """
    digest = hashlib.sha256(str(path.parent.resolve()).encode()).hexdigest()[:16]
    return {"MODULAR_CACHE_DIR": str(cache_root() / "mojo-cache" / digest)}


def _target_name(arch: str) -> str:
    return arch  # get_gpu_target accepts gfx90a/gfx942/gfx950/sm_80/sm_90 as kernelpilot spells them


def _stage_files(kernel: MojoKernel, arch: str, out_dir: Path) -> list[tuple[str, Path]]:
    """(emission_kind, file) in compile order for one kernel."""
    kdir = out_dir / kernel.label
    if is_amd(arch):
        isa, binary = "03_amdgcn.s", "04_hsaco.hsaco"
    else:
        isa, binary = "03_ptx.ptx", "04_cubin.cubin"
    return [
        ("llvm", kdir / "01_llvm_ir.ll"),
        ("llvm-opt", kdir / "02_llvm_ir_opt.ll"),
        ("asm", kdir / isa),
        ("object", kdir / binary),
    ]


def harness_source(module: str, kernels: list[MojoKernel], arch: str, out_dir: Path) -> str:
    """The generated Mojo program that writes every stage of every kernel (pure: the text only).

    Paths are relative to ``out_dir`` (the run's cwd), so the text depends only on the kernels and the target: the
    harness can be rerun by hand in the dump directory, and Mojo's own cache can recognise a repeated compile.
    """
    lines = [
        "# Generated by kernelpilot dump-ir: writes every compile stage of each kernel to a file.",
        "from std.compile import compile_info",
        "from std.sys.info import get_gpu_target",
        f"from {module} import *",
        "",
        "",
        "def main() raises:",
        f"    comptime _kp_target = get_gpu_target[{json.dumps(_target_name(arch))}]()",
    ]
    for kernel in kernels:
        for kind, path in _stage_files(kernel, arch, out_dir):
            lines.append(
                f"    compile_info[{kernel.expression}, emission_kind={json.dumps(kind)}, target=_kp_target]()"
                f".write_text({json.dumps(str(path.relative_to(out_dir)))})"
            )
    return "\n".join(lines) + "\n"


@dataclass
class Diagnostic:
    file: str
    line: int
    column: int
    message: str
    text: str = ""

    def render(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.file else "mojo"
        source = f"\n    {self.text.strip()}" if self.text.strip() else ""
        return f"{where}: error: {self.message}{source}"


def parse_diagnostics(output: str) -> tuple[list[Diagnostic], list[str]]:
    """JSON diagnostics (errors only, columns made 1-based like the text format) and the other, non-JSON lines."""
    errors, other = [], []
    for line in output.splitlines():
        if not line.startswith("{"):
            if line.strip() and not _CRASHPAD.search(line):
                other.append(line)
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            other.append(line)
            continue
        if entry.get("kind") != "error":
            continue
        diag = entry.get("diagnostic") or {}
        loc = diag.get("location") or {}
        errors.append(
            Diagnostic(
                file=diag.get("file", ""),
                line=int(loc.get("line", 0)),
                column=int(loc.get("column", -1)) + 1,
                message=entry.get("message", ""),
                text=diag.get("text", ""),
            )
        )
    return errors, other


def raise_for_mojo(result: RunResult, path: Path, harness: Path, log: Path) -> None:
    """Turn a failed ``mojo run`` into an error that names the user's file, line and column."""
    if result.ok:
        return
    errors, other = parse_diagnostics(result.stdout + "\n" + result.stderr)
    details = "\n".join([d.render() for d in errors] + other[-30:])
    if result.timed_out:
        raise CompileError(
            f"compiling {path.name} took longer than {result.duration_s:.0f}s and was stopped",
            hint="raise --timeout (a cold Mojo compile takes 10-30 s per target)",
            details=details,
        )
    located = [d for d in errors if d.file and d.line]
    if any("unable to locate module 'gpu'" in d.message or "module 'max'" in d.message for d in errors):
        raise ToolchainError(
            "the Mojo compiler cannot find the max.gpu package (only the 'mojo' wheel is installed?)",
            hint=INSTALL_HINT,
            details=details,
        )
    user = [d for d in located if Path(d.file).resolve() == path]
    if user:
        first = user[0]
        raise CompileError(
            f"{path}:{first.line}:{first.column}: {first.message}",
            hint="fix the kernel; the compiler's diagnostics follow the message",
            details=details,
        )
    in_harness = [d for d in located if Path(d.file).resolve() == harness.resolve()]
    if in_harness:
        raise InputError(
            f"a kernel named in {path.name} could not be compiled as written: {in_harness[0].message}",
            hint="each '# kernelpilot: kernel <expr>' must name a function of the file with concrete parameters, "
            "e.g. '# kernelpilot: kernel tiled[64, 4]' (see docs/MOJO.md)",
            details=details,
        )
    if located:
        first = located[0]
        raise CompileError(
            f"{first.file}:{first.line}:{first.column}: {first.message}",
            hint=f"the error is in a module {path.name} imports",
            details=details,
        )
    raise CompileError(
        f"{path.name} failed to compile with Mojo (exit {result.returncode}; full log: {log})",
        hint="see the log; run the generated harness by hand with the same mojo command to reproduce",
        details=details,
    )


class MojoFrontend(Frontend):
    name = "mojo"
    archs = AMD_TARGETS + NVIDIA_TARGETS
    env_keys = ("MODULAR_", "MOJO_")

    def check_flags(self, path: Path, flags: list[str]) -> None:
        """``mojo run`` gets only defines, include dirs (inside the roots when confined) and -O levels."""
        i = 0
        while i < len(flags):
            flag, nxt = flags[i], flags[i + 1] if i + 1 < len(flags) else None
            if flag in ("-D", "-I") and nxt is not None:
                if flag == "-I":
                    paths.resolve(nxt, base=path.parent, what="include directory of the flags argument")
                elif not re.fullmatch(r"[A-Za-z_]\w*(=.*)?", nxt):
                    raise InputError(f"mojo flag -D {nxt[:200]!r} is not NAME[=VALUE]", hint="e.g. -D BLOCK=256")
                i += 2
                continue
            if not re.fullmatch(r"-D[A-Za-z_]\w*(=.*)?|-O[0-3]", flag):
                raise InputError(
                    f"mojo flag {flag[:200]!r} from the flags argument is not allowed",
                    hint="the Mojo frontend passes only -D NAME[=VALUE], -I <dir> and -O0..-O3 (README: Security)",
                )
            i += 1

    def versions(self) -> CompilerVersions:
        versions = {MAX_CORE: package_version(MAX_CORE) or "missing"}
        compiler = package_version("mojo-compiler")
        if compiler:
            versions["mojo-compiler"] = compiler
        return CompilerVersions(frontend=self.name, versions=versions)

    def _kernel(self, kernel: MojoKernel, module: str, arch: str, out_dir: Path) -> KernelDump:
        files = [p for _, p in _stage_files(kernel, arch, out_dir)]
        missing = [p.name for p in files if not p.exists() or p.stat().st_size == 0]
        if missing:
            raise CompileError(
                f"Mojo wrote no {', '.join(missing)} for kernel {kernel.expression}",
                hint="see compile.log in the dump directory",
            )
        isa, binary = files[2], files[3]
        prefix = f"{module}_"  # long names are shortened in the mangling: the module prefix is what survives
        if is_amd(arch):
            text = isa.read_text(errors="replace")
            symbols = re.findall(r"^\s*\.amdhsa_kernel\s+(\S+)", text, re.M)
            symbol = next((s for s in symbols if s.startswith(prefix)), symbols[0] if symbols else kernel.function)
            resources = amd_resources(isa, symbol, arch)
            final_isa, stages = isa, files
        else:
            text = isa.read_text(errors="replace")
            symbols = re.findall(r"^\s*\.visible\s+\.entry\s+([\w$.]+)", text, re.M)
            symbol = next((s for s in symbols if s.startswith(prefix)), symbols[0] if symbols else kernel.function)
            resources = nvidia_resources(binary, symbol, arch, None)
            sass = write_sass(binary, binary.with_name("05_sass.sass"))
            add_sass_spills(resources, sass, symbol)
            stages = [*files, sass] if sass else files
            final_isa = sass or isa
            if sass is None:
                resources.notes.append("no SASS: nvdisasm was not found (CUDA toolkit or Triton's wheel provide it)")
            if "sm_90a" in text[:400] and arch == "sm_90":
                resources.notes.append("Mojo targets sm_90a (Hopper with extensions) for sm_90")
        return KernelDump(
            name=symbol,
            arch=arch,
            frontend=self.name,
            compiler=self.versions(),
            stages=stages_of(stages),
            final_isa=str(final_isa),
            binary=str(binary),
            resources=resources,
        )

    def compile_file(self, path: Path, arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        arch = self.check_arch(arch)
        path = path.resolve()
        module = path.stem
        if not _IDENT.match(module):
            raise InputError(
                f"{path.name} cannot be imported as a Mojo module ('{module}' is not an identifier)",
                hint="rename the file to a valid identifier, e.g. " + re.sub(r"\W", "_", module) + ".mojo",
            )
        kernels = kernels_in(path.read_text(errors="replace"))
        if not kernels:
            raise InputError(
                f"{path.name} names no kernel and has no top-level def that returns nothing",
                hint="add a line '# kernelpilot: kernel <function>[<params>]' per kernel (see docs/MOJO.md)",
            )
        mojo = find_mojo()
        out_dir.mkdir(parents=True, exist_ok=True)
        for kernel in kernels:
            (out_dir / kernel.label).mkdir(exist_ok=True)
        harness = out_dir / "_kernelpilot_harness.mojo"
        harness.write_text(harness_source(module, kernels, arch, out_dir))
        argv = [str(mojo), "run", "--diagnostic-format", "json", "--disable-warnings", "-I", str(path.parent)]
        if options.get("debug_info", True):
            argv.append("-g1")  # line tables: .loc in the ISA, !dbg in the IR, line info in the cubin
        self.check_flags(path, options.get("flags", []))
        argv += [*options.get("flags", []), str(harness)]
        # `mojo run` links the harness into TMPDIR/_kernelpilot_harness.mojo0-<hash>.so and leaves it there: a
        # temporary folder of our own per compile, removed whatever happens, keeps /tmp as it was
        with tempfile.TemporaryDirectory(prefix="kp-mojo-") as tmp:
            env = {**mojo_cache_env(path), "TMPDIR": tmp}
            result = LOCAL.run(argv, timeout=options.get("timeout", 600), env=env, cwd=out_dir)
        log = write_log(out_dir, result)
        raise_for_mojo(result, path, harness, log)
        return [self._kernel(k, module, arch, out_dir) for k in kernels]
