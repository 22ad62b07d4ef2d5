"""The parts of a vgpr-pressure report both vendors build the same way: peak regions, register groups, critical
points, the spill analysis and the summary's tail. The AMD and NVIDIA pipelines supply the vendor's facts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal

from tools.isa import pressure
from tools.models.vgpr import (
    CriticalPoint,
    InstructionRef,
    RegisterGroup,
    SourceGroup,
    SpillAnalysis,
    SpilledValue,
    SpillKind,
    Suggestion,
)

Vendor = Literal["amd", "nvidia"]
MAX_PEAK_REGIONS = 3


def peak_regions(counts: Sequence[int]) -> tuple[list[int], list[int]]:
    """(every instruction at the peak live count, the first instruction of each run of consecutive ones, at most
    :data:`MAX_PEAK_REGIONS`); both empty when nothing is live."""
    peak = max(counts, default=0)
    if peak == 0:
        return [], []
    at_peak = [j for j, c in enumerate(counts) if c == peak]
    starts = [j for n, j in enumerate(at_peak) if n == 0 or at_peak[n - 1] != j - 1][:MAX_PEAK_REGIONS]
    return at_peak, starts


def register_groups(
    groups: list[pressure.LiveGroup], prefix: str, ref: Callable[[int], InstructionRef]
) -> list[RegisterGroup]:
    """``pressure.group_live``/``group_sass_live`` groups as models; ``ref`` turns an instruction index into its ref."""
    return [
        RegisterGroup(
            kind=g.kind,
            count=len(g.regs),
            registers=pressure.fmt_regs(prefix, g.regs),
            example=ref(g.example) if g.example is not None else None,
        )
        for g in groups
    ]


def critical_point(
    instruction: InstructionRef,
    *,
    live: int,
    live_agprs: int,
    live_sgprs: int,
    in_hot_loop: bool,
    instructions_at_peak: int,
    by_definition: list[RegisterGroup],
    by_source: dict[str, list[int]],
    prefix: str,
    top_k: int,
    vendor_counts: dict[str, int] | None = None,
) -> CriticalPoint:
    """One peak point; the source lines with the most live registers first, at most ``top_k`` of them;
    ``vendor_counts``: the vendor's own fields (NVIDIA: live_gprs, live_ugprs, live_predicates)."""
    src_sorted = sorted(by_source.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return CriticalPoint(
        instruction=instruction,
        live_vgprs=live,
        live_agprs=live_agprs,
        live_sgprs=live_sgprs,
        in_hot_loop=in_hot_loop,
        instructions_at_peak=instructions_at_peak,
        by_definition=by_definition,
        by_source=[
            SourceGroup(source=s, count=len(r), registers=pressure.fmt_regs(prefix, r)) for s, r in src_sorted[:top_k]
        ],
        by_source_total=len(src_sorted),
        by_source_truncated=len(src_sorted) > top_k,
        **(vendor_counts or {}),
    )


# vendor -> (how spill stores are named, what a store with no register data holds, what a reload in the loop costs)
SPILL_WORDS: dict[Vendor, tuple[str, str, str]] = {
    "amd": ("spill stores", "no VGPR data", "scratch latency"),
    "nvidia": ("STL spill stores", "no GPR data", "local-memory latency"),
}


def spill_analysis(
    vendor: Vendor,
    *,
    stores: int,
    reloads: int,
    hot_loop_stores: int,
    hot_loop_reloads: int,
    has_hot_loop: bool,
    values: list[SpilledValue],
    by_kind: Counter[SpillKind],
    top_k: int,
    agpr_slots: int = 0,
    by_kind_detail: dict[SpillKind, str] | None = None,
) -> SpillAnalysis:
    """The spill model of either vendor; ``root_cause`` says how many stores of which kinds, how many sit in the hot
    loop and what that costs."""
    named, empty, cost = SPILL_WORDS[vendor]
    kinds = ", ".join(f"{n} {k}" for k, n in by_kind.most_common())
    cause = f"{stores} {named} ({kinds or empty})"
    if vendor == "nvidia":
        cause += f", {reloads} LDL reloads"
    if has_hot_loop:
        cause += f"; {hot_loop_stores} stores and {hot_loop_reloads} reloads sit inside the hot loop"
        if hot_loop_reloads:
            cause += f" — every iteration pays {cost}"
    if agpr_slots:
        cause += f"; {agpr_slots} AGPRs serve as spill slots (v_accvgpr_write/read)"
    values.sort(key=lambda v: (not v.in_hot_loop, v.store.index))
    return SpillAnalysis(
        spill_stores=stores,
        spill_reloads=reloads,
        hot_loop_spill_stores=hot_loop_stores,
        hot_loop_spill_reloads=hot_loop_reloads,
        agpr_spill_slots=agpr_slots,
        by_kind=dict(by_kind),
        by_kind_detail=by_kind_detail or {},
        root_cause=cause,
        values=values[:top_k],
        values_total=len(values),
        values_truncated=len(values) > top_k,
    )


# vendor -> (the live registers counted at the peak, the unit of a suggestion's estimated saving)
SUMMARY_WORDS: dict[Vendor, tuple[str, str]] = {"amd": ("VGPRs", "VGPRs"), "nvidia": ("GPRs", "registers")}


def summary_tail(
    vendor: Vendor,
    points: list[CriticalPoint],
    hot,
    spills: SpillAnalysis | None,
    suggestions: list[Suggestion],
) -> str:
    """The summary after the resources (``hot``: anything with a ``header_label``, or None): where the peak is and what is live there, the spills' cause, the top fix."""
    live_word, unit = SUMMARY_WORDS[vendor]
    text = ""
    if points:
        p = points[0]
        where = f" in the hot loop {hot.header_label}" if p.in_hot_loop and hot else ""
        top = ", ".join(f"{g.count} {g.kind}" for g in p.by_definition[:3])
        text += (
            f" Peak {p.live_vgprs} live {live_word} at #{p.instruction.index} `{p.instruction.text}`{where} ({top})."
        )
    if spills:
        text += f" Spills: {spills.root_cause}."
    if suggestions:
        s = suggestions[0]
        text += f" Top fix: {s.title} (~{s.estimated_vgpr_savings} {unit})."
    return text
