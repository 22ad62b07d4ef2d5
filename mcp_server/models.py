"""What the MCP tools return: ``ToolResult[T]``, the engine's own model ``T`` under ``report``, led by a summary and
the next steps.

The engine model travels unchanged (a field added in ``tools/models`` reaches agents without an edit here); this
module adds only what the server knows: the job state of a long call and artifact links (``kernelpilot://`` URIs
that ``read-artifact`` pages). The return annotation is the tool's outputSchema, so each tool's schema names its model.
Every result begins with ``summary`` because clients give the model the JSON of the structured content.
"""

from __future__ import annotations

from typing import Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from mcp_server.artifacts import dump_id_of, dump_uri
from tools.doctor import DoctorReport
from tools.models.check import CheckReport
from tools.models.dump import DumpResult
from tools.models.predict import PredictResult
from tools.models.prefetch import PrefetchReport, VerifyReport
from tools.models.schedule import ScheduleReport
from tools.models.trace import TraceReport
from tools.models.vgpr import VgprDiff, VgprReports

MAX_KERNELS = 8
T = TypeVar("T", bound=BaseModel)


class ToolResult(BaseModel, Generic[T]):
    """A tool's result: the verdict first, what to do next, the job state, and the engine's model itself."""

    summary: str
    next_steps: list[str] = Field(default_factory=list)
    status: Literal["done", "running"] = "done"
    job_id: str | None = Field(None, description="when status is running: call the same tool again with this job_id")
    report: T | None = Field(None, description="the engine's result, as `kernelpilot <tool> --json` prints it")

    @classmethod
    def running(cls, label: str, elapsed: float, job_id: str, tool: str):
        """The answer to a call whose job outlived wait_seconds: no report yet, how to keep waiting."""
        return cls(
            summary=f"{label}: still running after {elapsed:.0f}s (job {job_id})",
            next_steps=[f"call {tool} with job_id='{job_id}' to keep waiting"],
            status="running",
            job_id=job_id,
        )


class KernelLinks(BaseModel):
    """Where to read one kernel's stages through the server (the report holds their paths and sizes)."""

    name: str
    final_isa_uri: str | None = None
    stage_uris: dict[str, str] = Field(default_factory=dict, description="stage name -> kernelpilot:// URI")


class DumpIrOutput(ToolResult[DumpResult]):
    """dump-ir's result: the DumpResult (at most MAX_KERNELS kernels), and a read-artifact link for every stage."""

    dump_id: str | None = Field(None, description="cache entry; stage URIs are kernelpilot://dump/{dump_id}/...")
    kernels_total: int = 0
    links: list[KernelLinks] = Field(default_factory=list, description="per kernel of the report, in its order")

    @classmethod
    def from_result(cls, r: DumpResult) -> DumpIrOutput:
        dump_id = dump_id_of(r.out_dir)
        shown = r.kernels[:MAX_KERNELS]
        links = []
        for k in shown:
            uris = {s.name: dump_uri(dump_id, k.name, s.name) for s in k.stages} if dump_id else {}
            isa_stage = next((s.name for s in k.stages if s.path == k.final_isa), None)
            links.append(KernelLinks(name=k.name, final_isa_uri=uris.get(isa_stage), stage_uris=uris))
        amd = any(k.resources.vgpr_count is not None for k in r.kernels)
        first_isa = next((k.final_isa for k in r.kernels if k.final_isa), None)
        steps = []
        if amd and first_isa:
            steps.append(f"vgpr-pressure on {first_isa} for exact liveness, the peak and what to cut")
            steps.append(f"prefetch-data-load on {first_isa} to find exposed load latency in the hot loop")
        steps.append("read-artifact with a stage uri (offset/limit, or pattern) to inspect IR or ISA text")
        steps.append("after editing the kernel, dump-ir again and compare the resources")
        if len(r.kernels) > MAX_KERNELS:
            steps.insert(0, f"{len(r.kernels) - MAX_KERNELS} more kernels are in {r.out_dir}/result.json")
        return cls(
            summary=r.summary,
            next_steps=steps,
            report=r.model_copy(update={"kernels": shown}),
            dump_id=dump_id,
            kernels_total=len(r.kernels),
            links=links,
        )


class DoctorOutput(ToolResult[DoctorReport]):
    """doctor's report plus where this server looks for files."""

    project_dir: str
    allowed_roots: list[str]
    cache_dir: str


class VgprPressureOutput(ToolResult[VgprReports]):
    """vgpr-pressure's reports (at most MAX_KERNELS; per-instruction liveness is an artifact), and the diff when
    ``before`` was given."""

    reports_total: int = 0
    per_instruction_uri: str | None = Field(
        None, description="live VGPR/AGPR/SGPR after every instruction (TSV); page it with read-artifact"
    )
    diff: VgprDiff | None = Field(None, description="BEFORE → this input, when before was given")


class PrefetchOutput(ToolResult[PrefetchReport]):
    """prefetch-data-load's analysis (``report``), or its verification of a rewrite (``verify``, ``before`` given)."""

    verify: VerifyReport | None = None


class PredictOutput(ToolResult[PredictResult]):
    """predict's result: each launch's predicted time, its bound and figures, the band; with baseline the speedup."""


class CheckOutput(ToolResult[CheckReport]):
    """check's verdict: BEFORE and AFTER run on the same inputs on the CPU, every written buffer compared."""


class KernelTraceOutput(ToolResult[TraceReport]):
    """kernel-trace's report of a profiler output, or of a profile it ran."""


class ScheduleOutput(ToolResult[ScheduleReport]):
    """schedule's clusters of the hot loop, prologue and epilogue (``report``), with ATT measurements when given."""
