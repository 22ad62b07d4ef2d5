"""What runtime this host has: the GPUs to spread workers over, and each device's peaks for the speed-of-light floor.

Peaks are vendor datasheet figures (dense, no sparsity): H100 SXM5 3.35 TB/s HBM3, 989 TFLOPS bf16/fp16;
H200 SXM 4.8 TB/s, same compute; H100 PCIe 2.0 TB/s, 756 TFLOPS; MI300X 5.3 TB/s, 1307 TFLOPS;
MI355X 8.0 TB/s, 2500 TFLOPS (fp16/bf16 dense).
"""

from __future__ import annotations

import json
import os
import sys
from functools import lru_cache

from pydantic import BaseModel, Field

from tools.executors import LOCAL

# name substring -> (bytes per second, fp16 FLOP per second)
PEAKS: dict[str, tuple[float, float]] = {
    "H200": (4.8e12, 989e12),
    "H100 PCIe": (2.0e12, 756e12),
    "H100": (3.35e12, 989e12),
    "A100": (2.039e12, 312e12),
    "MI300X": (5.3e12, 1307e12),
    "MI355X": (8.0e12, 2500e12),
    "MI325X": (6.0e12, 1307e12),
}


class Runtime(BaseModel):
    """The GPU a scoring process sees (``device`` is the torch device string), or the CPU."""

    device: str = "cpu"
    name: str = "cpu"
    arch: str | None = None
    count: int = 0
    vendor: str = "none"
    visible: str | None = Field(None, description="the *_VISIBLE_DEVICES value it was probed with (None: inherited)")

    @property
    def has_gpu(self) -> bool:
        return self.device != "cpu"


_PROBE = """
import json, torch
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    hip = getattr(torch.version, "hip", None)
    arch = getattr(p, "gcnArchName", "").split(":")[0] if hip else f"sm_{p.major}{p.minor}"
    print(json.dumps({"device": "cuda", "name": p.name, "arch": arch, "count": torch.cuda.device_count(),
                      "vendor": "amd" if hip else "nvidia"}))
else:
    print(json.dumps({}))
"""


@lru_cache(maxsize=4)
def probe_runtime(visible: str | None = None) -> Runtime:
    """Ask a child interpreter (torch is heavy, and CUDA must not initialise in the parent) what GPU it sees."""
    env = {} if visible is None else {"CUDA_VISIBLE_DEVICES": visible, "HIP_VISIBLE_DEVICES": visible}
    if os.environ.get("KERNELPILOT_EVAL_FORCE_CPU"):
        return Runtime()
    res = LOCAL.run([sys.executable, "-c", _PROBE], timeout=120, env=env)
    if not res.ok:
        return Runtime()
    try:
        data = json.loads(res.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return Runtime()
    return Runtime(**data, visible=visible) if data else Runtime()


def gpu_slots() -> list[str | None]:
    """One worker slot per visible GPU (its index for *_VISIBLE_DEVICES), or a single CPU slot."""
    rt = probe_runtime()
    if not rt.has_gpu:
        return [None]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES") or os.environ.get("HIP_VISIBLE_DEVICES")
    ids = [v.strip() for v in visible.split(",")] if visible else [str(i) for i in range(rt.count)]
    return ids or [None]


def peaks_for(name: str) -> tuple[float, float] | None:
    for key, value in PEAKS.items():
        if key in name:
            return value
    return None
