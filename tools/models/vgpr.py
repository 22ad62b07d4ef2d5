"""Models for vgpr-pressure: register use, liveness peaks, spills, suggestions, and before/after diffs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.models.outcome import Correctness, SpeedOutcome

Status = Literal["ok", "warn", "bad"]

# What defined a live register's value, in the analysis's closed vocabulary (tools.isa.pressure.Attributor.kind /
# SassAttributor.kind). AMD "lds_other": an LDS instruction other than a read returned it (ds_bpermute/ds_swizzle
# lane shuffles of a reduction, an LDS atomic with return); "other": any other defining instruction (a returning
# global/buffer atomic, an unknown mnemonic); the group's example names the instruction.
AmdValueKind = Literal[
    "mfma_accumulator",
    "valu_accumulator",
    "global_load",
    "scale_load",
    "lds_fragment",
    "scale_product",
    "address",
    "spill_reload",
    "agpr_copy",
    "kernel_input",
    "valu_other",
    "lds_other",
    "other",
]
SassValueKind = Literal[
    "mma_accumulator",
    "global_load",
    "shared_load",
    "spill_reload",
    "constant_load",
    "special_register",
    "address",
    "alu_other",
    "kernel_input",
]
ValueKind = Literal[AmdValueKind, SassValueKind]
# a spilled value's kind; "respill": a reloaded value stored again (AMD), attributed to the original store's value
SpillKind = Literal[ValueKind, "respill"]


class Metric(BaseModel):
    name: str = Field(description="e.g. vgpr_count, vgpr_spill_count, waves_per_simd, max_live_vgprs")
    value: int | float | None
    status: Status = "ok"
    note: str = ""


class InstructionRef(BaseModel):
    """One instruction: its index in the kernel (0-based, as RGA's line number minus 1), its file line and text."""

    index: int
    line: int = Field(description="line in the ISA file (1-based)")
    text: str
    source: str | None = Field(
        None,
        description="the user's file:line from the nearest .loc, walked through inlined library code: "
        "'kernel.py:22:10', 'kernel.py:11:8 via kernel.py:20:4' (helper line, outermost call site), "
        "'(inside tl.sum at kernel.py:21:12)'",
    )
    inlined_at: list[str] | None = Field(None, description="the .loc's full inlining chain, innermost first")
    live_vgprs: int | None = Field(
        None,
        description="live VGPRs here (AMD name kept for compatibility: on NVIDIA it holds the live GPRs, as live_gprs)",
    )
    live_gprs: int | None = Field(None, description="NVIDIA: live GPRs here (nvdisasm life ranges)")


class RegisterGroup(BaseModel):
    kind: ValueKind = Field(
        description="AMD: mfma_accumulator | valu_accumulator | global_load | lds_fragment | scale_load | "
        "scale_product | address | spill_reload | agpr_copy | kernel_input | valu_other | lds_other | other; "
        "NVIDIA (GPRs): mma_accumulator | global_load | shared_load | spill_reload | constant_load | "
        "special_register | address | alu_other | kernel_input"
    )
    count: int
    registers: str = Field(description="compact list, e.g. 'v[2:17], v40'")
    example: InstructionRef | None = Field(None, description="one defining instruction")


class SourceGroup(BaseModel):
    source: str = Field(
        description="the user's file:line of the defining instruction (through inlined library code, as "
        "InstructionRef.source), or '(no .loc)'"
    )
    count: int
    registers: str


class CriticalPoint(BaseModel):
    """An instruction where live VGPRs (NVIDIA: GPRs) peak, and what is live there.

    ``live_vgprs``/``live_agprs``/``live_sgprs`` are AMD names kept for compatibility (the CLI text, the MCP table and
    tests read them): on NVIDIA they hold the GPRs, 0 and the uniform registers. NVIDIA reports also fill the
    vendor's own ``live_gprs``/``live_ugprs``/``live_predicates``."""

    instruction: InstructionRef
    live_vgprs: int
    live_agprs: int
    live_sgprs: int
    live_gprs: int | None = Field(None, description="NVIDIA: live general-purpose registers (R0…)")
    live_ugprs: int | None = Field(None, description="NVIDIA: live uniform registers (UR0…)")
    live_predicates: int | None = Field(None, description="NVIDIA: live predicate registers (P0…)")
    in_hot_loop: bool
    instructions_at_peak: int = Field(description="how many instructions reach this count")
    by_definition: list[RegisterGroup]
    by_source: list[SourceGroup]
    by_source_total: int
    by_source_truncated: bool


class HotLoop(BaseModel):
    header_label: str | None
    first_index: int
    last_index: int
    instruction_count: int
    reason: str
    distribution: dict[str, int] = Field(
        description="AMD: scratch_load, scratch_store, vmem_load, mfma, cndmask, nop, lds_read, lds_write, waitcnt; "
        "NVIDIA: local_load, local_store, global_load, global_store, async_copy, shared_load, shared_store, mma, "
        "barrier — counts inside the loop"
    )
    scratch_share_of_memory_ops: float = Field(
        description="scratch (NVIDIA: local LDL/STL) ops / all vector-memory + LDS (shared) ops in the loop"
    )
    max_live_vgprs: int = Field(description="AMD name kept for compatibility: on NVIDIA the GPRs (max_live_gprs)")
    header_live_vgprs: int = Field(description="VGPRs (NVIDIA: GPRs) live on entry to the loop header")
    loop_carried_vgprs: int = Field(description="live at the header and redefined inside the loop (NVIDIA: GPRs)")
    loop_carried: list[RegisterGroup]
    max_live_gprs: int | None = Field(None, description="NVIDIA: most live GPRs at one instruction of the loop")
    header_live_gprs: int | None = Field(None, description="NVIDIA: GPRs live on entry to the loop header")
    loop_carried_gprs: int | None = Field(None, description="NVIDIA: GPRs live at the header and redefined inside")


class SpilledValue(BaseModel):
    reg: str
    slot: str = Field(description="scratch offset or AGPR used as the slot")
    kind: SpillKind = Field(description="what defined the value (RegisterGroup.kind's words, or respill)")
    store: InstructionRef
    defined_by: InstructionRef | None
    in_hot_loop: bool


class SpillAnalysis(BaseModel):
    spill_stores: int
    spill_reloads: int
    hot_loop_spill_stores: int
    hot_loop_spill_reloads: int
    agpr_spill_slots: int = Field(description="AGPRs used only through v_accvgpr_write/read as spill slots")
    by_kind: dict[SpillKind, int] = Field(description="spill stores by the kind of value stored")
    by_kind_detail: dict[SpillKind, str] = Field(
        default_factory=dict,
        description="per kind: the user lines that define the spilled values and, for addresses, the memory "
        "instructions the reloaded values address",
    )
    root_cause: str
    values: list[SpilledValue]
    values_total: int
    values_truncated: bool


class Suggestion(BaseModel):
    id: str = Field(
        description="drop_loop_carried_state | fold_block_accumulators | lazy_scale_products | "
        "per_k_step_b_loads | drop_first_fragment_prefetch; NVIDIA: local_spills_in_hot_loop | "
        "drop_loop_carried_state | async_copy_to_shared"
    )
    title: str
    estimated_vgpr_savings: int
    evidence: str
    action: str


class InstructionPressure(BaseModel):
    """Live registers at one instruction. ``live_vgprs``/``live_agprs``/``live_sgprs``: AMD names kept for
    compatibility (the MCP table reads them); on NVIDIA they hold GPRs, 0 and UGPRs, and ``live_gprs``/
    ``live_ugprs``/``live_predicates`` are filled."""

    index: int
    line: int
    text: str
    live_vgprs: int
    live_agprs: int
    live_sgprs: int
    source: str | None = None
    live_gprs: int | None = None
    live_ugprs: int | None = None
    live_predicates: int | None = None


class VgprReport(BaseModel):
    """Register pressure of one kernel; ``summary`` is the one-paragraph answer."""

    summary: str
    kernel: str
    arch: str | None
    file: str | None = None
    vendor: Literal["amd", "nvidia"] = "amd"
    instruction_count: int
    metrics: list[Metric]
    hot_loop: HotLoop | None = None
    critical_points: list[CriticalPoint] = Field(default_factory=list)
    spills: SpillAnalysis | None = None
    suggestions: list[Suggestion] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    triton: list[str] = Field(
        default_factory=list,
        description="Triton stages beside the ISA: tile values per lane and which are live at once (TTGIR), layout "
        "conversions and whether they go through LDS, loads narrower than their layout allows and why",
    )
    baseline: KernelDiff | None = Field(None, description="changes against --baseline, when one was given")
    per_instruction: list[InstructionPressure] | None = None

    def metric(self, name: str) -> Metric | None:
        return next((m for m in self.metrics if m.name == name), None)


class KernelError(BaseModel):
    kernel: str
    error: str
    hint: str = ""


class VgprReports(BaseModel):
    """Every kernel of one input; kernels that could not be analysed are listed in ``errors``."""

    summary: str
    file: str
    reports: list[VgprReport]
    errors: list[KernelError] = Field(default_factory=list)


class MetricChange(BaseModel):
    name: str
    before: int | float | None
    after: int | float | None
    delta: int | float | None
    regression: bool = Field(description="fails the comparison: more spills or scratch, or a budget the user set")
    warning: bool = Field(
        False,
        description="explains a time, never fails: lower occupancy or a higher live-register peak (the speed decides)",
    )
    why: str = ""


class KernelDiff(BaseModel):
    before: str
    after: str
    changes: list[MetricChange]
    regression: bool


class VgprDiff(BaseModel):
    summary: str
    kernels: list[KernelDiff]
    only_before: list[str] = Field(default_factory=list)
    only_after: list[str] = Field(default_factory=list)
    regression: bool = Field(description="a failure: new spills, a budget broken, incorrect, or slower")
    correctness: Correctness | None = Field(None, description="check on the CPU where it applies")
    speed: SpeedOutcome | None = Field(None, description="the predicted speed of AFTER against BEFORE, with its band")


VgprReport.model_rebuild()
