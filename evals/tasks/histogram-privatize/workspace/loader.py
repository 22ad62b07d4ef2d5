"""How the scorer (and you) call kernel.cu: build it with nvcc into a shared library, call ``launch_histogram``
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
    lib.launch_histogram.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p]
    lib.launch_histogram.restype = ctypes.c_int

    def forward(data: torch.Tensor) -> torch.Tensor:
        hist = torch.zeros(256, device=data.device, dtype=torch.int32)
        stream = torch.cuda.current_stream().cuda_stream
        err = lib.launch_histogram(data.data_ptr(), hist.data_ptr(), data.numel(), stream)
        if err:
            raise RuntimeError(f"launch_histogram returned CUDA error {err}")
        return hist

    return forward
