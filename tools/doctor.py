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


# (name, what it enables, what to do when it is missing); found by package metadata or on PATH
_PACKAGES = [
    ("flydsl", "FlyDSL dump-ir for gfx90a/gfx942/gfx950", "pip install flydsl"),
    ("triton", "Triton dump-ir for AMD and NVIDIA targets", "pip install triton"),
    ("torch", "FlyDSL dummy tensors; GPU timing", "pip install torch"),
]
_PROGRAMS = [
    ("hipcc", "HIP C++ dump-ir", "needs ROCm"),
    ("nvcc", "CUDA C++ dump-ir", "needs the CUDA toolkit"),
    ("nvdisasm", "SASS and register life ranges", "CUDA toolkit or triton"),
    ("rocprofv3", "kernel-trace runs on AMD GPUs", "needs ROCm"),
    ("ncu", "kernel-trace runs on NVIDIA GPUs", "needs Nsight Compute"),
]


def _status(name: str, found: str | None, enables: str, missing: str) -> ToolStatus:
    return ToolStatus(name=name, found=bool(found), detail=found or missing, enables=enables)


def doctor() -> DoctorReport:
    rocm = host_rocm_path()
    lld = str(rocm / "llvm/bin/ld.lld") if rocm else ("ziglang wheel" if ziglang_available() else None)
    rows = [_status(name, package_version(name), enables, missing) for name, enables, missing in _PACKAGES]
    rows.append(_status("ld.lld", lld, "linking AMDGPU code objects (hsaco)", "pip install ziglang"))
    for name, enables, missing in _PROGRAMS:
        path = nvidia_tool(name) if name == "nvdisasm" else shutil.which(name)
        rows.append(_status(name, path, enables, missing))
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
