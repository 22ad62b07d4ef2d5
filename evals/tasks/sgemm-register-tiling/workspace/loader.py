"""How the scorer (and you) call kernel.cu: build it with nvcc into a shared library, call ``launch_sgemm``
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
    lib.launch_sgemm.argtypes = [ptr, ptr, ptr, i32, i32, i32, ptr]
    lib.launch_sgemm.restype = ctypes.c_int

    def forward(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=torch.float32)
        stream = torch.cuda.current_stream().cuda_stream
        err = lib.launch_sgemm(a.data_ptr(), b.data_ptr(), c.data_ptr(), M, N, K, stream)
        if err:
            raise RuntimeError(f"launch_sgemm returned CUDA error {err}")
        return c

    return forward
