"""Models for dump-ir: what was compiled, every stage kept, and the resources read from the ISA."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# what sets the occupancy: the one set, read by tools.isa.arch.Occupancy, Resources and the prefetch report
OccupancyLimiter = Literal["vgpr", "agpr", "sgpr", "lds", "waves-per-eu", "block-size", "registers", "smem", "hardware"]


class Stage(BaseModel):
    """One compiler stage's artifact, in compile order."""

    name: str = Field(description="stage name without its number, e.g. 'llvm_ir', 'final_isa', 'ttgir', 'ptx'")
    path: str
    bytes: int


class Resources(BaseModel):
    """Register, memory and occupancy figures read from the final ISA (AMD) or the cubin (NVIDIA).

    AMD figures come from the ``.amdgpu_metadata`` YAML and the ``.set <kernel>.num_*`` symbols; ``None`` means the
    compiler did not say, never zero. On gfx90a/gfx942/gfx950 ``vgpr_count`` is the unified total (arch + AGPR).
    """

    vgpr_count: int | None = None
    agpr_count: int | None = None
    accum_offset: int | None = None
    arch_vgpr_count: int | None = Field(None, description="architectural VGPRs (.set <k>.num_vgpr)")
    sgpr_count: int | None = None
    vgpr_spill_count: int | None = None
    sgpr_spill_count: int | None = None
    scratch_bytes: int | None = Field(None, description="private segment bytes per lane")
    lds_bytes: int | None = Field(
        None,
        description="LDS / shared memory bytes per workgroup the launch allocates: static plus dynamic (Triton's "
        "metadata.shared)",
    )
    wavefront_size: int | None = None
    max_flat_workgroup_size: int | None = None
    waves_per_simd: int | None = Field(None, description="AMD occupancy: waves per SIMD the resources allow")
    # NVIDIA
    registers_per_thread: int | None = None
    spill_store_bytes: int | None = None
    spill_load_bytes: int | None = None
    stack_frame_bytes: int | None = None
    occupancy_warps_per_sm: int | None = Field(None, description="NVIDIA occupancy: resident warps per SM")
    occupancy_limiter: OccupancyLimiter | None = Field(
        None, description="the resource that sets waves_per_simd / occupancy_warps_per_sm (the smallest limit)"
    )
    occupancy_reason: str | None = Field(None, description="one line: every limit, the smallest named first")
    occupancy_limits: dict[str, int] = Field(
        default_factory=dict, description="each resource's own limit in waves/SIMD or warps/SM, e.g. {'vgpr': 4}"
    )
    vgpr_reserved: int | None = Field(
        None,
        description="AMD: VGPRs the kernel descriptor reserves per wave (.amdhsa_next_free_vgpr, unified with AGPRs "
        "after .amdhsa_accum_offset); can exceed vgpr_count when LLVM pads to honour amdgpu-waves-per-eu",
    )
    static_lds_bytes: int | None = Field(
        None, description="LDS / shared memory the binary declares; lds_bytes adds what the launch allocates"
    )
    compiler_occupancy: int | None = Field(None, description="AMD: the compiler's own '; Occupancy: N' comment")
    notes: list[str] = Field(default_factory=list, description="where figures disagree or were derived")


class LaunchArgument(BaseModel):
    """One argument of a recorded launch: a tensor by its shape and bytes, a scalar or constexpr by its value."""

    name: str
    kind: Literal["tensor", "scalar", "constexpr"]
    dtype: str | None = None
    shape: list[int] | None = None
    nbytes: int | None = Field(None, description="the tensor's bytes (numel x element size)")
    value: int | float | bool | str | None = None
    values: list[int] | None = Field(
        None,
        description="an integer CPU tensor's elements in order, when it has at most 1024 (lengths, offsets): a loop "
        "bound loaded from it is evaluated on them",
    )
    hottest: dict[str, int] | None = Field(
        None,
        description="a larger integer CPU tensor (up to 2^26 elements): for d in 1, 16, 32, 64, 128, the most elements "
        "whose value // d is the same (d=1: the most common value; 32: the most indices into one 128-byte line of "
        "4-byte elements), for atomics whose addresses are these values",
    )


class LaunchInfo(BaseModel):
    """How the kernel is launched, where the kernel file says (Triton example arguments, a trace)."""

    grid: list[int] | None = Field(None, description="launch grid (programs / workgroups per dimension)")
    programs: int | None = Field(None, description="workgroups / thread blocks in the grid (product of grid)")
    block_threads: int | None = Field(None, description="threads per workgroup / block (num_warps x warp size)")
    options: dict[str, int | float | str | bool | None] = Field(
        default_factory=dict, description="launch options given (num_warps, num_stages, waves_per_eu, ...)"
    )
    specialization: dict[str, str] = Field(
        default_factory=dict,
        description="per argument, what the JIT specialised on: 'aligned16' (pointer), 'div16' or '==1' (integer), "
        "'constexpr=V'; '' for nothing",
    )
    arguments: list[LaunchArgument] = Field(
        default_factory=list, description="the launch's arguments in order (example-args and captured calls)"
    )
    source: Literal["example-args", "signature", "command", "trace", "call"] = Field(
        description="example-args: derived by Triton's own binder from example arguments (what the JIT launches); "
        "signature: the dict form, no launch specialisation; call: captured from the user's host function"
    )
    note: str | None = None


class CompilerVersions(BaseModel):
    frontend: str
    versions: dict[str, str] = Field(default_factory=dict)


class KernelDump(BaseModel):
    """One compiled kernel for one architecture."""

    name: str
    arch: str
    frontend: str
    compiler: CompilerVersions
    stages: list[Stage]
    final_isa: str | None = Field(None, description="path of the final AMDGCN (.s) or SASS/PTX text")
    binary: str | None = Field(None, description="path of the hsaco or cubin")
    resources: Resources
    launch: LaunchInfo | None = Field(None, description="grid and JIT specialisation, where known")
    notes: list[str] = Field(default_factory=list, description="what this compile lacks or assumed")


class DumpResult(BaseModel):
    """What dump-ir produced for one input and one architecture."""

    summary: str
    source: str = Field(description="kernel file, or the command in command mode")
    arch: str
    frontend: str
    out_dir: str
    cache_hit: bool = False
    compile_seconds: float
    kernels: list[KernelDump]
    log: str | None = Field(None, description="path of the compiler's captured stdout/stderr")
