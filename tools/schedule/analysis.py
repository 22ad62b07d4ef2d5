"""``schedule`` for one input: read or compile it (``tools.inputs``, as every ISA tool does), pick the kernel, cut it
into clusters and run the wave model (``tools.schedule.amd``), and with an ATT directory (``--trace``, or the input
itself) put the measured cycles beside the estimate (``tools.schedule.att``). Pure with respect to its inputs."""

from __future__ import annotations

import re
from pathlib import Path
from statistics import median

from tools import inputs
from tools.errors import InputError
from tools.isa.amdgcn import Kernel, find_kernel, parse_isa
from tools.isa.arch import is_amd, normalize_arch
from tools.isa.machines import Machine, device_for
from tools.models.schedule import Cluster, ScheduleReport, ScheduleTrace, StallClass
from tools.schedule import amd, att

LIMITS = [
    "one wave alone on its SIMD: other waves' issue, the barrier's wait for the slowest wave and memory bandwidth "
    "are not modelled (the barrier itself costs one issue cycle)",
    "every global load takes dram_latency_cycles and every LDS access lds_latency_cycles from the device file; "
    "cache hits, bank conflicts and queueing are not modelled",
    "the loop's blocks run once per iteration in reverse post-order (branches inside the loop are not weighted)",
]


_COMMENT_RE = re.compile(r"^\s*;", re.M)  # verbose asm: LLVM writes the sched markers as comments
MIN_COVERAGE = 0.9  # a cluster the waves ran less of (a branch skipped the rest) gets no error: not the same work


def _device(arch: str | None, device: str | None) -> Machine:
    if arch is None:
        raise InputError("the ISA names no target", hint="pass --arch gfx942 (or gfx950, gfx90a)")
    arch = normalize_arch(arch)
    if not is_amd(arch):
        raise InputError(f"schedule reads AMDGCN; {arch} is not an AMD target",
                         hint="use --arch gfx942, gfx950 or gfx90a")  # fmt: skip
    m = device_for(arch, device)
    if "lds_latency_cycles" not in m.figures:
        raise InputError(f"device file {m.name} has no lds_latency_cycles figure",
                         hint="add lds_latency_cycles: {value: 64, source: ...} to it")  # fmt: skip
    return m


def _pick(text: str, origin: str, kernel: str | None) -> tuple[Kernel, str | None]:
    isa = parse_isa(text, origin)
    if kernel:
        return find_kernel(isa, kernel), isa.arch
    kernels = [k for k in isa.kernels if k.is_kernel] or isa.kernels
    return max(kernels, key=lambda k: len(k.instructions)), isa.arch


def _load(source: str | Path, arch: str | None, kernel: str | None, frontend, timeout, call):
    """(kernel, its ISA text, arch, origin, the ATT code when the input is an ATT directory)."""
    if att.is_trace_dir(source):
        code = att.code_from_att(Path(source), kernel)
        k, _ = _pick(code.text, str(source), None)
        return k, code.text, arch or "gfx942", str(source), code
    found = inputs.load_isa_inputs(source, arch, frontend=frontend, timeout=timeout, tool="schedule", call=call)
    hits = [i for i in found.items if kernel and i.kernel and kernel in i.kernel] or found.items
    best = None
    for item in hits:
        try:
            k, isa_arch = _pick(item.text, item.path, kernel)
        except InputError:
            if len(hits) == 1:
                raise
            continue
        if best is None or len(k.instructions) > len(best[0].instructions):
            best = (k, item.text, found.arch or isa_arch, found.origin, None)
    if best is None:
        raise InputError(f"no kernel named '{kernel}' in {found.origin}", hint="drop --kernel to list the kernels")
    return best


def _attach(clusters: list[Cluster], measured: att.Measured, m: Machine) -> None:
    for c in clusters:
        if c.id not in measured.cycles:
            continue
        c.measured_cycles = measured.cycles[c.id]
        c.measured_visits = measured.visits[c.id]
        c.measured_waves = measured.waves[c.id]
        c.measured_coverage = measured.coverage[c.id]
        if c.measured_cycles > 0 and c.measured_coverage >= MIN_COVERAGE:
            c.estimate_error = round((c.estimated_cycles - c.measured_cycles) / c.measured_cycles, 3)
            if c.critical_pipe:
                busy = c.pipe_cycles[c.critical_pipe]
                c.measured_idle_share = round(max(0.0, 1 - busy / c.measured_cycles), 3)
        stalls = sorted(measured.stalls.get(c.id, {}).items(), key=lambda kv: -kv[1])
        c.stall_classes = [StallClass(name=n, cycles=round(v, 1)) for n, v in stalls if v]


