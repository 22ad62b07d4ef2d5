"""The kernelpilot MCP server (``kernelpilot-mcp``): dump-ir, vgpr-pressure, prefetch-data-load, kernel-trace, doctor.

Each tool is a thin wrapper over a function in ``tools/`` that returns a pydantic model; the return type is the
output schema. Expected failures (KernelpilotError) become ToolError, whose text is the only error text MCP 2.x
shows the model. Compiles run in a child process (``jobs.py``) so that cancellation kills the whole tree.
Heavy imports (flydsl, triton, torch) never happen here: the engine imports them inside the child that compiles.
"""

from __future__ import annotations

import argparse
import hmac
import os
import secrets
import signal
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Literal

import anyio
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.prompts import Prompt
from mcp.types import ToolAnnotations
from pydantic import Field

from mcp_server import artifacts, jobs
from mcp_server.artifacts import ArtifactPage
from mcp_server.models import (
    MAX_KERNELS,
    CheckOutput,
    DoctorOutput,
    DumpIrOutput,
    KernelTraceOutput,
    PrefetchOutput,
    VgprPressureOutput,
)
from mcp_server.paths import allowed_roots, confine, project_dir
from mcp_server.skills import split_frontmatter
from tools import __version__
from tools.errors import InputError, KernelpilotError, bounded, from_os_error
from tools.isa.arch import AMD_ARCHS, NVIDIA_ARCHS
from tools.models.check import CheckReport
from tools.models.dump import DumpResult
from tools.models.prefetch import PrefetchReport, VerifyReport
from tools.models.trace import TraceReport
from tools.paths import confined_to
from tools.toolchain import cache_root

Arch = Literal[tuple([*AMD_ARCHS, *NVIDIA_ARCHS])]  # type: ignore[valid-type]
SKILLS_DIR = Path(__file__).resolve().parents[1] / "skills"
TOKEN_ENV = "KERNELPILOT_MCP_TOKEN"
ALLOW_COMMANDS_ENV = "KERNELPILOT_ALLOW_COMMANDS"

# Analyses read files and write only their cache: safe to run without asking, and again with the same result.
ANALYSIS = ToolAnnotations(read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False)
# Tools that execute the user's code or commands (compiles import the kernel file; profiles run the program).
RUNS_CODE = ToolAnnotations(read_only_hint=False, idempotent_hint=True, destructive_hint=False, open_world_hint=False)
# Profiling runs a program (each run a new output) and may reach an ssh host or a container.
PROFILES = ToolAnnotations(read_only_hint=False, idempotent_hint=False, destructive_hint=False, open_world_hint=True)

mcp = MCPServer(
    "kernelpilot",
    version=__version__,
    instructions=(
        "GPU kernel optimization tools. Paths are absolute or relative to the project directory. Results are "
        "compact JSON led by 'summary' and 'next_steps'; IR, ISA and traces are artifacts: page them with "
        "read-artifact (offset/limit, or a regex pattern). A long compile or profile returns status 'running' with "
        "a job_id after wait_seconds: call the same tool again with that job_id. Playbooks: the prompts "
        "optimize-kernel, dump-ir, vgpr-pressure, prefetch-data-load, kernel-trace, check."
    ),
)


@contextmanager
def agent_errors() -> Iterator[None]:
    """KernelpilotError (message, details, hint) → ToolError, the only error text MCP 2.x shows the model."""
    try:
        yield
    except KernelpilotError as exc:
        raise ToolError(bounded(exc.render())) from exc
    except ToolError:
        raise
    except OSError as exc:
        raise ToolError(bounded(from_os_error(exc).render() if exc.filename else internal_error(exc))) from exc
    except Exception as exc:  # never a bare "Error executing tool": the agent gets the reason, bounded
        raise ToolError(bounded(internal_error(exc))) from exc


def internal_error(exc: BaseException) -> str:
    """The text for an exception kernelpilot did not expect: what it was, and that it is ours to fix."""
    return (
        f"error: kernelpilot internal error: {type(exc).__name__}: {exc}\n"
        "hint: this is a kernelpilot bug, not your input's fault; the CLI (kernelpilot <tool> …) shows the traceback"
    )


