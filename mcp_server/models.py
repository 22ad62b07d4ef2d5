"""What the MCP tools return: the engine's models, plus next steps and artifact links instead of bulk text.

Every model begins with ``summary`` (the model reads the JSON of structured content, so the verdict comes first) and
carries ``next_steps``. Bulky artifacts are links: read them with the ``read-artifact`` tool or as resources.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from mcp_server.artifacts import dump_id_of, dump_uri
from tools.doctor import DoctorReport
from tools.models.check import CheckReport
from tools.models.dump import DumpResult, Resources
from tools.models.prefetch import PrefetchReport, VerifyReport
from tools.models.trace import TraceReport
from tools.models.vgpr import KernelError, VgprDiff, VgprReport

MAX_KERNELS = 8


class StageLink(BaseModel):
    name: str
    bytes: int
    uri: str | None = Field(None, description="read with read-artifact (offset/limit) or as a resource")


class KernelOut(BaseModel):
    name: str
    resources: Resources
    final_isa: str | None = Field(None, description="path of the final AMDGCN (.s) or SASS text")
    final_isa_uri: str | None = None
    binary: str | None = Field(None, description="path of the hsaco or cubin")
    stages: list[StageLink] = Field(description="every compiler stage, in compile order")


class DumpIrOutput(BaseModel):
    """dump-ir's result: resources per kernel, and a link for every stage."""

    summary: str
    next_steps: list[str] = Field(default_factory=list)
    status: Literal["done", "running"] = "done"
    job_id: str | None = Field(None, description="when status is running: call dump-ir again with this job_id")
    dump_id: str | None = Field(None, description="cache entry; stage URIs are kernelpilot://dump/{dump_id}/...")
    source: str | None = None
    arch: str | None = None
    frontend: str | None = None
    out_dir: str | None = None
    cache_hit: bool = False
    compile_seconds: float | None = None
    kernels_total: int = 0
    kernels: list[KernelOut] = Field(default_factory=list, description=f"at most {MAX_KERNELS}; see kernels_total")
    log: str | None = None

    @classmethod
    def from_result(cls, r: DumpResult) -> DumpIrOutput:
        dump_id = dump_id_of(r.out_dir)
        kernels = []
        for k in r.kernels[:MAX_KERNELS]:
            isa_stage = next((s.name for s in k.stages if s.path == k.final_isa), None)
            kernels.append(
                KernelOut(
                    name=k.name,
                    resources=k.resources,
                    final_isa=k.final_isa,
                    final_isa_uri=dump_uri(dump_id, k.name, isa_stage) if dump_id and isa_stage else None,
                    binary=k.binary,
                    stages=[
                        StageLink(
                            name=s.name, bytes=s.bytes, uri=dump_uri(dump_id, k.name, s.name) if dump_id else None
                        )
                        for s in k.stages
                    ],
                )
            )
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
            dump_id=dump_id,
            source=r.source,
            arch=r.arch,
            frontend=r.frontend,
            out_dir=r.out_dir,
            cache_hit=r.cache_hit,
            compile_seconds=r.compile_seconds,
            kernels_total=len(r.kernels),
            kernels=kernels,
            log=r.log,
        )


class DoctorOutput(DoctorReport):
    """doctor's report plus where this server looks for files."""

    next_steps: list[str] = Field(default_factory=list)
    project_dir: str
    allowed_roots: list[str]
    cache_dir: str


class VgprPressureOutput(BaseModel):
    """vgpr-pressure's reports (per-instruction liveness is an artifact), and the diff when ``before`` was given."""

    summary: str
    next_steps: list[str] = Field(default_factory=list)
    file: str
    reports_total: int
    reports: list[VgprReport] = Field(description=f"at most {MAX_KERNELS} kernels; see reports_total")
    errors: list[KernelError] = Field(default_factory=list)
    per_instruction_uri: str | None = Field(
        None, description="live VGPR/AGPR/SGPR after every instruction (TSV); page it with read-artifact"
    )
    diff: VgprDiff | None = Field(None, description="BEFORE → this input, when before was given")


class PrefetchOutput(BaseModel):
    """prefetch-data-load's analysis, or its verification of a rewrite (``before`` given)."""

    summary: str
    next_steps: list[str] = Field(default_factory=list)
    status: Literal["done", "running"] = "done"
    job_id: str | None = Field(None, description="when status is running: call again with this job_id")
    report: PrefetchReport | None = None
    verify: VerifyReport | None = None


class KernelTraceOutput(BaseModel):
    """kernel-trace's report of a profiler output, or of a profile it ran."""

    summary: str
    next_steps: list[str] = Field(default_factory=list)
    status: Literal["done", "running"] = "done"
    job_id: str | None = Field(None, description="when status is running: call again with this job_id")
    report: TraceReport | None = None


class CheckOutput(BaseModel):
    """check's verdict: BEFORE and AFTER run on the same inputs on the CPU, every written buffer compared."""

    summary: str
    next_steps: list[str] = Field(default_factory=list)
    status: Literal["done", "running"] = "done"
    job_id: str | None = Field(None, description="when status is running: call again with this job_id")
    report: CheckReport | None = None
