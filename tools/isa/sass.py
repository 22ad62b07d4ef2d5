"""NVIDIA cubins: per-function resources (``cuobjdump -res-usage``) and per-instruction live register counts
(``nvdisasm --print-life-ranges --life-range-mode count``), from the tools on PATH or the ones Triton's wheel bundles.

The life-range columns are read by their header names (GPR, PRED, UGPR, UPRED), whichever subset this nvdisasm prints.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from tools.errors import InputError, ToolchainError
from tools.executors import LOCAL

_FUNC_RES_RE = re.compile(r"^\s*Function\s+(\S+):\s*$")
_RES_RE = re.compile(r"(\w+(?:\[\d+\])?):(\d+)")
_INST_RE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*//\s*\|(.*)\|\s*$")
_FUNC_LABEL_RE = re.compile(r"^\s*\.global\s+(\S+)")
_TARGET_RE = re.compile(r"^\s*\.target\s+(sm_\d+)")


@dataclass
class SassInstruction:
    index: int
    offset: int
    text: str
    counts: dict[str, int]


@dataclass
class SassFunction:
    name: str
    arch: str | None
    instructions: list[SassInstruction] = field(default_factory=list)
    resources: dict[str, int] = field(default_factory=dict)


def find_tool(name: str) -> str:
    """``name`` from PATH, else from the triton wheel's bundled CUDA binaries."""
    found = shutil.which(name)
    if found:
        return found
    try:
        import triton.backends.nvidia as nv  # lazy: heavy import, only for cubins

        cand = Path(nv.__file__).parent / "bin" / name
        if cand.exists():
            return str(cand)
    except ImportError:
        pass
    raise ToolchainError(f"{name} not found", hint="install the CUDA toolkit or `pip install triton` (bundles it)")


def is_cubin(data: bytes) -> bool:
    return data[:4] == b"\x7fELF" and len(data) > 18 and data[18] == 190  # e_machine EM_CUDA


def parse_res_usage(text: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    cur = None
    for line in text.splitlines():
        m = _FUNC_RES_RE.match(line)
        if m:
            cur = m.group(1)
            out[cur] = {}
            continue
        if cur and "REG:" in line:
            out[cur] = {k: int(v) for k, v in _RES_RE.findall(line)}
    return out


def parse_life_ranges(text: str) -> list[SassFunction]:
    """Functions of an ``nvdisasm -plr --life-range-mode count`` listing with per-instruction live counts."""
    funcs: list[SassFunction] = []
    arch = None
    columns: list[str] = []
    cur: SassFunction | None = None
    for line in text.splitlines():
        m = _TARGET_RE.match(line)
        if m:
            arch = m.group(1)
            continue
        if "// |" in line and not columns and ("GPR" in line or "PRED" in line):
            columns = [c.strip() for c in line.split("// |", 1)[1].strip().strip("|").split("|")]
            continue
        m = _FUNC_LABEL_RE.match(line)
        if m:
            cur = SassFunction(m.group(1), arch)
            funcs.append(cur)
            continue
        m = _INST_RE.match(line)
        if m and cur is not None:
            cells = [c.strip() for c in m.group(3).split("|")]
            counts = {}
            for name, cell in zip(columns, cells, strict=False):
                counts[name] = int(cell) if cell.isdigit() else 0
            text_ = re.sub(r"\s+", " ", m.group(2)).strip()
            cur.instructions.append(SassInstruction(len(cur.instructions), int(m.group(1), 16), text_, counts))
    return funcs


def read_cubin(path: str | Path, timeout: float = 60.0) -> list[SassFunction]:
    """Run nvdisasm and cuobjdump on a cubin; functions with their resources and live counts."""
    p = Path(path)
    data = p.read_bytes()
    if not is_cubin(data):
        raise InputError(f"{p} is not a CUDA cubin (ELF, EM_CUDA)", hint="extract one with `cuobjdump -xelf all`")
    res = LOCAL.run(
        [find_tool("nvdisasm"), "--print-life-ranges", "--life-range-mode", "count", "-c", str(p)], timeout=timeout
    )
    if not res.ok:
        raise ToolchainError(f"nvdisasm failed on {p}", details=res.stderr[-2000:])
    funcs = parse_life_ranges(res.stdout)
    usage = LOCAL.run([find_tool("cuobjdump"), "-res-usage", str(p)], timeout=timeout)
    table = parse_res_usage(usage.stdout) if usage.ok else {}
    for f in funcs:
        f.resources = table.get(f.name, {})
    return funcs
