"""How the scorer (and you) call kernel.cu: build it with nvcc into a shared library, call ``launch_fir``
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
    ptr, i32 = ctypes.c_void_p, ctypes.c_int
    lib.launch_fir.argtypes = [ptr, ptr, ptr, i32, i32, ptr]
    lib.launch_fir.restype = ctypes.c_int

    def forward(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        T, C = x.shape
        y = torch.empty_like(x)
        stream = torch.cuda.current_stream().cuda_stream
        err = lib.launch_fir(x.data_ptr(), w.data_ptr(), y.data_ptr(), T, C, stream)
        if err:
            raise RuntimeError(f"launch_fir returned CUDA error {err}")
        return y

    return forward
