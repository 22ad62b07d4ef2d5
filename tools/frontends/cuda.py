"""CUDA C++ with nvcc: PTX, cubin, SASS and the ``ptxas -v`` resource lines.

Every ``__global__`` function in the file is a kernel. Extra nvcc flags can be given with ``options["flags"]`` or a
first-line comment ``// kernelpilot: -DBLOCK=256 -O3``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tools import paths
from tools.errors import CompileError, InputError
from tools.executors import LOCAL
from tools.frontends.base import Frontend, stages_of, write_log
from tools.frontends.nvidia import nvidia_resources, ptxas_info, write_sass
from tools.isa.arch import NVIDIA_TARGETS
from tools.models.dump import CompilerVersions, KernelDump
from tools.toolchain import require_tool

_ENTRY_RE = re.compile(r"^\s*\.(?:visible\s+)?\.entry\s+([\w$]+)", re.M)


def file_flags(path: Path) -> list[str]:
    """Flags from a ``// kernelpilot: …`` comment in the first five lines."""
    for line in path.read_text(errors="replace").splitlines()[:5]:
        m = re.match(r"\s*//\s*kernelpilot:\s*(.*)", line)
        if m:
            try:
                return shlex.split(m.group(1))
            except ValueError as exc:
                raise InputError(
                    f"cannot read the flags in {path.name}'s '// kernelpilot:' comment: {exc}",
                    hint='close the quotes, e.g. // kernelpilot: -DNAME="a b"',
                ) from None
    return []


# Flags that shape code generation only. Everything else is refused: compilers take flags that run programs
# (-ccbin, --compiler-bindir, -Xcompiler, -fplugin, -Xclang -load), write files elsewhere (-o, -odir, --keep-dir)
# or read arbitrary files (-include, @file), and a kernel file or an MCP call must not be able to pass them.
_SAFE_FLAGS = re.compile(
    r"""-D[A-Za-z_]\w*(=.*)?|-U[A-Za-z_]\w*|-O[0-3s]?|-g|-G|-lineinfo|--?generate-line-info
    |--?use_fast_math|-ffast-math|-fno-fast-math|--?std=(c|gnu)\+\+\d\d|--?maxrregcount=\d+
    |--?extended-lambda|--?expt-relaxed-constexpr|--?expt-extended-lambda|--?restrict|-w|--resource-usage
    |-W(no-)?[a-z][a-z0-9-]{2,}|-Werror(=[a-z0-9-]+)?
    |--?(ftz|prec-div|prec-sqrt|fmad)=(true|false)|-ffp-contract=(fast|on|off|fast-honor-pragmas)
    |-fgpu-flush-denormals-to-zero|-fno-gpu-flush-denormals-to-zero|-munsafe-fp-atomics|-mno-unsafe-fp-atomics
    |-mcumode|-mno-cumode|-mwavefrontsize64|-mno-wavefrontsize64|-funroll-loops|-fno-unroll-loops""",
    re.X,
)
_SAFE_PTXAS = re.compile(
    r"-v|-O[0-3]|--?maxrregcount=\d+|-dlcm=(ca|cg)|-warn-spills|-warn-lmem-usage|--warn-on-spills"
    r"|--allow-expensive-optimizations=(true|false)"
)
_ALLOWED_TEXT = (
    "-DNAME[=VALUE], -UNAME, -I<dir> (inside the allowed roots), -O0..-O3, -g, -lineinfo, -std=c++NN, "
    "-maxrregcount=N, fast-math and FTZ/FMA switches, -W warnings, -Xptxas -v/-O3/-dlcm=…"
)


