"""doctor: which compilers, linkers and profilers this machine has, and what each enables."""

from __future__ import annotations

import argparse
import shutil

from pydantic import BaseModel

from tools.toolchain import host_rocm_path, nvidia_tool, package_version, ziglang_available


class ToolStatus(BaseModel):
    name: str
    found: bool
    detail: str
    enables: str


class DoctorReport(BaseModel):
    summary: str
    tools: list[ToolStatus]


def doctor() -> DoctorReport:
    rocm = host_rocm_path()
    rows = [
        ToolStatus(
            name="flydsl",
            found=bool(package_version("flydsl")),
            detail=package_version("flydsl") or "pip install flydsl",
            enables="FlyDSL dump-ir for gfx90a/gfx942/gfx950",
        ),
        ToolStatus(
            name="triton",
            found=bool(package_version("triton")),
            detail=package_version("triton") or "pip install triton",
            enables="Triton dump-ir for AMD and NVIDIA targets",
        ),
        ToolStatus(
            name="torch",
            found=bool(package_version("torch")),
            detail=package_version("torch") or "pip install torch",
            enables="FlyDSL dummy tensors; GPU timing",
        ),
        ToolStatus(
            name="ld.lld",
            found=bool(rocm) or ziglang_available(),
            detail=str(rocm / "llvm/bin/ld.lld")
            if rocm
            else ("ziglang wheel" if ziglang_available() else "pip install ziglang"),
            enables="linking AMDGPU code objects (hsaco)",
        ),
        ToolStatus(
            name="hipcc",
            found=bool(shutil.which("hipcc")),
            detail=shutil.which("hipcc") or "needs ROCm",
            enables="HIP C++ dump-ir",
        ),
        ToolStatus(
            name="nvcc",
            found=bool(shutil.which("nvcc")),
            detail=shutil.which("nvcc") or "needs the CUDA toolkit",
            enables="CUDA C++ dump-ir",
        ),
        ToolStatus(
            name="nvdisasm",
            found=bool(nvidia_tool("nvdisasm")),
            detail=nvidia_tool("nvdisasm") or "CUDA toolkit or triton",
            enables="SASS and register life ranges",
        ),
        ToolStatus(
            name="rocprofv3",
            found=bool(shutil.which("rocprofv3")),
            detail=shutil.which("rocprofv3") or "needs ROCm",
            enables="kernel-trace runs on AMD GPUs",
        ),
        ToolStatus(
            name="ncu",
            found=bool(shutil.which("ncu")),
            detail=shutil.which("ncu") or "needs Nsight Compute",
            enables="kernel-trace runs on NVIDIA GPUs",
        ),
    ]
    found = sum(r.found for r in rows)
    return DoctorReport(summary=f"{found}/{len(rows)} tools found", tools=rows)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    report = doctor()
    if args.json:
        print(report.model_dump_json(indent=2))
        return 0
    for r in report.tools:
        print(f"{'ok ' if r.found else '-- '} {r.name:<10} {r.enables}\n{'':14}{r.detail}")
    print(report.summary)
    return 0
