"""Models for ``schedule``: a kernel's hot loop (and its prologue and epilogue) cut into clusters at ``s_barrier`` and
``sched_barrier``/``sched_group_barrier`` markers; per cluster what it issues, how long each pipe is busy, what its
waits retire and which cluster issued that, and (with an ATT trace) what the GPU measured."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# The classes a cluster's instructions are counted in (the one list: tools.schedule.amd maps mnemonic classes onto it).
ScheduleClass = Literal[
    "mfma",
    "valu",
    "salu",
    "smem",
    "vmem_load",
    "vmem_store",
    "dma_to_lds",  # buffer_load … lds / global_load_lds_*: global memory straight into LDS
    "lds_read",  # ds_read* / ds_load*, ds_read_tr* included (also counted in lds_read_transpose)
    "lds_write",
    "lds_other",
    "waitcnt",
    "barrier",
    "branch",
    "other",
]
Pipe = Literal["mfma", "valu", "salu", "lds", "vmem"]
Region = Literal["prologue", "loop", "epilogue", "kernel"]


class WaitRecord(BaseModel):
    """One ``s_waitcnt`` (gfx12 ``s_wait_*``) in a cluster and what it retires in the steady state."""

    index: int
    text: str
    retires: list[int] = Field(default_factory=list, description="instruction indices of the operations it retires")
    retires_text: list[str] = Field(default_factory=list)
    issuing_clusters: list[int] = Field(default_factory=list, description="cluster ids that issued what it retires")
    clusters_ago: list[int] = Field(
        default_factory=list, description="per issuing cluster: how many clusters earlier, counted across the back edge"
    )
    across_back_edge: bool = False
    stall_cycles: float | None = Field(None, description="estimated cycles the wave waits here (latency model)")
    note: str | None = None


class LoadRecord(BaseModel):
    """One memory operation a cluster issues and where it is waited for."""

    index: int
    text: str
    kind: ScheduleClass
    retired_by: int | None = Field(None, description="the wait that retires it (instruction index)")
    consumer_cluster: int | None = Field(None, description="the cluster holding that wait")
    clusters_ahead: int | None = None
    source: str | None = None


class StallClass(BaseModel):
    name: str
    cycles: float


class Cluster(BaseModel):
    id: int
    region: Region
    position: int = Field(description="the cluster's place within its region, from 0")
    first_instruction: int
    last_instruction: int
    ends_with: str = Field(description="the barrier or marker that ends it, 'back edge' or 'end'")
    instructions: int
    counts: dict[str, int] = Field(description="instructions by ScheduleClass (classes with none are left out)")
    mfma_shapes: dict[str, int] = Field(default_factory=dict, description="MFMA/WMMA mnemonic -> count")
    lds_read_transpose: int = Field(0, description="of lds_read: ds_read_tr* / ds_load_tr* (gfx950)")
    bytes_loaded_per_lane: int = 0
    issue_cycles: float = Field(description="cycles the wave spends issuing (MFMA: its issue slot, not its passes)")
    pipe_cycles: dict[str, float] = Field(description="busy cycles per pipe (Pipe) from the device's cost table")
    estimated_cycles: float = Field(description="the cluster's time in the issue + latency model, stalls included")
    wait_stall_cycles: float = 0
    critical_pipe: str | None = None
    critical_idle_share: float | None = Field(None, description="1 - critical pipe busy / estimated cycles")
    waits: list[WaitRecord] = Field(default_factory=list)
    loads: list[LoadRecord] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list, description="user source lines, most instructions first")
    measured_cycles: float | None = Field(None, description="ATT: median over waves of cycles per visit")
    measured_visits: float | None = Field(None, description="ATT: median over waves of visits")
    measured_waves: int = 0
    measured_coverage: float | None = Field(
        None, description="ATT: share of the cluster's instructions a visit executed (median); below 0.9 no error"
    )
    estimate_error: float | None = Field(None, description="(estimated - measured) / measured")
    measured_idle_share: float | None = Field(None, description="ATT: 1 - critical pipe busy / measured cycles")
    stall_classes: list[StallClass] = Field(default_factory=list, description="ATT: stall cycles per class, median")


class ScheduleTrace(BaseModel):
    path: str
    kernel: str
    waves: int
    clusters_measured: int = Field(description="clusters the waves ran whole, each with an estimate error")
    median_abs_error: float | None = Field(None, description="median over measured clusters of |estimate_error|")
    note: str


class ScheduleReport(BaseModel):
    source: str
    kernel: str
    arch: str | None
    device: str | None
    hot_loop: str | None = Field(None, description="the hot loop's header label, or None when the kernel has none")
    hot_loop_reason: str | None = None
    split_at: list[str] = Field(description="what cut the clusters: s_barrier, sched_barrier, sched_group_barrier")
    clusters: list[Cluster]
    trace: ScheduleTrace | None = None
    summary: str
    notes: list[str] = Field(default_factory=list)
    limits: list[str] = Field(default_factory=list, description="what the estimate leaves out")
