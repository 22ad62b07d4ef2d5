"""The tools that compile and run the user's kernel files: dump-ir, check and predict (in a killable child, with
progress)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from mcp_server import jobs
from mcp_server.app import (
    ARCH_HELP,
    RUNS_CODE,
    Arch,
    Call,
    Device,
    JobId,
    Timeout,
    WaitSeconds,
    agent_errors,
    mcp,
    require_command_mode,
    run_job,
    still_running,
)
from mcp_server.models import CheckOutput, DumpIrOutput, PredictOutput
from mcp_server.paths import confine, project_dir
from tools.errors import InputError
from tools.frontends.registry import FrontendName
from tools.gitref import parse_spec
from tools.limits import MAX_TRIPS
from tools.models.check import CheckEngine, CheckReport
from tools.models.dump import DumpResult
from tools.models.predict import PredictResult

# ---------------------------------------------------------------------------------------------------- dump-ir


@mcp.tool(name="dump-ir", title="Dump IR, ISA and resources", annotations=RUNS_CODE)
async def dump_ir(
    ctx: Context,
    source: Annotated[
        str | None,
        Field(
            description="kernel file: .py (FlyDSL or Triton, defining kernelpilot_entry()), .cu, .hip or .mojo; "
            "absolute or relative to the project directory. Leave empty with command or job_id."
        ),
    ] = None,
    arch: Annotated[Arch, Field(description=ARCH_HELP)] = "gfx942",
    frontend: Annotated[FrontendName | None, Field(description="override language detection")] = None,
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
    call: Call = None,
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
        if call:
            kwargs["call"] = call
        return "dump-ir", kwargs, timeout + 30, f"compiling {path.name} for {arch}"

    with agent_errors(dump_ir):
        got = await run_job(ctx, "dump-ir", job_id, wait_seconds, start)
        if isinstance(got, jobs.Job):
            return still_running(got, "dump-ir", DumpIrOutput)
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
        CheckEngine,
        Field(description="llvm: run the AMDGPU LLVM IR lane by lane (FlyDSL); interpreter: Triton's interpreter"),
    ] = "auto",
    arch: Annotated[
        Arch,
        Field(
            description="AMD target whose LLVM IR the llvm engine runs; a Triton file asked for sm_80/sm_90 is "
            "compiled for gfx942 to be checked (the report's target_note says so)"
        ),
    ] = "gfx942",
    seeds: Annotated[list[int] | None, Field(description="input seeds (default [0])")] = None,
    shapes: Annotated[
        list[dict[str, int | float | str]] | None,
        Field(description="keyword arguments for kernelpilot_inputs(seed, **shape) / kernelpilot_entry(**shape)"),
    ] = None,
    atol: Annotated[float, Field(description="absolute tolerance (0: bit for bit)", ge=0)] = 0.0,
    rtol: Annotated[float, Field(description="relative tolerance (0: bit for bit)", ge=0)] = 0.0,
    max_memory_gb: Annotated[
        float,
        Field(
            description="memory cap of the process running the kernels, GB (a launch needing more is "
            "refused before it starts)",
            gt=0,
            le=1024,
        ),
    ] = 8.0,
    use_cache: Annotated[bool, Field(description="reuse identical earlier compiles and inputs")] = True,
    frontend: Annotated[
        FrontendName | None,
        Field(description="the language of before and after, instead of detecting it (check runs flydsl and triton)"),
    ] = None,
    call: Call = None,
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
        if before.startswith("-"):
            raise InputError(f"before '{before}' starts with '-': neither a file nor a git revision",
                             hint="give a kernel file, or a git revision such as HEAD:./kernel.py")  # fmt: skip
        try:
            b = str(confine(before, what="before"))
        except InputError:
            if parse_spec(before) is None:
                raise
            # a git revision (HEAD:./kernel.py): the worker reads it from AFTER's repository, its path confined to
            # the roots there (tools.gitref), so a revision cannot reach a file outside them
            b = before
        kwargs = {"before": b, "after": str(a), "engine": engine, "arch": arch, "seeds": seeds or [0]}
        kwargs |= {"shapes": shapes or [{}], "atol": atol, "rtol": rtol, "timeout": timeout, "use_cache": use_cache}
        kwargs |= {"max_memory_gb": max_memory_gb, "frontend": frontend}
        if call:
            kwargs["call"] = call
        return "check", kwargs, timeout + 60, f"check {Path(b).name} → {a.name}"

    with agent_errors(check):
        got = await run_job(ctx, "check", job_id, wait_seconds, start)
        if isinstance(got, jobs.Job):
            return still_running(got, "check", CheckOutput)
        report = CheckReport.model_validate(got)
        steps = {
            "same": ["outputs agree on these inputs; add seeds/shapes that reach edge tiles before trusting it"],
            "different": ["read the first mismatch / out-of-bounds line and fix AFTER; rerun check"],
        }.get(report.verdict, [report.reason])
        return CheckOutput(summary=report.summary, next_steps=steps, report=report)


# ---------------------------------------------------------------------------------------------------- predict


def _predict_steps(r: PredictResult) -> list[str]:
    steps = []
    undetermined = [lp for lp in r.launches if lp.predicted_us is None and not lp.not_modelled]
    if undetermined:
        steps.append(f"undetermined: {undetermined[0].undetermined}")
    if any(lp.trips.source == "assumption" for lp in r.launches + r.baseline_launches):
        steps.append("some trip counts are assumed: pass trips=N (the hot loop's iterations per program)")
    bound = r.bound
    if bound == "memory_latency":
        steps.append("latency-bound: more bytes in flight per CU/SM (more resident waves, prefetch, wider loads)")
    elif bound == "hbm_bandwidth":
        steps.append("at HBM bandwidth: only fewer bytes moved helps (fusion, smaller types, reuse)")
    elif bound == "tail":
        steps.append("the last partial round of blocks dominates: change the grid or split the work finer")
    elif bound == "launch_overhead":
        steps.append("launch overhead dominates: fuse launches or do more work per launch")
    if r.band.status == "unvalidated":
        steps.append("the band is unvalidated on this device: measure on a GPU before trusting a small speedup")
    elif r.band.status in ("assumed", "undetermined"):
        steps.append(
            f"the band is {r.band.status}: the prediction rests on {'; '.join(r.band.rests_on)}; measure on a GPU "
            "before deciding on it"
        )
    else:
        steps.append(
            f"band: the measured time lies within x{r.band.low:g}-x{r.band.high:g} of this prediction for 80 % of "
            f"the validation's predictions of its kind, {r.band.kind} ({r.band.residuals or r.band.source}); a "
            "predicted speedup whose band straddles 1 decides nothing: measure on a GPU"
        )
    return steps


def _baseline_file(baseline: str, source: Path) -> str:
    """predict's baseline: a file inside the roots, or ``REV:PATH`` (as the CLI's --baseline takes it) read from the
    repository of ``source``'s folder into the kernelpilot cache (tools.gitref confines PATH to the roots)."""
    from tools.gitref import is_git_spec, read_git_file
    from tools.toolchain import cache_root

    if baseline.startswith("-"):
        raise InputError(f"baseline '{baseline}' starts with '-': neither a file nor a git revision",
                         hint="give a kernel file, or a git revision such as HEAD:./kernel.py")  # fmt: skip
    try:
        return str(confine(baseline, what="baseline"))
    except InputError:
        if parse_spec(baseline) is None or not is_git_spec(baseline, source.parent):
            raise
    dest = cache_root() / "gitref" / uuid.uuid4().hex
    return str(read_git_file(baseline, dest, source.parent).local_path)


