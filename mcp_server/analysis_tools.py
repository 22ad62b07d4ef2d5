"""The ISA analyses: vgpr-pressure (read-only) and prefetch-data-load (compiles kernel files in a child)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from pydantic import Field

from mcp_server import artifacts, jobs
from mcp_server.app import (
    ANALYSIS,
    RUNS_CODE,
    Arch,
    Call,
    Device,
    JobId,
    KernelName,
    Timeout,
    WaitSeconds,
    agent_errors,
    confined,
    mcp,
    read_input,
    run_job,
    still_running,
)
from mcp_server.models import MAX_KERNELS, PrefetchOutput, VgprPressureOutput
from mcp_server.paths import project_dir
from tools.errors import InputError
from tools.frontends.registry import FrontendName
from tools.models.prefetch import PrefetchReport, VerifyReport
from tools.toolchain import cache_root

# ---------------------------------------------------------------------------------------------------- vgpr-pressure


def _compiled_only(*paths: str | None) -> None:
    """This tool is read-only: a kernel source would be compiled (its code run), which is dump-ir's job here."""
    from tools.errors import InputError
    from tools.vgpr_pressure import SOURCE_SUFFIXES

    for p in paths:
        if p and Path(p).suffix in SOURCE_SUFFIXES:
            raise InputError(
                f"{Path(p).name} is a kernel source; the vgpr-pressure tool reads compiled output (it runs no code)",
                hint="call dump-ir on the kernel file, then vgpr-pressure with its out_dir (the CLI compiles "
                "kernel files itself: kernelpilot vgpr-pressure kernel.py)",
            )


@mcp.tool(name="vgpr-pressure", title="VGPR pressure and liveness", annotations=ANALYSIS)
def vgpr_pressure(
    isa: Annotated[
        str,
        Field(description="AMDGCN .s file, NVIDIA cubin, or a dump directory (e.g. dump-ir's final_isa or out_dir)"),
    ],
    kernel: KernelName = None,
    arch: Annotated[Arch | None, Field(description="override the target read from the ISA, e.g. gfx942")] = None,
    before: Annotated[
        str | None, Field(description="the ISA before your change: also report the diff and whether it regressed")
    ] = None,
    top_k: Annotated[int, Field(description="entries per list", ge=1, le=32)] = 8,
) -> VgprPressureOutput:
    """Register use, exact per-instruction liveness, where live VGPRs peak (and what values are live there),
    spills and their cause, and ranked changes with estimated VGPR savings. With ``before``: the before/after diff
    (a regression is more spills or scratch, lower occupancy, or a higher live-VGPR peak)."""
    from tools.vgpr_pressure import analyze_path, attach_baseline

    with agent_errors(vgpr_pressure):
        path = read_input(isa, "ISA")
        _compiled_only(path, before)
        reports = confined(analyze_path, path=path, kernel=kernel, arch=arch, per_instruction=True, top_k=top_k)
        rows = ["kernel\tindex\tline\tlive_vgprs\tlive_agprs\tlive_sgprs\tinstruction\tsource"]
        for rep in reports.reports:
            for i in rep.per_instruction or []:
                rows.append(
                    f"{rep.kernel}\t{i.index}\t{i.line}\t{i.live_vgprs}\t{i.live_agprs}\t{i.live_sgprs}\t"
                    f"{i.text}\t{i.source or ''}"
                )
        run_id = artifacts.run_id_for("vgpr", path, str(Path(path).stat().st_mtime_ns), kernel or "", arch or "")
        uri = artifacts.save(run_id, "liveness.tsv", "\n".join(rows) + "\n") if len(rows) > 1 else None
        diff = None
        if before:  # each report carries its KernelDiff in `baseline` too
            old = confined(analyze_path, path=read_input(before, "BEFORE ISA"), kernel=kernel, arch=arch, top_k=top_k)
            diff = attach_baseline(reports, old)
        shown = [r.model_copy(update={"per_instruction": None}) for r in reports.reports[:MAX_KERNELS]]
        steps = []
        if diff is not None:
            steps.append("REGRESSION: undo or rework the change" if diff.regression else "no regression vs before")
        for r in shown[:1]:
            steps += [f"{s.title}: {s.action}" for s in r.suggestions[:3]]
        if uri:
            steps.append(f"read-artifact uri={uri} pattern='<instruction or line>' for liveness at any instruction")
        steps.append("after a change: dump-ir again, then vgpr-pressure with before=<old ISA>")
        summary = (diff.summary + " | " if diff else "") + reports.summary
        return VgprPressureOutput(
            summary=summary,
            next_steps=steps,
            report=reports.model_copy(update={"reports": shown}),
            reports_total=len(reports.reports),
            per_instruction_uri=uri,
            diff=diff,
        )


