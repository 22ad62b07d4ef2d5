"""CUDA C++ with nvcc: PTX, cubin, SASS and the ``ptxas -v`` resource lines.

Every ``__global__`` function in the file is a kernel. Extra nvcc flags can be given with ``options["flags"]`` or a
first-line comment ``// kernelpilot: -DBLOCK=256 -O3``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tools.errors import CompileError
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
            return shlex.split(m.group(1))
    return []


class CudaFrontend(Frontend):
    name = "cuda"
    archs = NVIDIA_TARGETS
    suffixes = (".cu",)

    def versions(self) -> CompilerVersions:
        nvcc = require_tool("nvcc", "install the CUDA toolkit (nvcc) to compile .cu files")
        out = LOCAL.run([nvcc, "--version"], timeout=30).stdout
        m = re.search(r"release ([\d.]+), V([\d.]+)", out)
        return CompilerVersions(frontend=self.name, versions={"nvcc": m.group(2) if m else "unknown"})

    def compile_file(self, path: Path, arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        arch = self.check_arch(arch)
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
