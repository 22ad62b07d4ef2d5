"""The vendor-neutral half of prefetch-data-load: a kernel's loop reports, the loop verdict from its load records,
the counts every view reads, and the device whose costs and memory latency the vendor paths read (the machine table).

``amd.py`` and ``nvidia.py`` import these; neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.isa.machines import Machine, device_for
from tools.models.dump import Resources
from tools.models.prefetch import BarrierRegion, CopySite, LoadSite, LoopReport

MAX_LOADS = 32  # records listed per loop (the counts cover all); keeps an MCP result within an agent's budget
MAX_COPIES = 16
WALK_ITERATIONS = 3  # the loop body is walked as this many consecutive iterations


def machine_for(arch: str | None, default_arch: str) -> Machine:
    """``arch``'s default device (tools/isa/machines/<device>.yaml: its instruction costs and memory latencies);
    ``default_arch``'s when the ISA names no architecture or one without a device model (e.g. RDNA)."""
    try:
        return device_for(arch or default_arch)
    except Exception:  # an architecture without a device model: the vendor default's device
        return device_for(default_arch)


def load_latency_cycles(m: Machine) -> int:
    """Cycles a load that misses to DRAM takes on ``m`` (its ``dram_latency_cycles``): below this between a load and
    its wait, the latency is exposed."""
    return int(m.value("dram_latency_cycles"))


@dataclass
class KernelLoops:
    """One kernel's loop analysis, as both vendors' paths return it (``analyze_kernel`` / ``analyze_sass``)."""

    name: str
    loops: list[LoopReport]
    prologue_loads: int  # loads before the hot loop
    has_source_lines: bool
    resources: Resources | None
    arch: str | None
    path: str = ""  # the ISA file it came from (set by the caller that read it)


def load_and_copy_counts(loads: list[LoadSite], copies: list[CopySite], barriers: list[BarrierRegion]) -> dict:
    """The LoopReport fields counted from the load, copy and barrier records: one definition for both vendors, so
    the summary line, ``--verify`` and the eval checks read the same counts."""
    waits = [ld.load_to_wait_cycles for ld in loads if ld.load_to_wait_cycles is not None]
    kinds = [c.kind for c in copies]
    return {
        "loads": loads[:MAX_LOADS],
        "loads_total": len(loads),
        "loads_next_iteration": sum(1 for ld in loads if ld.consumed == "next-iteration"),
        "loads_exposed": sum(1 for ld in loads if ld.waited_too_soon is True),
        "loads_undetermined": sum(1 for ld in loads if ld.waited_too_soon is None or ld.consumed == "undetermined"),
        "scalar_loads": sum(1 for ld in loads if ld.memory == "scalar"),
        "closest_wait_cycles": min(waits) if waits else None,
        "bytes_per_lane_per_iteration": sum(ld.bytes_per_lane for ld in loads),
        "barriers": barriers[:8],
        "barriers_total": len(barriers),
        "barriers_with_loads_in_flight": sum(1 for br in barriers if br.loads_in_flight),
        "head_copies": kinds.count("loaded-data"),
        "copies": sorted(copies, key=lambda c: c.kind == "other")[:MAX_COPIES],  # loaded data, accumulators first
        "loaded_data_copies": kinds.count("loaded-data"),
        "accumulator_copies": kinds.count("accumulator"),
        "other_copies": kinds.count("other"),
    }


def short_iteration_note(
    latencies: float, work_cycles: int, latency_cycles: int, closest_wait_cycles: int | None = None
) -> str:
    """For a prefetched loop that still stalls, why: one iteration's work is shorter than a memory latency, or (when
    it is not) the carried loads issue too late in the iteration, so their waits come too soon after them."""
    if latencies < 0.5:
        return ""
    if work_cycles < latency_cycles:
        return (
            f"; still ~{latencies} memory latencies per iteration: one iteration's work (~{work_cycles} cycles) "
            f"covers only part of a ~{latency_cycles}-cycle latency (prefetch further ahead, or rely on more "
            "waves)"
        )
    gap = f" (the closest is ~{closest_wait_cycles} cycles)" if closest_wait_cycles is not None else ""
    return (
        f"; still ~{latencies} memory latencies per iteration: one iteration's work (~{work_cycles} cycles) would "
        f"cover a ~{latency_cycles}-cycle latency, but the waits come too soon after the loads{gap} (issue the "
        "next iteration's loads earlier in the loop body, or move the waits that retire them later)"
    )


def classify_loop(
    loads: list[LoadSite], mfma: int, compute_ops: int, compute_cycles: int, latency_cycles: int
) -> tuple[str, str]:
    """The loop's verdict and the one-line reason for it, from the load records alone (shared by the AMD and NVIDIA
    paths). ``prefetched`` needs every load decided and none exposed; its reason states the same counts."""
    if not loads:
        return "no-loads", "the loop issues no memory load"
    total = len(loads)
    carried = [ld for ld in loads if ld.consumed == "next-iteration"]
    exposed = [ld for ld in loads if ld.waited_too_soon is True]
    undecided = [ld for ld in loads if ld.waited_too_soon is None or ld.consumed == "undetermined"]
    counts = f"{len(carried)} of {total} load(s) are consumed in the next iteration"
    if exposed:
        worst = min(exposed, key=lambda ld: ld.load_to_wait_cycles or 0)
        where = f" ({worst.source})" if worst.source else ""
        why = f" ({worst.wait_reason})" if worst.wait_reason else ""
        detail = (
            f"{len(exposed)} of {total} load(s) are waited for too soon; the closest wait{why} is "
            f"{worst.load_to_wait_instructions} instruction(s) / ~{worst.load_to_wait_cycles} cycles after "
            f"`{worst.text}`{where}, far below a ~{latency_cycles}-cycle memory latency; {counts}"
        )
        if undecided:
            detail += f"; {len(undecided)} undetermined"
        if mfma == 0 and compute_ops <= 2 * total:
            return "memory-bound", (
                detail + f"; with {compute_ops} compute instruction(s) for {total} load(s) there is little work to "
                "hide latency behind: prefetching helps only a little, more loads in flight or more waves do more"
            )
        return "exposed-latency", detail
    if undecided:
        first = undecided[0]
        return "undetermined", (
            f"{len(undecided)} of {total} load(s) cannot be classified ({first.undetermined_reason}, e.g. "
            f"`{first.text}` [{first.index}]); {counts}; no load is decided as exposed"
        )
    if carried:
        return "prefetched", (
            f"{counts} (loop-carried); none is exposed: every wait is in a later iteration, or late enough in its own "
            "that the latency model sees no stall on it"
        )
    return "prefetched", (
        f"{counts}; every load has at least ~{latency_cycles} estimated cycles of work before its wait"
    )