def _summary(rep: ScheduleReport) -> str:
    loop = [c for c in rep.clusters if c.region == "loop"]
    head = f"{rep.kernel[:60]} ({rep.arch}, {rep.device}): {len(rep.clusters)} cluster(s)"
    if rep.hot_loop:
        head += f", {len(loop)} in the hot loop {rep.hot_loop}"
    else:
        head += ", no loop"
    if loop:
        per_iter = sum(c.estimated_cycles for c in loop)
        crit = max(loop, key=lambda c: c.estimated_cycles)
        head += f"; ~{per_iter:.0f} estimated cycles per iteration, longest cluster {crit.id} ({crit.critical_pipe})"
    if rep.trace and rep.trace.median_abs_error is not None:
        head += (
            f"; ATT: {rep.trace.clusters_measured} cluster(s) measured, median |error| {rep.trace.median_abs_error:.0%}"
        )
    return head


def analyze_schedule(
    source: str | Path,
    arch: str | None = None,
    kernel: str | None = None,
    *,
    trace: str | Path | None = None,
    device: str | None = None,
    frontend: str | None = None,
    timeout: float = 600,
    call: str | None = None,
) -> ScheduleReport:
    """The cluster schedule of ``source``'s kernel (the largest, or ``kernel``), with ATT measurements when ``trace``
    (an ATT ``ui_output_agent_*`` directory) is given or ``source`` is one."""
    k, text, arch, origin, code = _load(source, arch, kernel, frontend, timeout, call)
    m = _device(arch, device)
    plan = amd.plan_clusters(k, text, arch)
    sim = amd.simulate(plan, arch, m)
    clusters = amd.build_clusters(plan, sim, m)
    notes = []
    if not plan.split_at:
        notes.append("no s_barrier or sched_barrier marker: each region is one cluster")
    if code is None and not _COMMENT_RE.search(text):
        notes.append(
            "the ISA carries no comments (written non-verbose, as FlyDSL's final ISA is): sched_barrier and "
            "sched_group_barrier leave no code, so only s_barrier can split it here"
        )
    rep = ScheduleReport(
        source=origin,
        kernel=k.name,
        arch=normalize_arch(arch),
        device=m.name,
        hot_loop=plan.hot_loop,
        hot_loop_reason=plan.hot_loop_reason,
        split_at=plan.split_at,
        clusters=clusters,
        summary="",
        notes=notes,
        limits=LIMITS,
    )
    trace_dir = Path(trace) if trace is not None else (Path(source) if code is not None else None)
    if trace_dir is not None:
        if not att.is_trace_dir(trace_dir):
            raise InputError(f"{trace_dir} is not an ATT output directory (no code.json)",
                             hint="pass the ui_output_agent_<N>_dispatch_<M>/ directory rocprofv3 --att wrote")  # fmt: skip
        if code is None or Path(source) != trace_dir:
            code = att.align(k, att.code_from_att(trace_dir, kernel or None), trace_dir)
        rep.trace = _measure(rep, plan, code, trace_dir, m)
    rep.summary = _summary(rep)
    return rep


def _measure(rep: ScheduleReport, plan: amd.Plan, code: att.AttCode, trace_dir: Path, m: Machine) -> ScheduleTrace:
    cluster_of = {i.index: c.id for c in plan.clusters for i in c.insts}
    first_of = {c.id: c.insts[0].index for c in plan.clusters}
    measured = att.measure(trace_dir, code, cluster_of, first_of)
    _attach(rep.clusters, measured, m)
    errors = [abs(c.estimate_error) for c in rep.clusters if c.estimate_error is not None]
    unrun = [c.id for c in rep.clusters if c.measured_cycles is None]
    partial = [c.id for c in rep.clusters if c.measured_coverage is not None and c.measured_coverage < MIN_COVERAGE]
    note = f"{measured.wave_count} wave file(s); cycles per visit, median over the waves that ran the cluster"
    if unrun:
        note += f"; {len(unrun)} cluster(s) no traced wave ran: {', '.join(map(str, unrun[:12]))}"
    if partial:
        note += (
            f"; {len(partial)} cluster(s) the waves ran only in part (a branch skipped the rest), so no error: "
            + ", ".join(map(str, partial[:12]))
        )
    return ScheduleTrace(
        path=str(trace_dir),
        kernel=code.kernel,
        waves=measured.wave_count,
        clusters_measured=len(errors),
        median_abs_error=round(median(errors), 3) if errors else None,
        note=note,
    )