# ---------------------------------------------------------------------------------------------------- prefetch


@mcp.tool(name="prefetch-data-load", title="Prefetch data loads", annotations=RUNS_CODE)
async def prefetch_data_load(
    ctx: Context,
    source: Annotated[
        str | None,
        Field(
            description="kernel file (.py FlyDSL/Triton, .cu, .hip: compiled first), AMDGCN .s, SASS .sass, or a "
            "dump directory. With before: the AFTER version."
        ),
    ] = None,
    arch: Annotated[Arch | None, Field(description="target when compiling (default gfx942; sm_90 for .cu)")] = None,
    kernel: KernelName = None,
    before: Annotated[
        str | None, Field(description="verify mode: the version before your prefetch rewrite (source is AFTER)")
    ] = None,
    allow_occupancy_drop: Annotated[
        int | None,
        Field(
            description="verify: your budget: waves/SIMD (warps/SM) AFTER may lose; more fails. Unset: an occupancy "
            "drop is a warning that explains the time, never a failure on its own",
            ge=0,
        ),
    ] = None,
    device: Annotated[
        Device | None,
        Field(description="verify without a GPU run: the device model of the predicted speed (e.g. mi300x, h100)"),
    ] = None,
    trace: Annotated[
        str | None,
        Field(
            description="verify: a kernel trace of the launch (rocprofv3 kernel_trace.csv, ncu details CSV); its "
            "grid decides whether an occupancy drop is felt"
        ),
    ] = None,
    trace_kernel: Annotated[
        str | None, Field(description="verify with trace: the kernel's name in the trace (default: AFTER's kernel)")
    ] = None,
    baseline: Annotated[
        str | None,
        Field(
            description="analysis mode: also report occupancy, register, copy and latency changes against this "
            "version (a file, or a git ref such as HEAD:kernel.py; before= accepts git refs too)"
        ),
    ] = None,
    frontend: Annotated[
        FrontendName | None,
        Field(description="kernel files: override language detection"),
    ] = None,
    call: Call = None,
    timeout: Timeout = 600,
    wait_seconds: WaitSeconds = 45,
    job_id: JobId = None,
) -> PrefetchOutput:
    """Find loads whose latency is exposed in the hot loop (issued and waited on in the same iteration), the
    register headroom a prefetch would need, and, with ``before``, verify that a rewrite really prefetches
    (prologue loads, loads feeding the next iteration, longer load-to-wait distance, no new spills)."""

    def start():
        if not source:
            raise InputError("give source (kernel file or ISA), or job_id", hint="e.g. source='kernel.s'")
        after = read_input(source, "input")
        if before:
            kwargs = {"before": _version(before, "BEFORE input"), "after": after, "arch": arch, "kernel": kernel}
            kwargs |= {"allow_occupancy_drop": allow_occupancy_drop, "frontend": frontend, "device": device}
            if trace:
                kwargs |= {"trace": read_input(trace, "trace"), "trace_kernel": trace_kernel}
            if call:
                kwargs["call"] = call
            return "prefetch-verify", kwargs, timeout, f"verifying prefetch in {Path(after).name}"
        kwargs = {"source_or_isa": after, "arch": arch, "kernel": kernel, "frontend": frontend}
        if baseline:
            kwargs["baseline"] = _version(baseline, "baseline input")
        if call:
            kwargs["call"] = call
        return "prefetch-data-load", kwargs, timeout, f"prefetch analysis of {Path(after).name}"

    from tools.prefetch import SOURCE_SUFFIXES, analyze_prefetch, verify_prefetch

    with agent_errors(prefetch_data_load):
        inputs = [p for p in (source, before) if p]
        compiles = any(Path(p).suffix.lower() in SOURCE_SUFFIXES for p in inputs)
        if job_id or compiles:  # compiling runs user code: in a killable child, with progress
            got = await run_job(ctx, "prefetch-data-load", job_id, wait_seconds, start)
            if isinstance(got, jobs.Job):
                return still_running(got, "prefetch-data-load", PrefetchOutput)
            return _prefetch_output(got, verify=bool(before))
        call, kwargs, _, _ = start()
        fn = verify_prefetch if call == "prefetch-verify" else analyze_prefetch
        result = await anyio.to_thread.run_sync(lambda: confined(fn, **kwargs))
        return _prefetch_output(result.model_dump(mode="json"), verify=bool(before))