WaitSeconds = Annotated[
    float,
    Field(
        description="return status 'running' and a job_id if still working after this long (stay under your "
        "client's tool timeout; 60 s in several clients)",
        ge=0,
    ),
]
JobId = Annotated[str | None, Field(description="resume waiting for an earlier call's job (other inputs ignored)")]
Timeout = Annotated[float, Field(description="seconds before the work is killed", gt=0, le=7200)]
KernelName = Annotated[str | None, Field(description="kernel name or unique substring (default: every / the hottest)")]


async def run_job(ctx: Context, tool: str, job_id: str | None, wait_seconds: float, start) -> jobs.Job | dict:
    """Resume ``job_id``, or start ``start()`` → (call, kwargs, timeout, label); the result dict, or the running Job."""
    if job_id:
        job = jobs.get(job_id, tool)
    else:
        call, kwargs, timeout, label = start()
        job = jobs.start(tool, call, kwargs, timeout=timeout, label=label)
    if not await jobs.wait(job, ctx, wait_seconds):
        return job
    return jobs.result(job)


def still_running(job: jobs.Job, tool: str) -> dict:
    return {
        "summary": f"{job.label}: still running after {job.elapsed:.0f}s (job {job.id})",
        "next_steps": [f"call {tool} with job_id='{job.id}' to keep waiting"],
        "status": "running",
        "job_id": job.id,
    }


def read_input(path: str, what: str) -> str:
    """An analysis input: under the allowed roots or the kernelpilot cache (where dump-ir writes ISA)."""
    return str(confine(path, what=what, artifacts=True))


def confined(fn, /, **kwargs):
    """``fn(**kwargs)`` with every file the engine opens (directory scans, siblings) checked against the roots."""
    with confined_to(allowed_roots(artifacts=True)):
        return fn(**kwargs)


def require_command_mode(tool: str) -> None:
    """Running an arbitrary program is opt-in for the server's operator, not the caller's choice."""
    if os.environ.get(ALLOW_COMMANDS_ENV) != "1":
        raise InputError(
            f"{tool} command mode is off on this server: it would run any program as the server's user",
            hint=f"the person running the server can set {ALLOW_COMMANDS_ENV}=1 in its environment and restart it; "
            + ("or use file mode: source='kernel.py'" if tool == "dump-ir" else "or read an existing trace: trace=..."),
        )


# ---------------------------------------------------------------------------------------------------- dump-ir


