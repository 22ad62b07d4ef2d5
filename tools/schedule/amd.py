"""The cluster schedule of one AMDGCN kernel: its hot loop (in the order one iteration runs, ``LoopGraph``), prologue
and epilogue cut into clusters after each ``s_barrier`` and before each ``sched_barrier``/``sched_group_barrier``
marker (LLVM prints them as ``; sched_barrier mask(…)`` comments), then one wave issued in order through
prologue, four loop iterations and epilogue:

- per-instruction costs are ``tools.predict.amd.inst_cost`` over the device's machine YAML (the table ``predict``
  uses): a VALU op occupies the SIMD for ``valu_cycles``, an MFMA the matrix core for its ``mfma_cycles`` while the
  wave issues on after one issue slot, LDS bytes go at ``lds_bytes_per_cycle``;
- waits retire what the waitcnt rules of ``tools.prefetch.amd`` say (vmcnt in issue order, stores too on gfx9;
  lgkmcnt oldest first, SMEM taken as in order as prefetch-data-load's latency model does); a load is ready
  ``dram_latency_cycles`` after issue, an LDS access ``lds_latency_cycles`` after;
- the loop's third iteration is the steady state the loop clusters report: its waits retire loads of that or
  earlier iterations (``clusters_ago`` counts cluster visits back, across the back edge), its loads are retired in
  it or the next.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from dataclasses import dataclass, field

from tools.isa.amdgcn import Instruction, Kernel
from tools.isa.cfg import build_cfg, find_hot_loop
from tools.isa.machines import Machine
from tools.isa.mnemonics import LDS_CLASSES
from tools.isa.waitcnt import counts_in_vmcnt, is_scalar_load, lgkm_want, vmcnt_of
from tools.models.schedule import Cluster, LoadRecord, ScheduleClass, WaitRecord
from tools.predict.amd import access_bytes, inst_cost
from tools.prefetch.amd import LoopGraph, source_of

MARKER_RE = re.compile(r"^\s*;\s*(sched_barrier|sched_group_barrier)\b")
LOOP_PASSES = 4
REPORT_PASS = 2  # the loop iteration whose clusters are reported: two iterations before it, one after
TOP_SOURCES = 6

# mnemonic class (tools.isa.mnemonics) -> the schedule's class
_CLASS_OF: dict[str, ScheduleClass] = {
    "mfma": "mfma",
    "valu": "valu",
    "cndmask": "valu",
    "accvgpr_move": "valu",
    "salu": "salu",
    "nop": "salu",
    "smem": "smem",
    "vmem_load": "vmem_load",
    "scratch_load": "vmem_load",
    "vmem_store": "vmem_store",
    "vmem_atomic": "vmem_store",
    "scratch_store": "vmem_store",
    "vmem_other": "vmem_store",
    "vmem_load_lds": "dma_to_lds",
    "lds_read": "lds_read",
    "lds_write": "lds_write",
    "lds_other": "lds_other",
    "waitcnt": "waitcnt",
    "barrier": "barrier",
    "branch": "branch",
    "endpgm": "branch",
}
MEMORY_CLASSES = ("vmem_load", "vmem_store", "dma_to_lds", "lds_read", "lds_write", "lds_other", "smem")


def schedule_class(inst: Instruction) -> ScheduleClass:
    return _CLASS_OF.get(inst.category, "other")


def is_transpose_read(inst: Instruction) -> bool:
    m = inst.mnemonic  # gfx950 ds_read_b64_tr_b16, ds_read_b96_tr_b6; gfx12 ds_load_tr*
    return inst.category == "lds_read" and ("_tr_b" in m or m.startswith(("ds_read_tr", "ds_load_tr")))


def ends_cluster(inst: Instruction) -> bool:
    """An ``s_barrier`` (gfx12: ``s_barrier_wait``) closes the cluster it ends; the signal half does not."""
    return inst.category == "barrier" and not inst.mnemonic.startswith("s_barrier_signal")


def marker_starts(kernel: Kernel, text: str) -> dict[int, str]:
    """Instruction index -> the ``sched_barrier``/``sched_group_barrier`` marker just before it."""
    lines = text.splitlines()
    insts = kernel.instructions
    if not insts:
        return {}
    out: dict[int, str] = {}
    k = 0
    for n in range(insts[0].line, insts[-1].line):
        m = MARKER_RE.match(lines[n - 1])
        if not m:
            continue
        while k < len(insts) and insts[k].line <= n:
            k += 1
        if k < len(insts):
            out.setdefault(k, m.group(1))
    return out


@dataclass
class _Cluster:
    id: int
    region: str
    position: int
    insts: list[Instruction]
    ends_with: str


@dataclass
class Plan:
    """The clusters in execution order of one pass, and the loop's header/reason."""

    clusters: list[_Cluster]
    order: list[tuple[str, list[_Cluster]]]  # (region, its clusters)
    hot_loop: str | None
    hot_loop_reason: str | None
    split_at: list[str] = field(default_factory=list)


