"""Find the external programs the frontends need, and say clearly when one is missing.

On a machine without ROCm, FlyDSL's last step (``$ROCM_PATH/llvm/bin/ld.lld``) is served by the linker in the
``ziglang`` wheel through a small shim directory; Debian's lld-16 cannot be used (it rejects code object v6).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import sys
from functools import cache
from pathlib import Path

from tools.errors import ToolchainError
from tools.files import write_atomic


def cache_root() -> Path:
    """Where kernelpilot keeps dumps and shims: $KERNELPILOT_CACHE_DIR, else ~/.cache/kernelpilot.

    A ToolchainError when that path (or a parent of it) is a file: the cache could never be written there."""
    root = Path(os.environ.get("KERNELPILOT_CACHE_DIR") or str(Path.home() / ".cache" / "kernelpilot"))
    for p in (root, *root.parents):
        if p.exists():
            if not p.is_dir():
                raise ToolchainError(
                    f"the kernelpilot cache directory {root} cannot be used: {p} is a file",
                    hint="point $KERNELPILOT_CACHE_DIR at a directory (or unset it for ~/.cache/kernelpilot)",
                )
            break
    return root


def host_rocm_path() -> Path | None:
    """A real ROCm install with its own ld.lld ($ROCM_PATH, then /opt/rocm), or None."""
    for candidate in (os.environ.get("ROCM_PATH"), "/opt/rocm"):
        if candidate and (Path(candidate) / "llvm" / "bin" / "ld.lld").exists():
            return Path(candidate)
    return None


def ziglang_available() -> bool:
    return importlib.util.find_spec("ziglang") is not None


def rocm_path_for_flydsl() -> tuple[Path, str]:
    """The ROCM_PATH to give FlyDSL, and where its linker comes from ('rocm' or 'ziglang')."""
    host = host_rocm_path()
    if host:
        return host, "rocm"
    if not ziglang_available():
        raise ToolchainError(
            "no linker for AMDGPU code objects: no ROCm install ($ROCM_PATH/llvm/bin/ld.lld) and no ziglang wheel",
            hint="pip install ziglang (kernelpilot uses its ld.lld), or install ROCm and set ROCM_PATH",
        )
    shim = cache_root() / "rocm-shim"
    lld = shim / "llvm" / "bin" / "ld.lld"
    script = f'#!/bin/sh\nexec "{sys.executable}" -m ziglang ld.lld "$@"\n'
    if not lld.exists() or lld.read_text() != script:
        # the eval scorer compiles the candidate and the baseline from two threads at once: each writes its own copy
        write_atomic(lld, script, mode=0o755)
    return shim, "ziglang"


def package_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def require_package(dist: str, purpose: str) -> str:
    version = package_version(dist)
    if version is None:
        raise ToolchainError(
            f"{dist} is not installed; it is needed {purpose}",
            hint=f"pip install {dist}  (or pip install -e '.[compilers]' in the kernelpilot checkout)",
        )
    return version


@cache
def nvidia_tool(name: str) -> str | None:
    """ptxas / nvdisasm / cuobjdump / nvcc: PATH first, then the copies bundled in Triton's wheel."""
    found = shutil.which(name)
    if found:
        return found
    spec = importlib.util.find_spec("triton")
    if spec and spec.origin:
        bundled = Path(spec.origin).parent / "backends" / "nvidia" / "bin" / name
        if bundled.exists():
            return str(bundled)
    return None


def find_tool(name: str) -> str:
    """An NVIDIA tool (nvdisasm, cuobjdump, ptxas…) from PATH or Triton's wheel, or a ToolchainError saying how to get
    it."""
    found = nvidia_tool(name)
    if not found:
        raise ToolchainError(f"{name} not found", hint="install the CUDA toolkit or `pip install triton` (bundles it)")
    return found


def require_tool(name: str, hint: str) -> str:
    path = shutil.which(name) or (nvidia_tool(name) if name in {"ptxas", "nvdisasm", "cuobjdump"} else None)
    if not path:
        raise ToolchainError(f"'{name}' was not found on PATH", hint=hint)
    return path