@mcp.tool(name="dump-ir", title="Dump IR, ISA and resources", annotations=RUNS_CODE)
async def dump_ir(
    ctx: Context,
    source: Annotated[
        str | None,
        Field(
            description="kernel file: .py (FlyDSL or Triton, defining kernelpilot_entry()), .cu or .hip; absolute "
            "or relative to the project directory. Leave empty with command or job_id."
        ),
    ] = None,
    arch: Annotated[Arch, Field(description="target architecture")] = "gfx942",
    frontend: Annotated[
        Literal["flydsl", "triton", "cuda", "hip"] | None, Field(description="override language detection")
    ] = None,
    command: Annotated[
        list[str] | None,
        Field(
            description="command mode: an argument list (no shell) run with the FlyDSL/Triton dump environment, "
            "e.g. ['python', 'bench.py']; every kernel it compiles is collected"
        ),
    ] = None,
    cwd: Annotated[str | None, Field(description="command mode: working directory (default: project)")] = None,
    use_cache: Annotated[bool, Field(description="reuse an identical earlier dump")] = True,
    debug_info: Annotated[bool, Field(description="FlyDSL: keep .loc source lines in the ISA")] = True,
    flags: Annotated[list[str] | None, Field(description="extra nvcc/hipcc flags")] = None,
    timeout: Timeout = 600,
    wait_seconds: WaitSeconds = 45,
    job_id: JobId = None,
) -> DumpIrOutput:
    """Compile a GPU kernel for one architecture and keep every IR stage, the final ISA and the binary.

    Returns per-kernel resources (VGPR/AGPR/SGPR counts, spills, LDS, scratch, occupancy) read from the final ISA,
    and a URI per stage (ttir, ttgir, llir, amdgcn, final_isa, ptx, sass, ...) to read with read-artifact. Results
    are cached by content. Sends progress while compiling; cancelling the call kills the compiler.
    """

    def start():
        if command:
            require_command_mode("dump-ir")
            run_dir = confine(cwd or str(project_dir()), what="cwd")
            kwargs = {"argv": command, "arch": arch, "frontend": frontend or "auto", "debug_info": debug_info}
            kwargs |= {"timeout": timeout, "cwd": str(run_dir)}
            return "dump-ir-command", kwargs, timeout + 30, f"dump-ir {command[0]} for {arch}"
        if not source:
            raise InputError("give source (a kernel file), command, or job_id", hint="e.g. source='k.py'")
        path = confine(source, what="kernel file")
        kwargs = {"source": str(path), "arch": arch, "frontend": frontend, "use_cache": use_cache}
        kwargs |= {"debug_info": debug_info, "flags": flags or [], "timeout": timeout}
        return "dump-ir", kwargs, timeout + 30, f"compiling {path.name} for {arch}"

    with agent_errors():
        got = await run_job(ctx, "dump-ir", job_id, wait_seconds, start)
        if isinstance(got, jobs.Job):
            return DumpIrOutput(**still_running(got, "dump-ir"))
        return DumpIrOutput.from_result(DumpResult.model_validate(got))


# ---------------------------------------------------------------------------------------------------- check