def checked_flags(flags: list[str], source: Path, origin: str) -> list[str]:
    """``flags`` if every one is on the code-generation allowlist, else InputError naming the first that is not.

    ``-I<dir>`` is resolved against the source's directory and, in a confined call (the MCP server), must lie
    inside the allowed roots.
    """
    i = 0
    while i < len(flags):
        flag = flags[i]
        if flag in ("-I", "-Xptxas") and i + 1 < len(flags):
            value, consumed = flags[i + 1], 2
        elif flag.startswith("-I") and len(flag) > 2:
            value, consumed = flag[2:], 1
        elif flag.startswith("-Xptxas="):
            value, consumed = flag.split("=", 1)[1], 1
        else:
            value, consumed = None, 1
        if flag.startswith("-I") and value is not None:
            paths.resolve(value, base=source.parent, what=f"include directory of {origin}")
        elif flag.startswith("-Xptxas") and value is not None:
            bad = [v for v in value.split(",") if not _SAFE_PTXAS.fullmatch(v)]
            if bad:
                raise _refused(f"-Xptxas {bad[0]}", origin)
        elif not _SAFE_FLAGS.fullmatch(flag):
            raise _refused(flag, origin)
        i += consumed
    return flags


def _refused(flag: str, origin: str) -> InputError:
    return InputError(
        f"compiler flag {flag[:200]!r} from {origin} is not allowed",
        hint=f"kernelpilot passes only flags that shape code generation: {_ALLOWED_TEXT}; flags that run programs, "
        "write files or read other files are refused (README: Security)",
    )


class CudaFrontend(Frontend):
    name = "cuda"
    archs = NVIDIA_TARGETS
    env_keys = ("CUDA_", "NVCC_", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH")

    def check_flags(self, path: Path, flags: list[str]) -> None:
        checked_flags(file_flags(path), path, f"the '// kernelpilot:' comment in {path.name}")
        checked_flags(list(flags), path, "the flags argument")

    def versions(self) -> CompilerVersions:
        nvcc = require_tool("nvcc", "install the CUDA toolkit (nvcc) to compile .cu files")
        out = LOCAL.run([nvcc, "--version"], timeout=30).stdout
        m = re.search(r"release ([\d.]+), V([\d.]+)", out)
        return CompilerVersions(frontend=self.name, versions={"nvcc": m.group(2) if m else "unknown"})

    def compile_file(self, path: Path, arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        arch = self.check_arch(arch)
        self.check_flags(path, options.get("flags", []))
        nvcc = require_tool("nvcc", "install the CUDA toolkit (nvcc) to compile .cu files")
        gpu = f"{arch}a" if arch == "sm_90" else arch  # sm_90a unlocks wgmma/TMA, as Triton does
        ptx = out_dir / "01_ptx.ptx"
        cubin = out_dir / "02_cubin.cubin"
        flags = ["-O3", "-lineinfo", *file_flags(path), *options.get("flags", [])]
        ptx_run = LOCAL.run([nvcc, f"-arch={gpu}", "-ptx", *flags, str(path), "-o", str(ptx)], timeout=600)
        cubin_run = (
            LOCAL.run(
                [nvcc, f"-arch={gpu}", "-cubin", "-Xptxas", "-v", *flags, str(path), "-o", str(cubin)], timeout=600
            )
            if ptx_run.ok
            else ptx_run
        )
        write_log(out_dir, cubin_run)
        if not cubin_run.ok:
            raise CompileError(
                f"nvcc failed on {path.name}",
                hint="fix the errors above (file:line are nvcc's)",
                details="\n".join(cubin_run.stderr.splitlines()[-40:]),
            )
        info = ptxas_info(cubin_run.stderr + cubin_run.stdout)
        sass = write_sass(cubin, out_dir / "03_sass.sass")
        names = _ENTRY_RE.findall(ptx.read_text()) or list(info)
        if not names:
            raise CompileError(
                f"{path.name} compiled but defines no __global__ kernel", hint="add a __global__ function"
            )
        stages = stages_of([p for p in (ptx, cubin, sass) if p])
        versions = self.versions()
        return [
            KernelDump(
                name=name,
                arch=arch,
                frontend=self.name,
                compiler=versions,
                stages=stages,
                final_isa=str(sass) if sass else str(ptx),
                binary=str(cubin),
                resources=nvidia_resources(cubin, name, arch, None, info.get(name)),
            )
            for name in names
        ]