def _split(region: str, seq: list[Instruction], markers: dict[int, str], first_id: int, is_loop: bool):
    out: list[_Cluster] = []
    cur: list[Instruction] = []
    for inst in seq:
        if cur and inst.index in markers:
            out.append(_Cluster(first_id + len(out), region, len(out), cur, markers[inst.index]))
            cur = []
        cur.append(inst)
        if ends_cluster(inst):
            out.append(_Cluster(first_id + len(out), region, len(out), cur, inst.text))
            cur = []
    if cur:
        out.append(_Cluster(first_id + len(out), region, len(out), cur, "back edge" if is_loop else "end"))
    return out


def plan_clusters(kernel: Kernel, text: str, arch: str | None) -> Plan:
    cfg = build_cfg(kernel)
    hot = find_hot_loop(cfg)
    markers = marker_starts(kernel, text)
    insts = kernel.instructions
    regions: list[tuple[str, list[Instruction], bool]] = []
    if hot is None:
        regions.append(("kernel", insts, False))
    else:
        g = LoopGraph.build(kernel, cfg, hot.loop, arch)
        body = set(g.pos)
        first = min(body)
        regions.append(("prologue", [i for i in insts if i.index < first and i.index not in body], False))
        regions.append(("loop", g.seq, True))
        regions.append(("epilogue", [i for i in insts if i.index > first and i.index not in body], False))
    clusters: list[_Cluster] = []
    order = []
    for region, seq, is_loop in regions:
        part = _split(region, seq, markers, len(clusters), is_loop)
        clusters.extend(part)
        order.append((region, part))
    split_at = sorted({"s_barrier" for i in insts if ends_cluster(i)} | set(markers.values()))
    return Plan(
        clusters,
        order,
        (hot.header_label or f"block {hot.loop.header}") if hot else None,
        hot.reason if hot else None,
        split_at,
    )


# --- one wave through the passes ----------------------------------------------------------------------------------


@dataclass
class _Op:
    """An operation a counter tracks: ready time, instruction, the cluster visit that issued it."""

    ready: float
    inst: Instruction
    cluster: int
    visit: int
    loop_pass: int | None


@dataclass
class _Visit:
    cluster: int
    loop_pass: int | None
    start: float = 0
    end: float = 0
    stall: float = 0
    waits: list[tuple[Instruction, list[_Op], float]] = field(default_factory=list)


@dataclass
class Simulation:
    visits: list[_Visit]
    retired_by: dict[tuple[int, int], tuple[Instruction, int]]  # (visit, load index) -> (wait, visit of the wait)


def _passes(plan: Plan):
    for region, part in plan.order:
        for p in range(LOOP_PASSES) if region == "loop" else (None,):
            yield from ((c, p) for c in part)


def simulate(plan: Plan, arch: str | None, m: Machine) -> Simulation:
    """One wave issuing every pass in order; waits stall until what they retire is ready (see the module doc)."""
    dram = m.value("dram_latency_cycles")
    lds = m.value("lds_latency_cycles")
    slot = m.value("valu_cycles")
    t = mfma_free = 0.0
    vm: deque[_Op] = deque()
    lgkm: deque[_Op] = deque()
    visits: list[_Visit] = []
    retired_by: dict[tuple[int, int], tuple[Instruction, int]] = {}
    for cluster, loop_pass in _passes(plan):
        v = _Visit(cluster.id, loop_pass, start=t)
        n = len(visits)
        visits.append(v)
        for inst in cluster.insts:
            retired: list[_Op] = []
            for queue, want in ((vm, vmcnt_of(inst)), (lgkm, lgkm_want(inst, (arch or "").startswith("gfx12")))):
                while want is not None and len(queue) > want:
                    retired.append(queue.popleft())
            if inst.category == "waitcnt":
                ready = max((op.ready for op in retired), default=t)
                stall = max(0.0, ready - t)
                t += stall
                v.stall += stall
                v.waits.append((inst, retired, stall))
                for op in retired:
                    retired_by[(op.visit, op.inst.index)] = (inst, n)
            cost = inst_cost(inst, m)
            if inst.category == "mfma":
                start = max(t, mfma_free)
                mfma_free = start + cost.matrix
                t = start + slot
            else:
                t += cost.chain
            op = _Op(0, inst, cluster.id, n, loop_pass)
            if counts_in_vmcnt(inst, arch):
                op.ready = t + dram
                vm.append(op)
            elif is_scalar_load(inst):
                op.ready = t + dram
                lgkm.append(op)
            elif inst.category in LDS_CLASSES:
                op.ready = t + lds
                lgkm.append(op)
        v.end = t
    return Simulation(visits, retired_by)


