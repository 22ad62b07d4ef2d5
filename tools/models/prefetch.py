"""Models for prefetch-data-load: per-loop load-to-wait/use distances, verdicts, register headroom, verification."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.models.dump import LaunchInfo, OccupancyLimiter
from tools.models.outcome import Correctness, OutcomeVerdict, SpeedOutcome
from tools.models.timing import Comparison

LoopVerdict = Literal["exposed-latency", "prefetched", "memory-bound", "no-loads", "undetermined"]
Consumed = Literal["same-iteration", "next-iteration", "after-loop", "unused", "undetermined"]
# Why the wait that retires a load sits where it does (see skills/prefetch-data-load/SKILL.md, "Reading a load line").
WaitReason = Literal[
    "first-use",  # the next instruction reads the loaded data itself
    "loop-carried-copy",  # the next instruction copies the loaded data (v_mov/s_mov) to keep it for later
    "register-pair",  # the reader takes a register pair/range that only partly holds this load's data
    "in-order",  # vmcnt/loadcnt retires loads in issue order: the wait is for a later load of the same counter
    "drained",  # the wait is for an earlier load, but its count retires this later one too (e.g. vmcnt(0))
    "scalar-out-of-order",  # SMEM returns out of order, so the compiler waits lgkmcnt(0) for any scalar load
    "barrier",  # the compiler drains memory before an s_barrier / BAR
    "loop-end",  # the wait sits at the end of the iteration, before the back edge
    "async-group",  # cp.async: the DEPBAR that retires its commit group
    "other",
]


class LoadSite(BaseModel):
    """One memory load in a loop, the single record every view reads (loop summary, per-load lines, --verify checks,
    eval ISA checks): where it issues, which wait retires it and why, where its data is used, and whether its
    latency is hidden."""

    index: int = Field(description="instruction index in the kernel (AMD) or SASS line order (NVIDIA)")
    text: str
    block: str | None = Field(None, description="label of the basic block that issues it")
    memory: Literal["vector", "scalar"] = Field(
        "vector", description="vector memory (vmcnt/loadcnt, LDG) or scalar memory (s_load, lgkmcnt/kmcnt)"
    )
    source: str | None = Field(None, description="file:line from .loc (AMD) or the SASS line-info comment")
    bytes_per_lane: int = Field(description="bytes this load writes per lane (0 when it goes straight to LDS/smem)")
    wait_index: int | None = Field(None, description="the s_waitcnt / DEPBAR / scoreboard wait that retires it")
    wait_text: str | None = None
    wait_iteration: int | None = Field(
        None,
        description="0: the wait is in the iteration that issues the load; 1: the next iteration; 2: the one after",
    )
    wait_reason: WaitReason | None = Field(None, description="why the wait sits where it does")
    wait_reason_detail: str | None = Field(None, description="the instruction that makes the compiler wait there")
    waits_for_index: int | None = Field(
        None, description="in-order: the later load the wait is really for (retiring this one on the way)"
    )
    first_use_index: int | None = Field(None, description="first instruction that reads the data (may be a copy)")
    first_use_text: str | None = None
    consumer_index: int | None = Field(None, description="first instruction that reads the data other than a copy")
    consumer_text: str | None = None
    copy_indices: list[int] = Field(default_factory=list, description="register copies of the data on the way")
    consumed: Consumed = Field(
        description="where the data is consumed (copies followed): same-iteration, next-iteration (carried), "
        "after-loop, unused, or undetermined (paths disagree; see undetermined_reason)"
    )
    undetermined_reason: str | None = None
    carried: bool | None = Field(
        None,
        description="structural: issued an iteration ahead — the wait that retires it is in a later iteration, or "
        "its data is staged to LDS for the next one; None: undetermined",
    )
    waited_too_soon: bool | None = Field(
        None,
        description="structural: the wait that retires it sits too soon — in the issuing iteration, fewer than a "
        "memory latency's estimated cycles after it, with a stall on it in the latency model; False when carried, "
        "retired after the loop or waited for late enough; None: undetermined. The loop's verdict and "
        "loads_exposed read this",
    )
    latency_hidden: bool | None = Field(
        None,
        description="True only when the wait does not come too soon (waited_too_soon is False) AND the latency "
        "model has no stall on it (exposed_cycles is 0 or not modelled); False: exposed, wholly (waited_too_soon) or "
        "in part (carried or waited late, yet exposed_cycles > 0 — e.g. issued late in the previous iteration); "
        "None: undetermined",
    )
    exposed_cycles: int | None = Field(
        None, description="estimated cycles a steady-state iteration stalls waiting for this load (latency model)"
    )
    load_to_wait_instructions: int | None = None
    load_to_wait_cycles: int | None = Field(None, description="estimated issue cycles between issue and the wait")
    load_to_use_distance: int | None = Field(None, description="instructions between issue and first use")


class CopySite(BaseModel):
    """A register copy in the loop, by what it copies and where it sits."""

    index: int
    text: str
    kind: Literal["loaded-data", "accumulator", "other"]
    place: Literal["loop-head", "between-loads", "loop-end"] = Field(
        description="before the loop's first load, between loads, after its last load"
    )
    load_index: int | None = Field(None, description="loaded-data: the load whose data it copies")
    cause: str = Field(description="why the compiler needs it")


class BarrierRegion(BaseModel):
    """An s_barrier (or BAR.SYNC) in a loop; loads of a later phase issued after it could be hoisted above it."""

    index: int
    text: str
    source: str | None = None
    loads_after: int = Field(description="loads issued after the barrier in the same iteration that could move up")
    loads_in_flight: int = Field(0, description="loads issued before it and retired after it (steady state)")
    note: str


class LoopReport(BaseModel):
    header: str = Field(description="label of the loop header, or the block index")
    first_instruction: int
    last_instruction: int
    instruction_count: int
    depth: int
    is_hot: bool = Field(
        description="the loop with the most executed instructions (instructions x trips, see hot_loop_basis)"
    )
    trips: float | None = Field(None, description="iterations per wave from the predictor's trip evidence")
    executed_instructions: float | None = Field(None, description="instructions x trips per wave (the predictor's)")
    verdict: LoopVerdict
    reason: str
    loads: list[LoadSite] = Field(default_factory=list, description="at most 32, in issue order (counts cover all)")
    loads_total: int = 0
    loads_next_iteration: int = Field(
        0, description="loads consumed in the next iteration (all loads, not only those listed)"
    )
    loads_exposed: int = Field(0, description="loads waited for too soon (LoadSite.waited_too_soon)")
    loads_undetermined: int = Field(0, description="loads the analysis cannot classify (paths disagree)")
    scalar_loads: int = Field(0, description="of loads_total, scalar (s_load) loads")
    closest_wait_cycles: int | None = Field(None, description="smallest load-to-wait estimate over all loads")
    bytes_per_lane_per_iteration: int = 0
    compute_cycles: int = Field(0, description="estimated MFMA/VALU (AMD) or FP/tensor (NVIDIA) issue cycles")
    mfma_count: int = 0
    valu_count: int = 0
    barriers: list[BarrierRegion] = Field(default_factory=list, description="at most 8")
    barriers_total: int = 0
    barriers_with_loads_in_flight: int = Field(0, description="barriers whose wait overlaps at least one load")
    head_copies: int = Field(0, description="register copies of loaded data in the loop (= loaded_data_copies)")
    copies: list[CopySite] = Field(
        default_factory=list, description="register copies in the loop, at most 16, loaded data and accumulators first"
    )
    loaded_data_copies: int = 0
    accumulator_copies: int = 0
    other_copies: int = 0
    rotated: bool | None = Field(
        None, description="False when the exit test sits at the loop top and the latch jumps back unconditionally"
    )
    iteration_cycles: int | None = Field(None, description="estimated cycles of one steady-state iteration")
    memory_latencies_per_iteration: float | None = Field(
        None,
        description="estimated stall cycles per iteration / the assumed memory latency: dependent load chains "
        "count once per link (table -> KV -> scale ~2-3 before a prefetch, ~1 after)",
    )
    latency_note: str | None = Field(None, description="what the estimate assumes")
    warnings: list[str] = Field(
        default_factory=list,
        description="loads that may read past their tensor: a look-ahead load through a descriptor without bounds "
        "whose index is not clamped",
    )


class RegisterHeadroom(BaseModel):
    """What a prefetch buffer costs in registers and occupancy."""

    arch: str
    current_vgprs: int | None = Field(None, description="unified VGPRs (arch + AGPR) or NVIDIA registers/thread")
    prefetch_buffer_vgprs: int = Field(
        description="a one-iteration buffer of the hot loop's vector loads: bytes per lane / 4 (scalar loads fill SGPRs)"
    )
    projected_vgprs: int | None = None
    current_occupancy: int | None = Field(None, description="waves per SIMD (AMD) or warps per SM (NVIDIA)")
    projected_occupancy: int | None = None
    next_threshold_vgprs: int | None = Field(None, description="most registers that keep the current occupancy")
    verdict: Literal["fits", "costs-occupancy", "exceeds-register-file", "unknown"]
    note: str


class BaselineComparison(BaseModel):
    """The analysed kernel against a baseline version (a file or a git ref such as ``HEAD:kernel.py``)."""

    baseline: str = Field(description="what BEFORE was: the path or git ref given")
    verdict_before: str | None = None
    occupancy_before: int | None = None
    occupancy_after: int | None = None
    registers_before: int | None = None
    registers_after: int | None = None
    spills_before: int | None = None
    spills_after: int | None = None
    loaded_data_copies_before: int = 0
    loaded_data_copies_after: int = 0
    accumulator_copies_before: int = 0
    accumulator_copies_after: int = 0
    latencies_before: float | None = None
    latencies_after: float | None = None
    regressions: list[str] = Field(default_factory=list, description="what got worse, with figures")
    notes: list[str] = Field(default_factory=list)


class PrefetchReport(BaseModel):
    """prefetch-data-load for one kernel: hot loop first."""

    summary: str
    source: str
    arch: str | None
    kernel: str
    has_source_lines: bool = Field(description="False when the ISA carries no .loc / line info")
    loops: list[LoopReport] = Field(default_factory=list, description="hot loop first; at most 16")
    loops_total: int = 0
    hot_loop_basis: str | None = Field(
        None,
        description="how the hot loop was picked: by executed instructions from trip counts (their evidence), or "
        "the static pick (most MFMA + memory instructions) with the assumption that states why",
    )
    headroom: RegisterHeadroom | None = None
    prologue_loads: int = Field(0, description="loads issued before the hot loop (a prefetch prologue has some)")
    spill_count: int | None = Field(None, description="VGPR spills (AMD) or spill-store bytes (NVIDIA)")
    occupancy: int | None = Field(None, description="waves per SIMD (AMD) or warps per SM (NVIDIA)")
    occupancy_limiter: OccupancyLimiter | None = Field(
        None, description="the resource that sets the occupancy (see Resources)"
    )
    workgroups_per_cu: int | None = Field(None, description="workgroups / blocks one CU / SM holds at this occupancy")
    launch: LaunchInfo | None = Field(None, description="the launch (grid, block) where the kernel file states it")
    notes: list[str] = Field(default_factory=list)
    isa_path: str | None = None
    registers: int | None = Field(None, description="VGPRs (AMD, unified) or registers/thread (NVIDIA)")
    baseline: BaselineComparison | None = Field(None, description="with --baseline: changes against that version")


class VerifyCheck(BaseModel):
    name: str
    ok: bool
    detail: str
    severity: Literal["note", "warning"] | None = Field(
        None,
        description="a structural finding (never a failure): note (what a prefetch looks like, or cannot matter here) "
        "or warning (explains a slower time; the next step to try)",
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
    """--verify BEFORE AFTER: is AFTER correct and faster (the verdict), and what in its structure explains the time
    (the note and warning checks)?"""

    summary: str
    ok: bool = Field(description="True exactly when the verdict is pass")
    verdict: OutcomeVerdict = Field(
        description="pass: correct (or not checked, see correctness) and faster beyond the band; fail: incorrect, "
        "slower, new spills or a budget broken; undetermined: the speed could not be decided (see undetermined)"
    )
    undetermined: str | None = Field(None, description="why the verdict is undetermined")
    correctness: Correctness | None = None
    speed: SpeedOutcome | None = Field(None, description="measured on a GPU, else predicted, with its band")
    before: PrefetchReport
    after: PrefetchReport
    checks: list[VerifyCheck]
    gpu: GpuMeasurement | None = Field(None, description="correctness and speedup where a GPU and timer are present")
