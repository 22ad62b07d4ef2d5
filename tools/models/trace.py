"""Models for kernel-trace: one trace model every profiler reader fills, and the report the analyses return.

Times are nanoseconds for dispatches (rocprofv3, rocpd, ncu durations) and shader-clock cycles for per-instruction
figures (ATT). Register counts carried by a trace are the profiler's, kept only to be checked against the ISA.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Dispatch(BaseModel):
    """One kernel launch as the profiler recorded it."""

    name: str
    symbol: str | None = Field(None, description="mangled symbol (without .kd) where the format records it")
    start_ns: int | None = None
    end_ns: int | None = None
    duration_ns: int
    dispatch_id: int | None = None
    kernel_id: int | None = None
    correlation_id: int | None = None
    agent: str | None = Field(None, description="rocprofv3 'Agent N' (absolute agent index) or ncu device")
    queue_id: int | None = None
    stream_id: int | None = None
    thread_id: int | None = None
    grid: tuple[int, int, int] | None = Field(None, description="rocprofv3: work-items; ncu: blocks")
    workgroup: tuple[int, int, int] | None = None
    lds_bytes: int | None = None
    scratch_bytes: int | None = None
    vgpr_count: int | None = Field(None, description="as the profiler reports it (unreliable, see register_checks)")
    accum_vgpr_count: int | None = None
    sgpr_count: int | None = None
    registers_per_thread: int | None = Field(None, description="NVIDIA launch__registers_per_thread")


class KernelStat(BaseModel):
    """Aggregate of all dispatches of one kernel name."""

    name: str
    calls: int
    total_ns: int
    avg_ns: float
    min_ns: int
    max_ns: int
    stddev_ns: float | None = None
    share: float = Field(description="fraction of the GPU time of all kernels in the trace (0..1)")


class Instruction(BaseModel):
    """One instruction of a thread trace (ATT code.json / stats CSV) or an ncu source-page SASS row."""

    index: int = Field(description="ATT LineNumber (ISA line order) or ncu row order")
    address: int | None = Field(None, description="ATT Vaddr (code-object relative) or SASS address")
    codeobj: int | None = None
    isa: str
    source: str = Field("", description="'file:line' (inlined frames joined by ' -> '), empty without debug info")
    hit: int = 0
    latency: int = Field(0, description="ATT: cycles issue+stall summed over hits; ncu: warp stall samples")
    stall: int = Field(0, description="ATT: stall cycles; ncu: not-issued warp stall samples")
    idle: int = 0
    kernel: str = Field("", description="the kernel symbol whose code this row belongs to")
    stall_reasons: dict[str, float] = Field(
        default_factory=dict, description="ncu stall_<reason> samples, or an ATT PC-sampling histogram"
    )


class NcuMetric(BaseModel):
    """One row of an ncu details page (or one raw-page column)."""

    section: str
    name: str
    unit: str = ""
    value: float | None = None
    text: str = Field("", description="the value as printed (kept when it is not a number, e.g. 'n/a')")


class NcuRule(BaseModel):
    section: str
    rule: str
    type: str = Field(description="OPT | INF | WRN")
    description: str
    estimated_speedup: float | None = None


class Trace(BaseModel):
    """Everything a reader understood of one profiler output; fields a format lacks stay empty."""

    path: str
    format: str = Field(
        description="rocprofv3-kernel-trace-csv | rocprofv3-kernel-stats-csv | rocprofv3-json | rocpd | att | "
        "att-stats-csv | ncu-details | ncu-source | ncu-raw"
    )
    generation: str = Field("", description="which header generation / schema version was seen")
    arch: str | None = None
    device: str | None = None
    dispatches: list[Dispatch] = Field(default_factory=list)
    stats: list[KernelStat] = Field(default_factory=list, description="profiler-computed stats (kernel_stats.csv)")
    instructions: list[Instruction] = Field(default_factory=list)
    kernels: list[str] = Field(default_factory=list, description="kernel symbols a thread trace / ncu export covers")
    metrics: dict[str, list[NcuMetric]] = Field(default_factory=dict, description="ncu: per kernel (ID: name)")
    rules: dict[str, list[NcuRule]] = Field(default_factory=dict)
    waves: int | None = Field(None, description="ATT: wave files traced")
    wave_states: dict[str, int] = Field(
        default_factory=dict, description="ATT: cycles of all traced waves per state (EXEC, WAIT, STALL, IDLE, EMPTY)"
    )
    notes: list[str] = Field(default_factory=list)


# --- report ----------------------------------------------------------------------------------------------------


class Hotspot(BaseModel):
    index: int
    address: int | None = None
    isa: str
    source: str = ""
    stall_class: str
    hit: int
    latency: int
    stall: int
    idle: int
    stall_share: float = Field(description="this instruction's stall / all stall in the kernel")


class SourceLine(BaseModel):
    source: str
    instructions: int
    hit: int
    latency: int
    stall: int
    stall_share: float
    dominant_stall_class: str


class StallShare(BaseModel):
    stall_class: str
    stall: int
    share: float
    instructions: int


class LoopSummary(BaseModel):
    """A loop found from a backward branch in the ISA rows: header .. back-edge branch."""

    header_index: int
    branch_index: int
    header_address: int | None = None
    branch_address: int | None = None
    instructions: int
    iterations_per_hit: float | None = Field(None, description="back-edge hits / header-entry hits (trip estimate)")
    latency: int
    stall: int
    stall_share: float
    dominant_stall_class: str
    hottest: str = Field("", description="the instruction with most stall cycles inside the loop")


class RegisterCheck(BaseModel):
    """The profiler's register figures for a kernel against the ISA metadata's."""

    kernel: str
    trace_vgpr: int | None
    trace_accum_vgpr: int | None
    isa_vgpr: int | None = Field(description="ISA .vgpr_count (unified arch+AGPR on gfx90a+)")
    isa_agpr: int | None
    isa_arch_vgpr: int | None
    agrees: bool
    message: str


class KernelDelta(BaseModel):
    name: str
    before_total_ns: int | None
    after_total_ns: int | None
    before_avg_ns: float | None
    after_avg_ns: float | None
    speedup: float | None = Field(description="before avg / after avg; > 1 means faster")


class TraceComparison(BaseModel):
    summary: str
    before: str
    after: str
    total_before_ns: int
    total_after_ns: int
    kernels: list[KernelDelta]
    hotspot_stall_before: int | None = None
    hotspot_stall_after: int | None = None
    truncated: bool = False
    total: int = 0


class TraceReport(BaseModel):
    """What kernel-trace found: top kernels by GPU time, instruction hotspots, stalls, loops and warnings."""

    summary: str
    path: str
    format: str
    generation: str = ""
    arch: str | None = None
    device: str | None = None
    kernel_filter: str | None = None
    total_gpu_ns: int = 0
    dispatch_count: int = 0
    kernel_count: int = 0
    top_kernels: list[KernelStat] = Field(default_factory=list)
    top_kernels_total: int = 0
    top_kernels_truncated: bool = False
    hotspots: list[Hotspot] = Field(default_factory=list)
    hotspots_total: int = 0
    hotspots_truncated: bool = False
    source_lines: list[SourceLine] = Field(default_factory=list)
    source_lines_total: int = 0
    source_lines_truncated: bool = False
    stall_breakdown: list[StallShare] = Field(default_factory=list)
    wave_states: dict[str, int] = Field(default_factory=dict)
    loops: list[LoopSummary] = Field(default_factory=list)
    ncu_metrics: list[NcuMetric] = Field(default_factory=list, description="headline ncu metrics of the top kernel")
    ncu_rules: list[NcuRule] = Field(default_factory=list)
    register_checks: list[RegisterCheck] = Field(default_factory=list)
    comparison: TraceComparison | None = None
    timeline: str | None = Field(None, description="path of the Chrome/Perfetto trace-event JSON written")
    warnings: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
