"""HIP C++ with hipcc ``--save-temps``: needs a ROCm toolchain, which only ROCm hosts have.

Where hipcc is missing the frontend says so plainly; the FlyDSL and Triton frontends compile for AMD without ROCm.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tools.errors import CompileError, ToolchainError
from tools.executors import LOCAL
from tools.frontends.base import Frontend, amd_resources, stages_of, write_log
from tools.frontends.cuda import checked_flags, file_flags
from tools.isa.arch import AMD_TARGETS
from tools.isa.metadata import read_kernel_metadata
from tools.models.dump import CompilerVersions, KernelDump
from tools.toolchain import host_rocm_path


def find_hipcc() -> str:
    rocm = host_rocm_path()
    candidates = [shutil.which("hipcc"), str(rocm / "bin" / "hipcc") if rocm else None]
    for c in candidates:
        if c and Path(c).exists():
            return c
    raise ToolchainError(
        "no ROCm toolchain here: hipcc was not found (HIP C++ needs ROCm's clang and HIP headers)",
        hint="run on a ROCm host (set ROCM_PATH or put hipcc on PATH); FlyDSL and Triton kernels compile for AMD "
        "without ROCm",
    )


class HipFrontend(Frontend):
    name = "hip"
    archs = AMD_TARGETS
    env_keys = ("HIP_", "HIPCC_", "ROCM_", "HCC_", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH")

    def check_flags(self, path: Path, flags: list[str]) -> None:
        checked_flags(file_flags(path), path, f"the '// kernelpilot:' comment in {path.name}")
        checked_flags(list(flags), path, "the flags argument")

    def versions(self) -> CompilerVersions:
        out = LOCAL.run([find_hipcc(), "--version"], timeout=60).stdout
        line = next((ln for ln in out.splitlines() if "HIP version" in ln or "clang version" in ln), "unknown")
        return CompilerVersions(frontend=self.name, versions={"hipcc": line.strip()})

    def compile_file(self, path: Path, arch: str, out_dir: Path, options: dict) -> list[KernelDump]:
        arch = self.check_arch(arch)
        self.check_flags(path, options.get("flags", []))
        hipcc = find_hipcc()
        flags = ["-O3", "-g", *file_flags(path), *options.get("flags", [])]
        obj = out_dir / f"{path.stem}.o"
        argv = [hipcc, f"--offload-arch={arch}", "--save-temps", "-c", *flags, str(path.resolve()), "-o", str(obj)]
        result = LOCAL.run(argv, timeout=options.get("timeout", 600), cwd=out_dir)
        write_log(out_dir, result)
        if not result.ok:
            raise CompileError(
                f"hipcc failed on {path.name}", hint="fix the errors above", details=result.stderr[-4000:]
            )
        temps = sorted(p for p in out_dir.iterdir() if p.is_file() and f"-{arch}" in p.name)
        isa = next((p for p in temps if p.suffix == ".s"), None)
        binary = next((p for p in temps if p.suffix in {".hsaco", ".out"}), None)
        if isa is None:
            raise CompileError(f"hipcc --save-temps left no {arch} assembly", hint="see compile.log")
        versions = self.versions()
        return [
            KernelDump(
                name=name,
                arch=arch,
                frontend=self.name,
                compiler=versions,
                stages=stages_of(temps),
                final_isa=str(isa),
                binary=str(binary) if binary else None,
                resources=amd_resources(isa, name, arch),
            )
            for name in read_kernel_metadata(isa.read_text())
        ]