# --- the report's clusters ----------------------------------------------------------------------------------------


def _pipes(insts: list[Instruction], m: Machine) -> tuple[dict[str, float], float]:
    """Busy cycles per pipe and the wave's issue cycles (an MFMA takes one issue slot; its passes are the pipe's)."""
    pipes = dict.fromkeys(("mfma", "valu", "salu", "lds", "vmem"), 0.0)
    issue = 0.0
    slot = m.value("valu_cycles")
    lds_rate = m.value("lds_bytes_per_cycle")
    for inst in insts:
        c = inst_cost(inst, m)
        k = schedule_class(inst)
        pipes["mfma"] += c.matrix
        pipes["valu"] += c.valu
        if k in ("salu", "smem", "branch", "waitcnt", "barrier"):
            pipes["salu"] += c.chain
        elif k.startswith("lds"):
            pipes["lds"] += c.lds_bytes / lds_rate
        elif k in ("vmem_load", "vmem_store", "dma_to_lds"):
            pipes["vmem"] += c.chain
        issue += slot if inst.category == "mfma" else c.chain
    return pipes, issue


def _wait_record(wait: Instruction, ops: list, stall: float, visit: int, sim: Simulation) -> WaitRecord:
    issuing = sorted({op.cluster for op in ops}, key=lambda c: -max(o.visit for o in ops if o.cluster == c))
    ago = [visit - max(o.visit for o in ops if o.cluster == c) for c in issuing]
    here = sim.visits[visit].loop_pass
    back = any(op.loop_pass is not None and here is not None and op.loop_pass < here for op in ops)
    note = None
    if not ops:
        note = "retires nothing that is outstanding here (the counter is already below its operand)"
    elif any(is_scalar_load(op.inst) for op in ops) and any(op.inst.category in LDS_CLASSES for op in ops):
        note = "scalar loads and LDS share lgkmcnt; SMEM returns out of order, so only lgkmcnt(0) is exact"
    return WaitRecord(
        index=wait.index,
        text=wait.text,
        retires=[op.inst.index for op in ops],
        retires_text=[op.inst.text for op in ops],
        issuing_clusters=issuing,
        clusters_ago=ago,
        across_back_edge=back,
        stall_cycles=round(stall, 1),
        note=note,
    )


def _report_visit(sim: Simulation, c: _Cluster) -> int:
    want = REPORT_PASS if c.region == "loop" else None
    return next(n for n, v in enumerate(sim.visits) if v.cluster == c.id and v.loop_pass == want)


def build_clusters(plan: Plan, sim: Simulation, m: Machine) -> list[Cluster]:
    out = []
    for c in plan.clusters:
        n = _report_visit(sim, c)
        v = sim.visits[n]
        pipes, issue = _pipes(c.insts, m)
        est = v.end - v.start
        critical = max(pipes, key=lambda p: pipes[p]) if any(pipes.values()) else None
        counts = Counter(schedule_class(i) for i in c.insts)
        loads = []
        for inst in c.insts:
            if schedule_class(inst) not in MEMORY_CLASSES:
                continue
            hit = sim.retired_by.get((n, inst.index))
            loads.append(
                LoadRecord(
                    index=inst.index,
                    text=inst.text,
                    kind=schedule_class(inst),
                    retired_by=hit[0].index if hit else None,
                    consumer_cluster=sim.visits[hit[1]].cluster if hit else None,
                    clusters_ahead=hit[1] - n if hit else None,
                    source=source_of(inst),
                )
            )
        sources = Counter(s for s in (source_of(i) for i in c.insts) if s)
        out.append(
            Cluster(
                id=c.id,
                region=c.region,
                position=c.position,
                first_instruction=min(i.index for i in c.insts),
                last_instruction=max(i.index for i in c.insts),
                ends_with=c.ends_with,
                instructions=len(c.insts),
                counts=dict(sorted(counts.items())),
                mfma_shapes=dict(sorted(Counter(i.mnemonic for i in c.insts if i.category == "mfma").items())),
                lds_read_transpose=sum(1 for i in c.insts if is_transpose_read(i)),
                bytes_loaded_per_lane=sum(
                    access_bytes(i.mnemonic) for i in c.insts if schedule_class(i) in ("vmem_load", "dma_to_lds")
                ),
                issue_cycles=issue,
                pipe_cycles=pipes,
                estimated_cycles=round(est, 1),
                wait_stall_cycles=round(v.stall, 1),
                critical_pipe=critical,
                critical_idle_share=round(max(0.0, 1 - pipes[critical] / est), 3) if critical and est > 0 else None,
                waits=[_wait_record(w, ops, s, n, sim) for w, ops, s in v.waits],
                loads=loads,
                sources=[s for s, _ in sources.most_common(TOP_SOURCES)],
            )
        )
    return out
