"""NVIDIA artifacts shared by the Triton and CUDA frontends and vgpr-pressure: SASS text, resources and live
registers of a cubin.

Runs ``cuobjdump -res-usage`` (REG, STACK, SHARED, LOCAL per function) and ``nvdisasm`` (SASS with line info, life
ranges); both come with the CUDA toolkit and are also bundled in Triton's wheel, so this works on a machine with no
CUDA install. The text they print is parsed in ``tools.isa.sass``.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from tools.errors import InputError, ToolchainError
from tools.executors import LOCAL
from tools.isa import sass
from tools.isa.arch import nvidia_occupancy
from tools.models.dump import Resources
from tools.toolchain import find_tool, nvidia_tool

_PTXAS_FUNC = re.compile(r"Compiling entry function '([^']+)'")
_PTXAS_USED = re.compile(r"Used (\d+) registers")
_PTXAS_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_BAD_REGCOUNT = re.compile(r"Invalid register count\s*:\s*'(\d+)'")
# nvdisasm's life-range listing refuses a function that declares more registers than this (ptxas allows 255:
# R0-R254, RZ being R255); its columns come from the registers the instructions name, not from the declared count.
_LIFE_RANGE_MAX_REGCOUNT = 254


def cubin_resource_usage(cubin: Path) -> dict[str, dict[str, int]]:
    """``{function: {reg, stack, shared, local}}`` from cuobjdump -res-usage; empty if cuobjdump is missing."""
    tool = nvidia_tool("cuobjdump")
    if not tool:
        return {}
    result = LOCAL.run([tool, "-res-usage", str(cubin)], timeout=60)
    return {
        name: {"reg": r["REG"], "stack": r["STACK"], "shared": r["SHARED"], "local": r["LOCAL"]}
        for name, r in sass.parse_res_usage(result.stdout).items()
        if {"REG", "STACK", "SHARED", "LOCAL"} <= r.keys()
    }


def ptxas_info(text: str) -> dict[str, dict[str, int]]:
    """Per-function figures from ``ptxas -v`` output (registers, stack frame, spill stores/loads)."""
    info: dict[str, dict[str, int]] = {}
    current = None
    for line in text.splitlines():
        if m := _PTXAS_FUNC.search(line):
            current = m.group(1)
            info[current] = {}
        elif current and (m := _PTXAS_SPILL.search(line)):
            info[current].update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        elif current and (m := _PTXAS_USED.search(line)):
            info[current]["registers"] = int(m.group(1))
    return info


def write_sass(cubin: Path, out: Path) -> Path | None:
    """Disassemble a cubin to SASS text (with line info when present); None if nvdisasm is missing."""
    tool = nvidia_tool("nvdisasm")
    if not tool:
        return None
    result = LOCAL.run([tool, "-c", "-g", str(cubin)], timeout=120)
    if not result.ok:
        result = LOCAL.run([tool, "-c", str(cubin)], timeout=120)
    if not result.ok:
        return None
    out.write_text(result.stdout)
    return out


def add_sass_spills(resources: Resources, sass_path: Path | None, kernel: str) -> None:
    """Where ptxas -v did not say (Triton keeps no ptxas log), the spill store/load bytes of ``kernel`` from its SASS:
    every STL/LDL at its width (``tools.isa.sass.local_memory_bytes``), with a note saying so."""
    if resources.spill_store_bytes is not None or sass_path is None or not sass_path.exists():
        return
    funcs = sass.parse_sass(sass_path.read_text())
    f = next((f for f in funcs if f.name == kernel), funcs[0] if len(funcs) == 1 else None)
    if f is None:
        return
    resources.spill_store_bytes, resources.spill_load_bytes = sass.local_memory_bytes(f.insts)
    stl, ldl = (sum(1 for i in f.insts if i.root == r) for r in ("STL", "LDL"))
    if stl or ldl:
        resources.notes.append(
            f"spill bytes from the SASS: {stl} STL = {resources.spill_store_bytes} B stored, {ldl} LDL = "
            f"{resources.spill_load_bytes} B loaded, each at its width (ptxas -v's static count)"
        )


def nvidia_resources(
    cubin: Path,
    kernel: str,
    arch: str,
    threads_per_block: int | None,
    ptxas: dict[str, int] | None = None,
    dynamic_smem_bytes: int = 0,
) -> Resources:
    """Registers, spills and shared memory of ``kernel`` in ``cubin``; ``lds_bytes`` is what the launch allocates per
    block: the cubin's static shared memory plus ``dynamic_smem_bytes`` (Triton's ``metadata.shared``)."""
    usage = cubin_resource_usage(cubin)
    entry = usage.get(kernel) or (next(iter(usage.values())) if len(usage) == 1 else None)
    notes = []
    if entry is None and not ptxas:
        return Resources(notes=[f"no resource usage found for {kernel} (cuobjdump missing?)"])
    regs = (ptxas or {}).get("registers", entry["reg"] if entry else None)
    shared = entry["shared"] if entry else None
    local = entry["local"] if entry else None
    block = threads_per_block or 128
    if threads_per_block is None:
        notes.append("occupancy assumes 128 threads per block (the launch size is not in the cubin)")
    occ = nvidia_occupancy(arch, regs, shared or 0, block, dynamic_smem_bytes) if regs else None
    launch_smem = (shared or 0) + dynamic_smem_bytes if shared is not None or dynamic_smem_bytes else None
    return Resources(
        registers_per_thread=regs,
        lds_bytes=launch_smem,
        static_lds_bytes=shared,
        scratch_bytes=local,
        stack_frame_bytes=(ptxas or {}).get("stack", entry["stack"] if entry else None),
        spill_store_bytes=(ptxas or {}).get("spill_stores"),
        spill_load_bytes=(ptxas or {}).get("spill_loads"),
        wavefront_size=32,
        max_flat_workgroup_size=threads_per_block,
        occupancy_warps_per_sm=occ.value if occ else None,
        occupancy_limiter=occ.limiter if occ else None,
        occupancy_reason=occ.reason if occ else None,
        occupancy_limits=occ.limits if occ else {},
        notes=notes,
    )


def read_cubin(path: str | Path, timeout: float = 60.0) -> list[sass.SassFunction]:
    """Run nvdisasm (line info, then life ranges) and cuobjdump on a cubin; its functions with their resources, live
    GPR sets and source lines (parsed by ``tools.isa.sass.functions_from_listings``)."""
    p = Path(path)
    if not sass.is_cubin(p.read_bytes()):
        raise InputError(f"{p} is not a CUDA cubin (ELF, EM_CUDA)", hint="extract one with `cuobjdump -xelf all`")
    nvdisasm = find_tool("nvdisasm")
    res = LOCAL.run([nvdisasm, "-gi", "-c", str(p)], timeout=timeout)  # -gi: line info with inlining chains
    if not res.ok:
        raise ToolchainError(f"nvdisasm failed on {p}", details=res.stderr[-2000:])
    plr = _life_ranges(nvdisasm, p, timeout)
    usage = LOCAL.run([find_tool("cuobjdump"), "-res-usage", str(p)], timeout=timeout)
    return sass.functions_from_listings(res.stdout, plr, usage.stdout if usage.ok else "")


def _life_ranges(nvdisasm: str, cubin: Path, timeout: float) -> str:
    """``nvdisasm --print-life-ranges --life-range-mode narrow`` of a cubin. A function that declares 255 registers
    (ptxas's maximum) is refused ("Invalid register count : '255'"): then the listing is made from a temporary copy
    declaring 254, which prints the same columns (they follow the registers the code names)."""
    argv = [nvdisasm, "--print-life-ranges", "--life-range-mode", "narrow", "-c"]
    plr = LOCAL.run([*argv, str(cubin)], timeout=timeout)
    if not plr.ok and _BAD_REGCOUNT.search(plr.stderr):
        data = bytearray(cubin.read_bytes())
        fields = [(at, n) for at, n in sass.register_count_fields(bytes(data)) if n > _LIFE_RANGE_MAX_REGCOUNT]
        for at, _ in fields:
            data[at : at + 4] = _LIFE_RANGE_MAX_REGCOUNT.to_bytes(4, "little")
        if fields:
            with tempfile.TemporaryDirectory(prefix="kp-cubin-") as tmp:
                copy = Path(tmp) / cubin.name
                copy.write_bytes(bytes(data))
                plr = LOCAL.run([*argv, str(copy)], timeout=timeout)
    if not plr.ok:
        raise ToolchainError(f"nvdisasm --print-life-ranges failed on {cubin}", details=plr.stderr[-2000:])
    return plr.stdout
