"""Models for prefetch-data-load: per-loop load-to-wait/use distances, verdicts, register headroom, verification."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.models.dump import LaunchInfo
from tools.profilers.timing import Comparison

LoopVerdict = Literal["exposed-latency", "prefetched", "memory-bound", "no-loads"]


class LoadSite(BaseModel):
    """One vector-memory load in a loop: where its data is waited for and first used."""

    index: int = Field(description="instruction index in the kernel (AMD) or SASS line order (NVIDIA)")
    text: str
    source: str | None = Field(None, description="file:line from .loc (AMD) or the SASS line-info comment")
    bytes_per_lane: int = Field(description="bytes this load writes per lane (0 when it goes straight to LDS/smem)")
    wait_index: int | None = Field(None, description="the s_waitcnt / DEPBAR / scoreboard wait that retires it")
    wait_text: str | None = None
    first_use_index: int | None = None
    first_use_text: str | None = None
    consumed: Literal["same-iteration", "next-iteration", "after-loop", "unused"] = Field(
        description="same-iteration: latency exposed; next-iteration: carried, i.e. prefetched"
    )
    load_to_wait_instructions: int | None = None
    load_to_wait_cycles: int | None = Field(None, description="estimated issue cycles between issue and the wait")
    load_to_use_distance: int | None = Field(None, description="instructions between issue and first use")


class BarrierRegion(BaseModel):
    """An s_barrier (or BAR.SYNC) in a loop; loads of a later phase issued after it could be hoisted above it."""

    index: int
    text: str
    source: str | None = None
    loads_after: int = Field(description="loads issued after the barrier in the same iteration that could move up")
    note: str


class LoopReport(BaseModel):
    header: str = Field(description="label of the loop header, or the block index")
    first_instruction: int
    last_instruction: int
    instruction_count: int
    depth: int
    is_hot: bool
    verdict: LoopVerdict
    reason: str
    loads: list[LoadSite] = Field(default_factory=list, description="at most 32, in issue order")
    loads_total: int = 0
    bytes_per_lane_per_iteration: int = 0
    compute_cycles: int = Field(0, description="estimated MFMA/VALU (AMD) or FP/tensor (NVIDIA) issue cycles")
    mfma_count: int = 0
    valu_count: int = 0
    barriers: list[BarrierRegion] = Field(default_factory=list)
    head_copies: int = Field(0, description="v_mov/MOV register copies before the first load at the loop head")


class RegisterHeadroom(BaseModel):
    """What a prefetch buffer costs in registers and occupancy."""

    arch: str
    current_vgprs: int | None = Field(None, description="unified VGPRs (arch + AGPR) or NVIDIA registers/thread")
    prefetch_buffer_vgprs: int = Field(description="bytes loaded per iteration per lane / 4")
    projected_vgprs: int | None = None
    current_occupancy: int | None = Field(None, description="waves per SIMD (AMD) or warps per SM (NVIDIA)")
    projected_occupancy: int | None = None
    next_threshold_vgprs: int | None = Field(None, description="most registers that keep the current occupancy")
    verdict: Literal["fits", "costs-occupancy", "exceeds-register-file", "unknown"]
    note: str


class PrefetchReport(BaseModel):
    """prefetch-data-load for one kernel: hot loop first."""

    summary: str
    source: str
    arch: str | None
    kernel: str
    has_source_lines: bool = Field(description="False when the ISA carries no .loc / line info")
    loops: list[LoopReport] = Field(default_factory=list, description="hot loop first; at most 16")
    loops_total: int = 0
    headroom: RegisterHeadroom | None = None
    prologue_loads: int = Field(0, description="loads issued before the hot loop (a prefetch prologue has some)")
    spill_count: int | None = Field(None, description="VGPR spills (AMD) or spill-store bytes (NVIDIA)")
    occupancy: int | None = Field(None, description="waves per SIMD (AMD) or warps per SM (NVIDIA)")
    occupancy_limiter: str | None = Field(None, description="the resource that sets the occupancy (see Resources)")
    workgroups_per_cu: int | None = Field(None, description="workgroups / blocks one CU / SM holds at this occupancy")
    launch: LaunchInfo | None = Field(None, description="the launch (grid, block) where the kernel file states it")
    notes: list[str] = Field(default_factory=list)
    isa_path: str | None = None


class VerifyCheck(BaseModel):
    name: str
    ok: bool
    detail: str
    severity: Literal["note", "warning"] | None = Field(
        None, description="for a passing check that still deserves attention: note (cannot matter here) or warning"
    )


class GpuMeasurement(BaseModel):
    """BEFORE and AFTER run on a GPU: correctness against a reference, then an interleaved timing."""

    measured: bool = Field(description="False when no GPU, no torch or no kernelpilot_run made a timing impossible")
    note: str = Field(description="what was measured, or why nothing was ('not measured: no GPU ...')")
    device: str | None = None
    shape: str | None = Field(None, description="the problem both versions ran, as kernelpilot_run describes it")
    before_correct: VerifyCheck | None = None
    after_correct: VerifyCheck | None = None
    comparison: Comparison | None = Field(None, description="AFTER (candidate) against BEFORE (baseline)")
    grid: list[int] | None = Field(None, description="the launch grid kernelpilot_run states, where it does")


class VerifyReport(BaseModel):
    """--verify BEFORE AFTER: did the rewrite really prefetch, and what did it cost?"""

    summary: str
    ok: bool
    before: PrefetchReport
    after: PrefetchReport
    checks: list[VerifyCheck]
    gpu: GpuMeasurement | None = Field(None, description="correctness and speedup where a GPU and timer are present")