def _version(path: str, what: str) -> str:
    """An input path, or a git ref (``HEAD:kernel.py``) read with `git show` into the kernelpilot cache."""
    from tools.prefetch import resolve_source

    dest = cache_root() / "gitref" / uuid.uuid4().hex
    ref = resolve_source(path, dest, cwd=project_dir())
    return str(ref) if str(ref) != path else read_input(path, what)


def _prefetch_output(got: dict, verify: bool) -> PrefetchOutput:
    """The tool's answer to a prefetch result: a verify report (``verify``) or an analysis, with next steps."""
    if verify:
        v = _within_budget(VerifyReport.model_validate(got))
        steps = (
            ["keep the rewrite; measure it with kernel-trace"]
            if v.ok
            # what failed (an outcome), then the structural warnings that may explain it
            else [f"fix: {c.name}: {c.detail}" for c in v.checks if not c.ok]
            + [f"look at: {c.name}: {c.detail}" for c in v.checks if c.ok and c.severity == "warning"]
        )
        return PrefetchOutput(summary=v.summary, next_steps=steps, verify=v)
    r = PrefetchReport.model_validate(got)
    hot = next((lp for lp in r.loops if lp.is_hot), None)
    steps = []
    if hot and hot.verdict == "undetermined":
        steps.append(f"undetermined: {hot.reason}; check the loads marked undetermined in the ISA by hand")
    if r.baseline and r.baseline.regressions:
        steps.append(f"vs {r.baseline.baseline}: " + "; ".join(r.baseline.regressions))
    if hot and hot.verdict == "exposed-latency":
        steps.append("rewrite the hot loop to load iteration i+1 while computing i (see the prefetch-data-load skill)")
        steps.append("then call prefetch-data-load with before=<old version> to verify")
    if r.headroom and r.headroom.verdict != "fits":
        steps.append(f"registers: {r.headroom.note}")
    return PrefetchOutput(summary=r.summary, next_steps=steps, report=r)


# per loop of each version in a verify result: the checks and counts cover every load and copy; the lists are examples
VERIFY_LISTED = 8


def _within_budget(v: VerifyReport) -> VerifyReport:
    """Both versions' loops list at most VERIFY_LISTED loads and copies (each report lists up to 32 and 16: two of
    them overran the result budget); the totals, checks and summary stay whole."""
    for rep in (v.before, v.after):
        for lp in rep.loops:
            cut = max(0, len(lp.loads) - VERIFY_LISTED) + max(0, len(lp.copies) - VERIFY_LISTED)
            if cut:
                lp.loads, lp.copies = lp.loads[:VERIFY_LISTED], lp.copies[:VERIFY_LISTED]
                rep.notes.append(f"loop {lp.header}: {cut} listed loads/copies left out here (their counts are whole)")
    return v
