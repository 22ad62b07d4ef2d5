"""FlyDSL's launch geometry from the host function's IR (the ``origin`` stage): constant ``gpu.launch_func`` grids and
blocks, or those the host computes from the recorded call's integer arguments."""

from __future__ import annotations

import math
import re
from pathlib import Path

from tools.models.dump import KernelDump


def _origin(k: KernelDump) -> Path | None:
    for st in k.stages:
        if st.name.endswith("origin"):  # FlyDSL numbers its stages differently between versions
            return Path(st.path)
    return None


_FLY_LAUNCH_RE = re.compile(
    r"gpu\.launch_func\s.*?@[\w.$]+::@([\w.$]+)\s+blocks in \(([^)]*)\)\s+threads in \(([^)]*)\)"
)
_INDEX_CONST_RE = re.compile(r"(%[\w.$]+) = arith\.constant (-?\d+) : index")


def flydsl_launch(k: KernelDump) -> tuple[list[int], int] | None:
    """FlyDSL's grid and block from the host function's ``gpu.launch_func`` (origin stage), when both are
    constants; None when the host computes them from the arguments at run time."""
    origin = _origin(k)
    if origin is None or not origin.exists():
        return None
    text = origin.read_text(errors="replace")
    consts = dict(_INDEX_CONST_RE.findall(text))
    for name, blocks, threads in _FLY_LAUNCH_RE.findall(text):
        if name != k.name:
            continue
        dims = [[consts.get(v.strip()) for v in group.split(",")] for group in (blocks, threads)]
        if any(v is None for d in dims for v in d):
            return None
        return [int(v) for v in dims[0]], math.prod(int(v) for v in dims[1])
    return None


def flydsl_called_launch(k: KernelDump) -> tuple[list[int], int] | None:
    """FlyDSL's grid and block computed by the host function from the recorded call's integer arguments."""
    origin = _origin(k)
    if origin is None or not origin.exists() or not k.launch or not k.launch.arguments:
        return None
    from tools.predict.trips import flydsl_launch_values

    _, grid, block, _ = flydsl_launch_values(origin.read_text(errors="replace"), k.name, k.launch.arguments)
    return (grid, math.prod(block)) if grid and block else None
