"""How the scorer (and you) call kernel.cu: build it with nvcc into a shared library, call ``launch_axpby``
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
    ptr = ctypes.c_void_p
    lib.launch_axpby.argtypes = [ptr, ptr, ptr, ctypes.c_float, ctypes.c_float, ctypes.c_long, ptr]
    lib.launch_axpby.restype = ctypes.c_int

    def forward(x: torch.Tensor, y: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
        out = torch.empty_like(x)
        stream = torch.cuda.current_stream().cuda_stream
        err = lib.launch_axpby(x.data_ptr(), y.data_ptr(), out.data_ptr(), alpha, beta, x.numel(), stream)
        if err:
            raise RuntimeError(f"launch_axpby returned CUDA error {err}")
        return out

    return forward
