"""Per-architecture register files, LDS sizes and occupancy.

Sources: LLVM ``llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp`` (getVGPRAllocGranule, getTotalNumVGPRs,
getMaxWavesPerEU, getNumWavesPerEUWithNumVGPRs) and ``GCNSubtarget.cpp`` (getOccupancyWithNumSGPRs);
AMD "CDNA3 Instruction Set Architecture" §3 (512 unified VGPRs per lane, AGPRs after ``accum_offset``);
AMD CDNA4 ISA (gfx950: 160 KiB LDS per CU); AMD RDNA3/RDNA4 ISA guides (wave32, 1536-entry VGPR file on
gfx1100/1101/1151/1200/1201). NVIDIA: CUDA C Programming Guide, "Compute Capabilities" table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.errors import InputError

if TYPE_CHECKING:  # a type only: this module is read without pydantic
    from tools.models.dump import OccupancyLimiter


@dataclass(frozen=True)
class AmdArch:
    name: str
    family: str  # "cdna" or "rdna"
    wavefront_size: int
    vgprs_per_lane: int  # register file a wave can draw from, per lane, per SIMD (unified arch+acc on CDNA2+)
    vgpr_granule: int
    max_waves_per_simd: int
    simds_per_cu: int
    lds_bytes_per_cu: int
    sgprs_per_simd: int | None  # None: SGPRs do not limit occupancy (gfx10+)
    has_agprs: bool
    max_vgprs_per_wave: int  # architectural VGPR limit per wave


AMD_ARCHS: dict[str, AmdArch] = {
    "gfx90a": AmdArch("gfx90a", "cdna", 64, 512, 8, 8, 4, 65536, 800, True, 512),
    "gfx942": AmdArch("gfx942", "cdna", 64, 512, 8, 8, 4, 65536, 800, True, 512),
    "gfx950": AmdArch("gfx950", "cdna", 64, 512, 8, 8, 4, 163840, 800, True, 512),
    "gfx1100": AmdArch("gfx1100", "rdna", 32, 1536, 24, 16, 2, 65536, None, False, 256),
    "gfx1101": AmdArch("gfx1101", "rdna", 32, 1536, 24, 16, 2, 65536, None, False, 256),
    "gfx1102": AmdArch("gfx1102", "rdna", 32, 1024, 16, 16, 2, 65536, None, False, 256),
    "gfx1151": AmdArch("gfx1151", "rdna", 32, 1536, 24, 16, 2, 65536, None, False, 256),
    "gfx1200": AmdArch("gfx1200", "rdna", 32, 1536, 24, 16, 2, 65536, None, False, 256),
    "gfx1201": AmdArch("gfx1201", "rdna", 32, 1536, 24, 16, 2, 65536, None, False, 256),
}

# NVIDIA: registers per SM, max warps per SM, shared memory per SM (bytes), register allocation unit (per warp),
# resident blocks per SM, shared memory the driver reserves per block (cudaDevAttrReservedSharedMemoryPerBlock).
NVIDIA_ARCHS: dict[str, dict[str, int]] = {
    "sm_80": {
        "regs_per_sm": 65536,
        "max_warps_per_sm": 64,
        "smem_per_sm": 167936,
        "reg_alloc_unit": 256,
        "max_blocks_per_sm": 32,
        "reserved_smem_per_block": 1024,
    },
    "sm_86": {
        "regs_per_sm": 65536,
        "max_warps_per_sm": 48,
        "smem_per_sm": 102400,
        "reg_alloc_unit": 256,
        "max_blocks_per_sm": 16,
        "reserved_smem_per_block": 1024,
    },
    "sm_89": {
        "regs_per_sm": 65536,
        "max_warps_per_sm": 48,
        "smem_per_sm": 102400,
        "reg_alloc_unit": 256,
        "max_blocks_per_sm": 24,
        "reserved_smem_per_block": 1024,
    },
    "sm_90": {
        "regs_per_sm": 65536,
        "max_warps_per_sm": 64,
        "smem_per_sm": 233472,
        "reg_alloc_unit": 256,
        "max_blocks_per_sm": 32,
        "reserved_smem_per_block": 1024,
    },
}


@dataclass(frozen=True)
class Product:
    """The GPU a launch-aware verdict assumes for an architecture: its compute units / SMs."""

    arch: str
    name: str
    compute_units: int


# One product per architecture (the usual datacenter part); --compute-units overrides it.
PRODUCTS: dict[str, Product] = {
    "gfx90a": Product("gfx90a", "AMD Instinct MI250X (one GCD)", 110),
    "gfx942": Product("gfx942", "AMD Instinct MI300X", 304),
    "gfx950": Product("gfx950", "AMD Instinct MI355X", 256),
    "sm_80": Product("sm_80", "NVIDIA A100 SXM", 108),
    "sm_90": Product("sm_90", "NVIDIA H100 SXM", 132),
}

AMD_TARGETS = ("gfx90a", "gfx942", "gfx950")
NVIDIA_TARGETS = ("sm_80", "sm_90")


def normalize_arch(arch: str) -> str:
    """Accept gfx942, gfx942:xnack-, sm_90, sm90, sm_90a, 90; return the canonical name or raise InputError."""
    a = arch.strip().lower()
    if a.startswith("gfx"):
        base = a.split(":", 1)[0]
        if base in AMD_ARCHS:
            return base
    else:
        digits = a.removeprefix("sm_").removeprefix("sm").removesuffix("a")
        if digits.isdigit() and f"sm_{digits}" in NVIDIA_ARCHS:
            return f"sm_{digits}"
    known = ", ".join([*AMD_ARCHS, *NVIDIA_ARCHS])
    raise InputError(f"unknown architecture '{arch}'", hint=f"use one of: {known}")


def is_amd(arch: str) -> bool:
    return arch.startswith("gfx")


def amd_arch(arch: str) -> AmdArch:
    return AMD_ARCHS[normalize_arch(arch)]


def waves_per_simd_from_vgprs(arch: str, total_vgprs: int) -> int:
    """Occupancy limit from registers alone; ``total_vgprs`` is the unified count (metadata .vgpr_count)."""
    info = amd_arch(arch)
    granule = info.vgpr_granule
    alloc = max(granule, math.ceil(max(total_vgprs, 1) / granule) * granule)
    return max(0, min(info.max_waves_per_simd, info.vgprs_per_lane // alloc))


def waves_per_simd_from_sgprs(arch: str, sgprs: int) -> int:
    """GCN/CDNA SGPR limit (GCNSubtarget::getOccupancyWithNumSGPRs for VI+); RDNA has no SGPR limit."""
    info = amd_arch(arch)
    if info.sgprs_per_simd is None:
        return info.max_waves_per_simd
    for limit, waves in ((80, 10), (88, 9), (100, 8), (112, 7), (128, 6), (144, 5), (168, 4), (200, 3)):
        if sgprs <= limit:
            return min(waves, info.max_waves_per_simd)
    return 2 if sgprs <= 800 else 1


def waves_per_simd_from_lds(arch: str, lds_bytes: int, workgroup_size: int) -> int:
    """Workgroups that fit in the CU's LDS, times their waves, spread over the CU's SIMDs."""
    info = amd_arch(arch)
    if lds_bytes <= 0:
        return info.max_waves_per_simd
    if lds_bytes > info.lds_bytes_per_cu:
        return 0
    groups = info.lds_bytes_per_cu // lds_bytes
    waves_per_group = math.ceil(max(workgroup_size, 1) / info.wavefront_size)
    return min(info.max_waves_per_simd, (groups * waves_per_group) // info.simds_per_cu)


@dataclass(frozen=True)
class Occupancy:
    """Resident waves per SIMD (AMD) or warps per SM (NVIDIA), the resource that sets it and every limit."""

    value: int
    limiter: OccupancyLimiter  # the one set of limiters, tools.models.dump (Resources.occupancy_limiter)
    limits: dict[str, int]
    reason: str
    workgroups_per_cu: int  # resident workgroups / blocks per CU / SM at this occupancy


def _pick(limits: dict[str, tuple[int, str]], hardware: int, unit: str) -> tuple[int, str, str]:
    value = min([hardware, *(v for v, _ in limits.values())])
    limiter = next((k for k, (v, _) in limits.items() if v == value), "hardware") if value < hardware else "hardware"
    ordered = sorted(limits.items(), key=lambda kv: (kv[1][0], kv[0] != limiter))
    parts = [f"{k} {v} ({why})" for k, (v, why) in ordered]
    head = f"{value} {unit}, limited by {limiter}" if limiter != "hardware" else f"{value} {unit}, the hardware maximum"
    return value, limiter, head + ": " + "; ".join(parts)


def amd_workgroups_per_cu_by_size(arch: str, workgroup_size: int) -> int:
    """Workgroups a CU holds by size alone (LLVM getMaxWorkGroupsPerCU: wave slots, and 16 barriers when a group
    has more than one wave)."""
    info = amd_arch(arch)
    waves = math.ceil(max(workgroup_size, 1) / info.wavefront_size)
    slots = info.max_waves_per_simd * info.simds_per_cu
    return slots if waves == 1 else min(slots // waves, 16)


def amd_occupancy(
    arch: str,
    vgprs: int,
    sgprs: int | None = None,
    lds_bytes: int | None = None,
    workgroup_size: int | None = None,
    waves_per_eu: int | None = None,
) -> Occupancy:
    """Waves per SIMD as the minimum of every limit, as LLVM's ``; Occupancy:`` comment computes it, plus the LDS
    the launch allocates. ``vgprs`` is what the descriptor reserves (``.amdhsa_next_free_vgpr``, unified with AGPRs);
    ``waves_per_eu`` the upper bound of ``amdgpu-waves-per-eu``; ``workgroup_size`` the launch's threads per group."""
    info = amd_arch(arch)
    wg = workgroup_size or info.wavefront_size * 4
    waves_per_group = math.ceil(wg / info.wavefront_size)
    alloc = max(info.vgpr_granule, math.ceil(max(vgprs, 1) / info.vgpr_granule) * info.vgpr_granule)
    limits: dict[str, tuple[int, str]] = {}
    if waves_per_eu:  # first: when it ties with the VGPR limit, LLVM padded the VGPRs to honour it
        limits["waves-per-eu"] = (min(waves_per_eu, info.max_waves_per_simd), f"amdgpu-waves-per-eu max {waves_per_eu}")
    limits["vgpr"] = (
        waves_per_simd_from_vgprs(arch, vgprs),
        f"{vgprs} reserved, {alloc} allocated of {info.vgprs_per_lane}",
    )
    if sgprs is not None and info.sgprs_per_simd is not None:
        limits["sgpr"] = (waves_per_simd_from_sgprs(arch, sgprs), f"{sgprs} SGPRs")
    if lds_bytes:
        limits["lds"] = (
            waves_per_simd_from_lds(arch, lds_bytes, wg),
            f"{lds_bytes} B per {wg}-thread workgroup of {info.lds_bytes_per_cu} B per CU",
        )
    groups = amd_workgroups_per_cu_by_size(arch, wg)
    by_size = min(info.max_waves_per_simd, groups * waves_per_group // info.simds_per_cu)
    limits["block-size"] = (by_size, f"{waves_per_group}-wave workgroups, at most {groups} per CU")
    value, limiter, reason = _pick(limits, info.max_waves_per_simd, "waves/SIMD")
    resident = (value * info.simds_per_cu) // waves_per_group
    return Occupancy(value, limiter, {k: v for k, (v, _) in limits.items()}, reason, resident)


def nvidia_occupancy(
    arch: str, regs_per_thread: int, smem_bytes: int = 0, threads_per_block: int = 128, dynamic_smem_bytes: int = 0
) -> Occupancy:
    """Resident warps per SM as the driver computes it (cuOccupancyMaxActiveBlocksPerMultiprocessor):

    * registers are allocated per warp (in units of 256) from each of the SM's 4 sub-partitions' quarter of the
      register file (measured on an H100: 48 regs x 2-warp blocks → 40 warps/SM, not 42);
    * shared memory per block is the static + dynamic bytes plus the 1 KiB the driver reserves per block; on sm_90
      cuobjdump's SHARED figure already includes that reservation (a Triton kernel shows 1024 where the driver's
      static size is 0), on sm_80 it does not;
    * at most ``max_warps_per_sm`` warps and ``max_blocks_per_sm`` blocks."""
    info = NVIDIA_ARCHS[normalize_arch(arch)]
    warps_per_block = math.ceil(max(threads_per_block, 1) / 32)
    regs_per_warp = math.ceil(max(regs_per_thread, 1) * 32 / info["reg_alloc_unit"]) * info["reg_alloc_unit"]
    warps_by_regs = 4 * ((info["regs_per_sm"] // 4) // regs_per_warp)
    limits: dict[str, tuple[int, str]] = {
        "registers": (
            (warps_by_regs // warps_per_block) * warps_per_block,
            f"{regs_per_thread} regs/thread x {threads_per_block} threads",
        )
    }
    reserved = info["reserved_smem_per_block"]
    if smem_bytes or dynamic_smem_bytes:
        static = max(smem_bytes, reserved) if normalize_arch(arch) == "sm_90" else smem_bytes + reserved
        per_block = static + dynamic_smem_bytes
        limits["smem"] = (
            (info["smem_per_sm"] // per_block) * warps_per_block,
            f"{per_block} B per block (with the {reserved} B the driver reserves) of {info['smem_per_sm']} B/SM",
        )
    blocks = min(info["max_warps_per_sm"] // warps_per_block, info["max_blocks_per_sm"])
    limits["block-size"] = (blocks * warps_per_block, f"{warps_per_block}-warp blocks, at most {blocks} per SM")
    value, limiter, reason = _pick(limits, info["max_warps_per_sm"], "warps/SM")
    return Occupancy(value, limiter, {k: v for k, (v, _) in limits.items()}, reason, value // warps_per_block)


def resident_groups_needed(programs: int, arch: str, compute_units: int | None = None) -> tuple[int, Product]:
    """Workgroups / blocks each CU / SM must hold at once to run ``programs`` in one wave: ceil(grid / CUs)."""
    product = PRODUCTS[normalize_arch(arch)]
    if compute_units:
        product = Product(product.arch, f"{compute_units} CUs/SMs (override)", compute_units)
    return math.ceil(programs / product.compute_units), product