@mcp.tool(name="check", title="Check a rewrite computes the same (CPU)", annotations=RUNS_CODE)
async def check(
    ctx: Context,
    before: Annotated[
        str | None,
        Field(description="the kernel file as it was (FlyDSL or Triton), or a git revision: HEAD:./kernel.py"),
    ] = None,
    after: Annotated[str | None, Field(description="the rewritten kernel file")] = None,
    engine: Annotated[
        Literal["auto", "llvm", "interpreter"],
        Field(description="llvm: run the AMDGPU LLVM IR lane by lane (FlyDSL); interpreter: Triton's interpreter"),
    ] = "auto",
    arch: Annotated[Literal["gfx90a", "gfx942", "gfx950"], Field(description="AMD target (llvm engine)")] = "gfx942",
    seeds: Annotated[list[int] | None, Field(description="input seeds (default [0])")] = None,
    shapes: Annotated[
        list[dict[str, int | float | str]] | None,
        Field(description="keyword arguments for kernelpilot_inputs(seed, **shape) / kernelpilot_entry(**shape)"),
    ] = None,
    atol: Annotated[float, Field(description="absolute tolerance (0: bit for bit)", ge=0)] = 0.0,
    rtol: Annotated[float, Field(description="relative tolerance (0: bit for bit)", ge=0)] = 0.0,
    timeout: Timeout = 600,
    wait_seconds: WaitSeconds = 45,
    job_id: JobId = None,
) -> CheckOutput:
    """Run BEFORE and AFTER on the same generated inputs on the CPU (no GPU needed) and compare every buffer written.

    Verdict same | different | error | undetermined, with the first mismatching elements, out-of-bounds accesses
    (lane, offset, source line) and reads of uninitialised LDS. Runs the kernel files' code in a child process.
    """

    def start():
        if not before or not after:
            raise InputError("give before and after (two kernel files), or job_id", hint="e.g. before='k_old.py'")
        a = confine(after, what="after")
        try:
            b = str(confine(before, what="before"))
        except InputError:
            if ":" not in before:
                raise
            b = before  # a git revision (HEAD:./kernel.py), read from AFTER's (confined) repository
        kwargs = {"before": b, "after": str(a), "engine": engine, "arch": arch, "seeds": seeds or [0]}
        kwargs |= {"shapes": shapes or [{}], "atol": atol, "rtol": rtol, "timeout": timeout}
        return "check", kwargs, 2 * timeout + 60, f"check {Path(b).name} → {a.name}"

    with agent_errors():
        got = await run_job(ctx, "check", job_id, wait_seconds, start)
        if isinstance(got, jobs.Job):
            return CheckOutput(**still_running(got, "check"))
        report = CheckReport.model_validate(got)
        steps = {
            "same": ["outputs agree on these inputs; add seeds/shapes that reach edge tiles before trusting it"],
            "different": ["read the first mismatch / out-of-bounds line and fix AFTER; rerun check"],
        }.get(report.verdict, [report.reason])
        return CheckOutput(summary=report.summary, next_steps=steps, report=report)


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
    arch: Annotated[str | None, Field(description="override the target read from the ISA, e.g. gfx942")] = None,
    before: Annotated[
        str | None, Field(description="the ISA before your change: also report the diff and whether it regressed")
    ] = None,
    top_k: Annotated[int, Field(description="entries per list", ge=1, le=32)] = 8,
) -> VgprPressureOutput:
    """Register use, exact per-instruction liveness, where live VGPRs peak (and what values are live there),
    spills and their cause, and ranked changes with estimated VGPR savings. With ``before``: the before/after diff
    (a regression is more spills or scratch, lower occupancy, or a higher live-VGPR peak)."""
    from tools.vgpr_pressure import analyze_path, attach_baseline

    with agent_errors():
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
            file=reports.file,
            reports_total=len(reports.reports),
            reports=shown,
            errors=reports.errors,
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
    arch: Annotated[str | None, Field(description="target when compiling (default gfx942; sm_90 for .cu)")] = None,
    kernel: KernelName = None,
    before: Annotated[
        str | None, Field(description="verify mode: the version before your prefetch rewrite (source is AFTER)")
    ] = None,
    allow_occupancy_drop: Annotated[int, Field(description="verify: waves/warps AFTER may lose", ge=0)] = 0,
    baseline: Annotated[
        str | None,
        Field(
            description="analysis mode: also report occupancy, register, copy and latency changes against this "
            "version (a file, or a git ref such as HEAD:kernel.py; before= accepts git refs too)"
        ),
    ] = None,
    frontend: Annotated[
        Literal["flydsl", "triton", "cuda", "hip", "mojo"] | None,
        Field(description="kernel files: override language detection"),
    ] = None,
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
        from tools.prefetch import resolve_source

        def version(path: str, what: str) -> str:  # a git ref is read with `git show` into the kernelpilot cache
            dest = cache_root() / "gitref" / uuid.uuid4().hex
            ref = resolve_source(path, dest, cwd=project_dir())
            return str(ref) if str(ref) != path else read_input(path, what)

        after = read_input(source, "input")
        if before:
            kwargs = {"before": version(before, "BEFORE input"), "after": after, "arch": arch, "kernel": kernel}
            kwargs |= {"allow_occupancy_drop": allow_occupancy_drop, "frontend": frontend}
            return "prefetch-verify", kwargs, timeout, f"verifying prefetch in {Path(after).name}"
        kwargs = {"source_or_isa": after, "arch": arch, "kernel": kernel, "frontend": frontend}
        if baseline:
            kwargs["baseline"] = version(baseline, "baseline input")
        return "prefetch-data-load", kwargs, timeout, f"prefetch analysis of {Path(after).name}"

    def output(got: dict) -> PrefetchOutput:
        if before:
            v = VerifyReport.model_validate(got)
            steps = (
                ["keep the rewrite; measure it with kernel-trace"]
                if v.ok
                else [f"fix: {c.name}: {c.detail}" for c in v.checks if not c.ok]
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
            steps.append(
                "rewrite the hot loop to load iteration i+1 while computing i (see the prefetch-data-load skill)"
            )
            steps.append("then call prefetch-data-load with before=<old version> to verify")
        if r.headroom and r.headroom.verdict != "fits":
            steps.append(f"registers: {r.headroom.note}")
        return PrefetchOutput(summary=r.summary, next_steps=steps, report=r)

    from tools.prefetch import SOURCE_SUFFIXES, analyze_prefetch, verify_prefetch

    with agent_errors():
        inputs = [p for p in (source, before) if p]
        compiles = any(Path(p).suffix.lower() in SOURCE_SUFFIXES for p in inputs)
        if job_id or compiles:  # compiling runs user code: in a killable child, with progress
            got = await run_job(ctx, "prefetch-data-load", job_id, wait_seconds, start)
            if isinstance(got, jobs.Job):
                return PrefetchOutput(**still_running(got, "prefetch-data-load"))
            return output(got)
        call, kwargs, _, _ = start()
        fn = verify_prefetch if call == "prefetch-verify" else analyze_prefetch
        result = await anyio.to_thread.run_sync(lambda: confined(fn, **kwargs))
        return output(result.model_dump(mode="json"))


# ---------------------------------------------------------------------------------------------------- kernel-trace


@mcp.tool(name="kernel-trace", title="Kernel trace (read or profile)", annotations=PROFILES)
async def kernel_trace(
    ctx: Context,
    trace: Annotated[
        str | None,
        Field(
            description="a profiler output to read: rocprofv3 CSV/JSON/rocpd .db, an ATT ui_output dir or stats CSV, "
            "ncu CSV, or a directory holding them"
        ),
    ] = None,
    command: Annotated[
        list[str] | None,
        Field(description="profile this argument list (no shell) with rocprofv3 or ncu instead of reading a trace"),
    ] = None,
    top_k: Annotated[int, Field(description="kernels / hotspots / loops to list", ge=1, le=50)] = 10,
    kernel_regex: Annotated[str | None, Field(description="only kernels whose name matches")] = None,
    isa: Annotated[str | None, Field(description="AMDGCN .s of the kernel: check the trace's register counts")] = None,
    compare: Annotated[str | None, Field(description="a trace taken BEFORE a change: per-kernel speedups")] = None,
    executor: Annotated[
        str, Field(description="where command runs: local | ssh:HOST | docker:CONTAINER | ssh+docker:HOST:CONTAINER")
    ] = "local",
    profiler: Annotated[Literal["rocprofv3", "ncu"] | None, Field(description="default: whichever exists")] = None,
    att: Annotated[bool, Field(description="AMD: also take an ATT thread trace (instruction hotspots)")] = False,
    launch_count: Annotated[int, Field(description="ncu: kernel launches to profile", ge=1)] = 1,
    timeout: Timeout = 600,
    wait_seconds: WaitSeconds = 45,
    job_id: JobId = None,
) -> KernelTraceOutput:
    """Top kernels by GPU time, instruction hotspots, stall breakdown, hot loops and register warnings, from an
    existing profiler output (fast, read-only) or from profiling a command (runs it; long: progress, job_id)."""

    def start():
        if not command:
            raise InputError(
                "give trace (a profiler output), command, or job_id", hint="e.g. trace='out/kernel_trace.csv'"
            )
        require_command_mode("kernel-trace")
        out_dir = project_dir() / "kernelpilot-out" / f"trace-{uuid.uuid4().hex[:8]}"
        kwargs = {"command": command, "executor": executor, "profiler": profiler, "att_trace": att}
        kwargs |= {"kernel_regex": kernel_regex, "launch_count": launch_count, "top_k": top_k, "timeout": timeout}
        kwargs["output_dir"] = str(out_dir)
        return "kernel-trace-run", kwargs, timeout + 120, f"profiling {command[0]}"

    def output(report: TraceReport) -> KernelTraceOutput:
        steps = list(report.warnings[:3])
        if report.top_kernels:
            steps.append("dump-ir / vgpr-pressure on the top kernel's source to see why it is slow")
        steps.append(f"read-artifact path={report.path} to page the raw profiler output")
        steps.append("after a change: profile again and pass compare=<this trace> for speedups")
        return KernelTraceOutput(summary=report.summary, next_steps=steps, report=report)

    with agent_errors():
        if job_id or command:
            got = await run_job(ctx, "kernel-trace", job_id, wait_seconds, start)
            if isinstance(got, jobs.Job):
                return KernelTraceOutput(**still_running(got, "kernel-trace"))
            return output(TraceReport.model_validate(got))
        if not trace:
            start()  # raises the "give trace, command or job_id" error
        from tools.kernel_trace import summarize_trace

        kwargs = {"path": read_input(trace, "trace"), "top_k": top_k, "kernel_regex": kernel_regex}
        kwargs["isa"] = read_input(isa, "ISA") if isa else None
        kwargs["compare"] = read_input(compare, "BEFORE trace") if compare else None
        return output(await anyio.to_thread.run_sync(lambda: confined(summarize_trace, **kwargs)))


# ---------------------------------------------------------------------------------------------------- artifacts


@mcp.tool(name="read-artifact", title="Read an artifact page", annotations=ANALYSIS)
def read_artifact(
    uri: Annotated[str | None, Field(description="a kernelpilot:// URI from a tool result")] = None,
    path: Annotated[str | None, Field(description="or a file path under the project or the kernelpilot cache")] = None,
    offset: Annotated[int, Field(description="first line (0-based)", ge=0)] = 0,
    limit: Annotated[int, Field(description="lines per page", ge=1, le=5000)] = artifacts.PAGE_LINES,
    pattern: Annotated[
        str | None, Field(description="regex: return only matching lines (prefixed by line number)")
    ] = None,
) -> ArtifactPage:
    """Read a page of a large text artifact (IR stage, ISA, liveness table, trace) by lines, or grep it.

    Pages are at most ~24k characters; next_offset says where the next page starts.
    """
    with agent_errors():
        if not uri and not path:
            raise InputError("give uri or path", hint="use a uri from a dump-ir or analysis result")
        target = artifacts.resolve_uri(uri) if uri else Path(path)
        return artifacts.read_page(target, offset=offset, limit=limit, pattern=pattern, uri=uri)


@contextmanager
def resource_errors() -> Iterator[None]:
    """KernelpilotError → ResourceError, whose text reaches the client (any other exception's does not)."""
    try:
        yield
    except KernelpilotError as exc:
        raise ResourceError(bounded(exc.render())) from exc
    except ResourceError:
        raise
    except Exception as exc:
        raise ResourceError(bounded(internal_error(exc))) from exc


def _resource_text(target: Path, uri: str, offset: int, limit: int) -> str:
    """A page of ``target``; when more follows, a last line says which URI reads the next page."""
    page = artifacts.read_page(target, offset=offset, limit=limit)
    if page.next_offset is None:
        return page.text
    return page.text + (
        f"\n[kernelpilot: lines {page.offset}-{page.next_offset - 1} of {page.total_lines}; "
        f"next page: {uri}?offset={page.next_offset}&limit={limit}]"
    )


@mcp.resource(artifacts.DUMP_URI + "{?offset,limit}", name="dump-stage", mime_type="text/plain")
def dump_stage(dump_id: str, kernel: str, stage: str, offset: int = 0, limit: int = 2000) -> str:
    """One dump-ir stage (IR or ISA text) of one kernel, paged by lines."""
    with resource_errors():
        target = artifacts.resolve_dump(dump_id, kernel, stage)
        return _resource_text(target, artifacts.dump_uri(dump_id, kernel, stage), offset, limit)


@mcp.resource(artifacts.ARTIFACT_URI + "{?offset,limit}", name="analysis-artifact", mime_type="text/plain")
def analysis_artifact(run_id: str, name: str, offset: int = 0, limit: int = 2000) -> str:
    """A file an analysis wrote (per-instruction liveness, full trace tables), paged by lines."""
    uri = artifacts.ARTIFACT_URI.format(run_id=run_id, name=name)
    with resource_errors():
        return _resource_text(artifacts.resolve_uri(uri), uri, offset, limit)


# ---------------------------------------------------------------------------------------------------- doctor


@mcp.tool(name="doctor", title="Check compilers and profilers", annotations=ANALYSIS)
def doctor() -> DoctorOutput:
    """Which compilers, linkers and profilers this machine has, what each enables, and where the server looks."""
    from tools.doctor import doctor as run_doctor

    report = run_doctor()
    missing = [t for t in report.tools if not t.found]
    steps = [f"install {t.name} ({t.detail}) to enable {t.enables}" for t in missing]
    steps.append(f"to read files outside {project_dir()}, add their directory to KERNELPILOT_ALLOWED_ROOTS")
    return DoctorOutput(
        **report.model_dump(),
        next_steps=steps,
        project_dir=str(project_dir()),
        allowed_roots=[str(r) for r in allowed_roots()],
        cache_dir=str(cache_root()),
    )


# ---------------------------------------------------------------------------------------------------- prompts


def _skill_prompt(skill_md: Path, name: str, description: str) -> Prompt:
    def playbook(
        target: Annotated[str, Field(description="kernel file, ISA file, trace, or command to work on")],
        arch: Annotated[str, Field(description="target architecture, e.g. gfx942")] = "",
    ) -> str:
        _, body = split_frontmatter(skill_md.read_text())
        on = f" for {arch}" if arch else ""
        return f"Follow the kernelpilot '{name}' playbook below on {target}{on}.\n\n{body.strip()}\n"

    return Prompt.from_function(playbook, name=name, title=name, description=description)


def _register_prompts() -> None:
    """One MCP prompt per skill, so hosts without Agent Skills still get the playbooks (as slash commands)."""
    for skill_md in sorted(SKILLS_DIR.glob("*/SKILL.md")):
        meta, _ = split_frontmatter(skill_md.read_text())
        if isinstance(meta, dict) and meta.get("name") and meta.get("description"):
            mcp.add_prompt(_skill_prompt(skill_md, str(meta["name"]), str(meta["description"])))


_register_prompts()


# ---------------------------------------------------------------------------------------------------- transports


class BearerTokenMiddleware:
    """Rejects HTTP requests without exactly one ``Authorization: Bearer <token>`` (constant-time compare)."""

    def __init__(self, app, token: str) -> None:
        if not token:
            raise ValueError("an empty token protects nothing")
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            given = [v for k, v in scope.get("headers") or [] if k.lower() == b"authorization"]
            # two Authorization headers are ambiguous (proxies disagree on which wins): refuse, never pick one
            if len(given) != 1 or not hmac.compare_digest(given[0], self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send(
                    {"type": "http.response.body", "body": f"missing or wrong bearer token ({TOKEN_ENV})".encode()}
                )
                return
        await self.app(scope, receive, send)


def http_app(host: str, token: str | None):
    """The streamable-HTTP ASGI app (path /mcp), always behind the bearer token: on a shared host any local user
    can reach a loopback port, and the tools run code."""
    if not token:
        raise SystemExit(
            f"kernelpilot-mcp: refusing to listen on {host} without a token; set {TOKEN_ENV} (clients send "
            "'Authorization: Bearer <token>')"
        )
    return BearerTokenMiddleware(mcp.streamable_http_app(host=host), token)


def http_token() -> str:
    """``KERNELPILOT_MCP_TOKEN``, or (unset or empty) a fresh random one, printed once to stderr for the client."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        return token
    token = secrets.token_urlsafe(24)
    print(
        f"kernelpilot-mcp: {TOKEN_ENV} is not set; this run's token is {token}\n"
        f"kernelpilot-mcp: clients send 'Authorization: Bearer {token}' (set {TOKEN_ENV} to choose your own)",
        file=sys.stderr,
        flush=True,
    )
    return token


def build_arg_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kernelpilot-mcp", description="kernelpilot MCP server (stdio by default)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help=f"HTTP bind address (always behind {TOKEN_ENV})")
    p.add_argument("--port", type=int, default=8765, help="HTTP port")
    p.add_argument("--version", action="version", version=f"kernelpilot-mcp {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_arg_parser().parse_args(argv)
    # SIGTERM/SIGHUP from the host → normal exit, so atexit kills running compile and profile jobs.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(0))
    if not args.http:
        mcp.run()
        return 0
    import uvicorn

    app = http_app(args.host, http_token())
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