def _trips_given(trips: float | list[str] | None) -> tuple[float | None, dict[str, float]]:
    """The ``trips`` parameter read as the CLI reads its ``--trips`` (tools.predict.cli): (plain N, {LINE: N})."""
    import argparse

    from tools.predict.cli import parse_trips, trips_value

    if trips is None:
        return None, {}
    given = []
    for entry in [trips] if isinstance(trips, (int, float)) else trips:
        try:
            given.append(trips_value(str(entry)))
        except argparse.ArgumentTypeError as exc:
            raise InputError(f"trips entry {entry!r}: {exc}",
                             hint="give trips as N, or a list of 'N' and 'LINE=N' entries, e.g. ['31=124']") from None  # fmt: skip
    return parse_trips(given)


@mcp.tool(name="predict", title="Predict a launch's time on a GPU", annotations=RUNS_CODE)
async def predict(
    ctx: Context,
    source: Annotated[
        str | None,
        Field(
            description="kernel file (.py Triton/FlyDSL with kernelpilot_entry(); the call form captures every "
            "launch) or a recorded variant folder (meta.json)"
        ),
    ] = None,
    arch: Annotated[Arch | None, Field(description="target: gfx90a, gfx942, gfx950, sm_80, sm_90")] = None,
    device: Annotated[
        Device | None,
        Field(description="device model (default per arch: gfx942 mi300x, sm_90 h100)"),
    ] = None,
    baseline: Annotated[
        str | None,
        Field(
            description="a second kernel file, or a git revision of one (HEAD:./kernel.py, the path relative to "
            "source's folder): predicted speedup of source over it"
        ),
    ] = None,
    trips: Annotated[
        Annotated[float, Field(gt=0, le=MAX_TRIPS)] | list[Annotated[str, Field(max_length=200)]] | None,
        Field(
            description="as the CLI's --trips: a number N, the hot loop's iterations per program where no evidence "
            "gives them; or a list of 'N' and 'LINE=N' entries, each 'LINE=N' the loop whose `for` is on source line "
            "LINE run N iterations per program over any evidence (loops inside it scale alike; a second loop the "
            "compiler made from that line is LINE.2; an unknown name's error lists the loops), e.g. ['31=124']"
        ),
    ] = None,
    frontend: Annotated[
        FrontendName | None, Field(description="kernel files (source and baseline): override language detection")
    ] = None,
    call: Call = None,
    timeout: Timeout = 600,
    wait_seconds: WaitSeconds = 45,
    job_id: JobId = None,
) -> PredictOutput:
    """Predict each launch's time on the target GPU from its ISA, launch and occupancy, and name what bounds it
    (hbm_bandwidth, l2_bandwidth, block_launch, atomic_contention, memory_latency, issue, valu, mfma/tensor, lds, tail,
    launch_overhead), with the figures used (bytes moved, bytes in flight per CU/SM, resident waves, trips) and the
    error band. Compiles the kernel file."""

    def start():
        if not source:
            raise InputError("give source (a kernel file or a variant folder), or job_id", hint="e.g. source='k.py'")
        src = str(confine(source, what="source"))
        plain, named = _trips_given(trips)
        kwargs = {"source": src, "arch": arch, "device": device, "trips": plain, "timeout": timeout}
        if named:
            kwargs["loop_trips"] = named
        kwargs |= {"frontend": frontend}
        if baseline:
            kwargs["baseline"] = _baseline_file(baseline, Path(src))
        if call:
            kwargs["call"] = call
        # predict bounds the whole call, the baseline included, by one timeout (tools.predict.bounds)
        return "predict", kwargs, timeout + 60, f"predict {Path(src).name}"

    with agent_errors(predict):
        got = await run_job(ctx, "predict", job_id, wait_seconds, start)
        if isinstance(got, jobs.Job):
            return still_running(got, "predict", PredictOutput)
        report = PredictResult.model_validate(got)
        return PredictOutput(summary=report.summary, next_steps=_predict_steps(report), report=report)
