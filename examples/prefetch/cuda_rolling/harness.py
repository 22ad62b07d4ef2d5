"""Build one of this folder's .cu kernels into a shared library with nvcc and launch it from torch (ctypes): what
``baseline_run.py`` and ``prefetched_run.py`` give ``kernelpilot prefetch-data-load --verify`` to time on a GPU."""

from __future__ import annotations

import ctypes
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
THREADS = 256  # prefetched.cu's shared buffers are sized for 256-thread blocks
# Timed shape: 264 blocks (2 per H100 SM) of 256 threads, 1024 float4 steps per thread: 16 warps per SM, too few to
# hide a ~600-cycle load latency without prefetching.
BLOCKS, STEPS = 264, 1024

WRAPPER = """
#include "{source}"
extern "C" int kp_launch(const void* x, const void* w, float* out, int steps, int stride, int blocks, void* stream) {{
    {kernel}<<<blocks, {threads}, 0, (cudaStream_t)stream>>>((const float4*)x, (const float4*)w, out, steps, stride);
    return (int)cudaGetLastError();
}}
"""


def _build(source: Path, kernel: str, arch: str) -> ctypes.CDLL:
    out = Path(tempfile.mkdtemp(prefix="kp_cuda_rolling_"))
    wrapper = out / f"{kernel}_launch.cu"
    wrapper.write_text(WRAPPER.format(source=source, kernel=kernel, threads=THREADS))
    lib = out / f"lib{kernel}.so"
    cmd = ["nvcc", "-O3", f"-arch={arch}", "-shared", "-Xcompiler", "-fPIC", "-o", str(lib), str(wrapper)]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=300)
    return ctypes.CDLL(str(lib))


def cuda_run(source: str, kernel: str, device):
    """The ``kernelpilot_run`` result for ``source`` (a file in this folder) and its ``__global__`` ``kernel``."""
    import torch

    major, minor = torch.cuda.get_device_capability(device)
    lib = _build(HERE / source, kernel, f"sm_{major}{minor}")
    stride = BLOCKS * THREADS  # float4 elements per step: thread t reads x[i * stride + t]
    gen = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(STEPS * stride * 4, generator=gen).to(device)
    w = torch.randn(STEPS * stride * 4, generator=gen).to(device)
    out = torch.empty(stride, device=device)

    def launch():
        stream = ctypes.c_void_p(torch.cuda.current_stream(device).cuda_stream)
        rc = lib.kp_launch(
            ctypes.c_void_p(x.data_ptr()),
            ctypes.c_void_p(w.data_ptr()),
            ctypes.c_void_p(out.data_ptr()),
            STEPS,
            stride,
            BLOCKS,
            stream,
        )
        if rc:
            raise RuntimeError(f"{kernel} launch failed: cudaError {rc}")

    def check():
        out.zero_()
        launch()
        ref = (x.view(STEPS, stride, 4).double() * w.view(STEPS, stride, 4).double()).sum(dim=(0, 2)).float()
        err = (out - ref).abs().max().item()
        tol = 1e-4 * STEPS * 4
        return err <= tol, f"max |out - sum(x*w)| = {err:.3g} (tolerance {tol:.3g}, fp64 reference)"

    shape = f"{BLOCKS} blocks x {THREADS} threads, {STEPS} float4 steps per thread"
    return {"launch": launch, "check": check, "shape": shape}
