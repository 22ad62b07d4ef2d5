"""How the scorer (and you) call kernel.cu: build it with nvcc into a shared library, call ``launch_transpose``
through ctypes on torch's current stream. This file is part of the harness: changes to it fail the task."""

import ctypes
import shutil
import subprocess
from pathlib import Path

import torch


def load(code_dir: Path, build_dir: Path):
    build_dir.mkdir(parents=True, exist_ok=True)
    lib_path = build_dir / "libkernel.so"
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    major, minor = torch.cuda.get_device_capability()
    cmd = [nvcc, "-O3", "-shared", "-Xcompiler", "-fPIC", f"-arch=sm_{major}{minor}", str(code_dir / "kernel.cu")]
    subprocess.run([*cmd, "-o", str(lib_path)], check=True, timeout=300, capture_output=True)
    lib = ctypes.CDLL(str(lib_path))
    lib.launch_transpose.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    lib.launch_transpose.restype = ctypes.c_int

    def forward(x: torch.Tensor) -> torch.Tensor:
        rows, cols = x.shape
        out = torch.empty((cols, rows), device=x.device, dtype=x.dtype)
        stream = torch.cuda.current_stream().cuda_stream
        err = lib.launch_transpose(x.data_ptr(), out.data_ptr(), rows, cols, stream)
        if err:
            raise RuntimeError(f"launch_transpose returned CUDA error {err}")
        return out

    return forward
