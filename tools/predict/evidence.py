"""What one prediction rests on, and the band that follows from it (issue 31).

The device's band (its machine file's, from a validation in benchmarks/RESULTS.md) holds only for a prediction that
assumes nothing the validation did not see: trip counts read from the code and the example arguments, atomics whose
contention the device's table gives. Each assumption a prediction makes is an ``Assumption``: what is assumed, and
what it can do to the measured / predicted ratio:

* the hot loop's trips assumed (a bound not known before the launch, no ``--trips``): the time follows the assumed
  count by any factor, so the band is ``undetermined``;
* a figure the prediction cannot count (atomics whose addresses come from loaded data, same-address atomics on a device
  without a contention table, another loop's assumed trips): the prediction is a floor, the band is open above;
* an unroll read from bytes alone (the ISA body moves k x the source body's bytes, so k source iterations per ISA
  iteration, and the loop counter does not say k x the source step): if the bytes are a wider or replicated load
  instead, the loop runs k x as often, so the band's top is k x higher;
* a prediction under the device's own floors (the source's matrix FLOP at the tensor peak; the tensors' bytes once at
  peak HBM): the band's top reaches the floor;
* a stated ``--trips`` or inline asm: the band stays the device's, but the status says it was not validated.

Pure functions of figures and text the predictor already has: no compiler, no file.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from tools.isa.machines import Machine
from tools.models.predict import Band
from tools.predict.warpspec import WS_NOTE, WS_UNREAD

# the text tools.predict.work.unroll_of gives an unroll read from bytes (the only unroll guess this module widens)
_BYTES_UNROLL_RE = re.compile(r"its body moves \d+ B per program per iteration, (\d+)x the source loop's")
_COUNTER_AGREES = "and its counter advances by"  # the loop counter corroborates the bytes: not a guess
_INLINE_ASM = "tt.elementwise_inline_asm"


@dataclass
class Assumption:
    """One thing a prediction assumes, and its effect on the band: ``low`` / ``high`` multiply the device band's
    ends (None: that side is open); ``decides``: the time follows the assumption by any factor (no band)."""

    text: str
    low: float | None = 1.0
    high: float | None = 1.0
    decides: bool = False
    kind: str | None = None  # the PredictionKind this assumption makes the prediction (tools.predict.kinds)


def trip_assumptions(source: str, detail: str, stated: float | None, other_loops: list[str]) -> list[Assumption]:
    """The trip counts a prediction assumes: the hot loop's (``source`` 'assumption'), then the other loops' lines."""
    out = []
    if source == "assumption" and stated:
        out.append(
            Assumption(
                f"the hot loop's trips are stated (--trips {stated:g}), not read from the code", kind="stated_trips"
            )
        )
    elif source == "assumption":
        out.append(
            Assumption(
                f"the hot loop's trips are assumed ({detail}): the time follows them by any factor; give example "
                "arguments whose values set the loop bound, or --trips N",
                low=None,
                high=None,
                decides=True,
            )
        )
    elif other_loops:
        out.append(
            Assumption(
                f"{len(other_loops)} loop(s) whose bounds are not known before the launch run their assumed trips "
                f"({other_loops[0]}): more would add to the time, so the band is open above",
                high=None,
            )
        )
    return out


def atomic_assumptions(data_dependent: bool, unmodelled_updates: float, device: str) -> list[Assumption]:
    """Atomics the prediction cannot time: addresses from loaded data, or same-address updates without a table."""
    out = []
    if data_dependent:
        out.append(
            Assumption(
                "atomic addresses come from loaded data: how many updates meet at one address is unknown, their "
                "contention is not in the time (a floor: open above)",
                high=None,
                kind="atomic",
            )
        )
    if unmodelled_updates:
        out.append(
            Assumption(
                f"up to {unmodelled_updates:.0f} same-address atomic updates, and {device}'s machine file has no "
                "same_address_atomic_ns table: their contention is not in the time (a floor: open above)",
                high=None,
                kind="atomic",
            )
        )
    return out


_SASS_GLOBAL_ATOMICS = ("ATOM", "ATOMG", "RED", "REDG")  # ATOMS is shared memory: on-chip, not the L2's contention


def sass_atomic_assumptions(sass_text: str, kernel: str) -> list[Assumption]:
    """Global atomics of a kernel read from SASS alone (a CUDA kernel, no TTIR to tell whose addresses they update):
    how many updates meet at one address is unknown, so their contention is not in the time (open above)."""
    from tools.isa.sass import parse_sass
    from tools.predict.nvidia import find_function

    try:
        insts = find_function(parse_sass(sass_text), kernel).insts
    except LookupError:
        return []
    n = sum(1 for i in insts if i.root in _SASS_GLOBAL_ATOMICS)
    if not n:
        return []
    return [
        Assumption(
            f"{n} global atomic instruction(s) in the SASS and no TTIR to tell their addresses: how many updates "
            "meet at one address is unknown, their contention is not in the time (a floor: open above)",
            high=None,
            kind="atomic",
        )
    ]


def unroll_assumptions(notes: list[str]) -> list[Assumption]:
    """Unroll factors read from bytes (``tools.predict.work.unroll_of``): the largest one widens the band's top."""
    factors = [
        int(h.group(1))
        for n in notes
        for h in [_BYTES_UNROLL_RE.search(n)]
        if h and int(h.group(1)) > 1 and _COUNTER_AGREES not in n
    ]
    if not factors:
        return []
    k = max(factors)
    return [
        Assumption(
            f"a loop's unroll ({k}x) is read from its bytes per iteration: if those are a wider or replicated load "
            f"instead of {k} source iterations, it runs {k}x as often (band top x{k})",
            high=float(k),
        )
    ]


def reuse_assumptions(us: float, no_reuse_us: float | None) -> list[Assumption]:
    """L1 hits counted for a program's re-reads of its own lines (``tools.predict.reuse``): whether a re-read finds
    its line still in the L1 depends on the L1/shared carve-out the driver picks and on loads to one line in flight
    together, neither of which the code says; without the hits the time is ``no_reuse_us`` (the band's top)."""
    if not no_reuse_us or no_reuse_us <= us * 1.02:
        return []
    k = no_reuse_us / us
    return [
        Assumption(
            f"a program's re-reads of its own lines are counted as L1 hits; if the L1 (its carve-out beside shared "
            f"memory, loads to one line in flight together) serves fewer of them, they cross the L2: up to "
            f"{no_reuse_us:.1f} us (band top x{k:.2f})",
            high=k,
        )
    ]


def asm_assumptions(ttir: str | None) -> list[Assumption]:
    """Inline asm: its instructions are costed like compiled code, which no validation covered."""
    if ttir and _INLINE_ASM in ttir:
        return [Assumption("inline asm (tt.elementwise_inline_asm): its instructions are costed like compiled code")]
    return []


def histogram_op_assumptions(ttir: str | None) -> list[Assumption]:
    """``tt.histogram``: Triton lowers it to a warp ballot per bit of each value (VOTE), a population count per bin
    and lane (POPC, which the CUDA Programming Guide rates at 16 results per clock per SM on cc 9.0, a quarter of the
    integer lanes; the model charges it as an ordinary integer instruction) and a merge of every warp's counts into
    shared memory (ATOMS, whose lanes own neighbouring bins and conflict on the banks; the model counts their bytes
    at the full shared-memory rate). Both only add time: the prediction is a floor, its band open above."""
    if ttir and "tt.histogram" in ttir:
        return [
            Assumption(
                "tt.histogram: its per-bin population counts (POPC, quarter rate) and bank-conflicted shared-memory "
                "merges (ATOMS) are costed as plain integer and shared-memory work: a floor (open above)",
                high=None,
            )
        ]
    return []


def matrix_flops(plan: list | None, programs: int) -> float:
    """FLOP of the source's matrix products in one launch: 2 x M x N x K per tt.dot x its loop's trips x programs."""
    return sum(2.0 * t.matrix_flops_per_iter * (t.trips or 0.0) for t in plan or []) * programs


def floor_assumptions(kernel_us: float, m: Machine, flops: float, tensor_bytes: int | None) -> list[Assumption]:
    """A predicted kernel time under the device's own floors: the source's matrix FLOP at the highest tensor peak the
    machine file states, and the tensors' bytes moved once at peak HBM bandwidth (a floor only if the kernel touches
    all of them). Each widens the band's top to reach its floor."""
    out = []
    cus, clock = m.value("compute_units"), m.clock_hz
    rates = m.table("tensor_flops_per_cycle")
    if flops and rates and kernel_us > 0:
        floor = flops / (max(rates.values()) * cus * clock) * 1e6
        if floor > kernel_us:
            out.append(
                Assumption(
                    f"the predicted {kernel_us:.2f} us is under the {floor:.2f} us {m.name}'s tensor peak needs for the "
                    f"source's {flops / 1e9:.3g} GFLOP of tt.dot: a trip count or unroll is likely wrong (band top "
                    f"x{floor / kernel_us:.2f})",
                    high=floor / kernel_us,
                )
            )
    if tensor_bytes and kernel_us > 0:
        floor = tensor_bytes / (m.value("hbm_peak_gbs") * 1e9) * 1e6
        if floor > kernel_us:
            out.append(
                Assumption(
                    f"the predicted {kernel_us:.2f} us is under the {floor:.2f} us {m.name} needs to move its tensors' "
                    f"{tensor_bytes / 1e6:.3g} MB once at peak HBM bandwidth: right only if the kernel touches part "
                    f"of them (band top x{floor / kernel_us:.2f})",
                    high=floor / kernel_us,
                )
            )
    return out


_STRIDED_RE = re.compile(r"(\d+) of \d+ global accesses step more than")
STRIDED_TOP = 2.0  # a partly written sector read back from DRAM before its write-back: the strided traffic twice


def strided_assumptions(notes: list[str], bound: str | None) -> list[Assumption]:
    """Strided accesses (``tools.predict.coalesce``: neighbouring lanes more than one element apart, each element a
    sector) in a bandwidth-bound launch: the model charges each such element one whole sector once. A store that
    writes part of a sector may have the L2 read the rest of it from DRAM before writing it back, and a strided
    load's sector may leave the L2 before its neighbours in it are read: either moves the strided bytes up to twice,
    which the code does not say (band top x2)."""
    if bound not in ("hbm_bandwidth", "l2_bandwidth"):
        return []
    hits = [int(h.group(1)) for n in notes for h in [_STRIDED_RE.search(n)] if h]
    if not hits:
        return []
    return [
        Assumption(
            f"{max(hits)} strided global access(es) (a sector per element) are charged each sector once: partly "
            f"written sectors read back before their write-back, or sectors evicted before their neighbours are "
            f"read, would move them up to twice (band top x{STRIDED_TOP:g})",
            high=STRIDED_TOP,
        )
    ]


SMALL_GRID_TOP = 1.5  # the light-load latency and bytes in flight of a part-filled GPU: no full-grid validation saw it


def small_grid_assumptions(bound: str | None, active_cus: int | None, compute_units: float) -> list[Assumption]:
    """A memory-latency-bound launch with fewer programs than the device has SMs: its time is each busy SM's chain of
    loads at the DRAM latency and the bytes in flight per SM the machine file states, figures the validation fitted
    on launches filling the GPU; on a part-filled GPU the latency a lone SM sees and the loads it keeps in flight
    are not in the code (band top x1.5)."""
    if bound != "memory_latency" or not active_cus or active_cus >= compute_units:
        return []
    return [
        Assumption(
            f"memory-latency bound on {active_cus} of {compute_units:g} SMs: the DRAM latency and bytes in flight per "
            f"SM a part-filled GPU sees are the full-grid figures (band top x{SMALL_GRID_TOP:g})",
            high=SMALL_GRID_TOP,
        )
    ]


def feature_assumptions(notes: list[str], ttir: str | None, sizes: dict[str, int], bound: str | None, figures,
                        m: Machine, kind: str | None = None) -> list[Assumption]:  # fmt: skip
    """The launch features whose effect on the time the code does not fix (strided sectors, a part-filled GPU bound by
    latency, for a prediction of kind ``latency``), each widening the band on the side it can move the time; the kind
    is ``kinds.kind_of``'s, which these assumptions (no ``kind``) do not change. Gathered tensors are floors.py's
    (``gather_assumptions``: its footprint and distinct rows). ``ttir`` and ``sizes`` are the launch's, for rules that
    read the source."""
    # a gathered tensor's band is widened where its footprint is counted (floors.py, the gather's distinct rows): one
    # rule for it, not two
    out = strided_assumptions(notes, bound) + warpspec_assumptions(notes)
    if kind == "latency":  # the latency kind's residuals are what a part-filled GPU questions; other kinds' bands
        # (stated or loaded trips, atomics) are fitted on their own predictions, whatever their grid
        out += small_grid_assumptions(bound, getattr(figures, "active_cus", None), m.value("compute_units"))
    return out


def _scaled(end: float | None, factors: list[float | None]) -> float | None:
    if end is None or any(f is None for f in factors):
        return None
    return round(end * math.prod(factors), 4)


def launch_band(base: Band, assumptions: list[Assumption]) -> Band:
    """The band of one prediction: ``base`` (its kind's band, ``kinds.kind_band``) when nothing is assumed; else
    ``assumed`` (widened, a side None where open; ``widened`` the factors) or ``undetermined``. An unvalidated device
    stays ``unvalidated``, its assumptions listed."""
    rests_on = [*(a.text for a in assumptions), *base.rests_on]
    if base.status not in ("validated", "assumed") or not assumptions:
        return base.model_copy(update={"rests_on": rests_on})
    if any(a.decides for a in assumptions):  # no band: the kind's fallback says nothing more
        rests_on = [a.text for a in assumptions]
        return Band(status="undetermined", source=base.source, note=base.note, rests_on=rests_on, kind=base.kind,
                    residuals=base.residuals, widened=(None, None))  # fmt: skip
    widened = (_scaled(1.0, [a.low for a in assumptions]), _scaled(1.0, [a.high for a in assumptions]))
    return base.model_copy(
        update={
            "low": _scaled(base.low, [a.low for a in assumptions]),
            "high": _scaled(base.high, [a.high for a in assumptions]),
            "status": "assumed",
            "rests_on": rests_on,
            "widened": widened,
        }
    )


_WORSE = {"validated": 0, "assumed": 1, "unvalidated": 2, "undetermined": 3}


def combined_band(device: Band, bands: list[Band], names: list[str], longest: int = 0) -> Band:
    """The band of several launches' summed time: the worst status; the lowest low and the highest high (None when
    any is open); the kind of the ``longest`` launch; each launch's assumptions prefixed by its index and name."""
    if not bands:
        return device
    if len(bands) == 1:
        return bands[0]
    status = max((b.status for b in bands), key=_WORSE.get)
    rests_on = [f"launch {i} {n}: {r}" for i, (b, n) in enumerate(zip(bands, names, strict=True)) for r in b.rests_on]
    main = bands[longest]
    residuals = "; ".join(dict.fromkeys(b.residuals for b in bands if b.residuals)) or None
    if status in ("unvalidated", "undetermined"):
        return Band(status=status, source=main.source, note=main.note, rests_on=rests_on, kind=main.kind,
                    residuals=residuals, widened=(None, None) if status == "undetermined" else (1.0, 1.0))  # fmt: skip

    def ends(values: list[float | None], pick) -> float | None:
        return None if None in values else pick(values)

    return main.model_copy(
        update={
            "low": ends([b.low for b in bands], min),
            "high": ends([b.high for b in bands], max),
            "status": status,
            "rests_on": rests_on,
            "residuals": residuals,
            "widened": (ends([b.widened[0] for b in bands], min), ends([b.widened[1] for b in bands], max)),
        }
    )


def pair_speedup_band(
    speedup: float, before: Band, after: Band, device: Band, table: dict | None = None
) -> tuple[float | None, float | None] | None:
    """A predicted speedup's band from both sides' bands (``kinds.pair_band``: the same-kind pairs' residuals, or
    the two sides' time bands composed; each side's assumptions widen it). None when a side is undetermined or
    unvalidated; a side None where an assumption opens it."""
    from tools.predict.kinds import pair_band

    return pair_band(speedup, before, after, device, table)


def band_words(b: Band) -> str:
    """The band as one phrase, with its status, its kind and the residuals it comes from, and, when not validated,
    what the prediction rests on."""
    why = f" ({'; '.join(b.rests_on)})" if b.rests_on else ""
    kind = f", kind {b.kind}" if b.kind else ""
    data = f" of {b.residuals}" if b.residuals and b.status in ("validated", "assumed") else ""
    if b.status == "validated":
        return f"band validated{kind}: measured / predicted x{b.low:g}-x{b.high:g} (10th-90th percentile{data})"
    if b.status == "undetermined":
        return f"band undetermined{kind}{why}: measure on a GPU"
    if b.status == "unvalidated":
        return f"band unvalidated{kind}{why}"
    low = f"x{b.low:g}" if b.low is not None else "x?"
    high = f"x{b.high:g}" if b.high is not None else "open above"
    return f"band assumed{kind}: measured / predicted {low}-{high}{why}" + (
        f" (from {b.residuals})" if b.residuals else ""
    )


def band_of(m: Machine) -> Band:
    """The device's error band, from its machine file (the one place it is kept)."""
    b = m.band
    status = "validated" if b.get("status") == "validated" and b.get("low") and b.get("high") else "unvalidated"
    ok = status == "validated"
    return Band(
        low=b.get("low") if ok else None,
        high=b.get("high") if ok else None,
        speedup_low=b.get("speedup_low") if ok else None,
        speedup_high=b.get("speedup_high") if ok else None,
        status=status,
        source=b.get("source") or "no validation",
        note=b.get("note"),
    )


def warpspec_assumptions(notes: list[str]) -> list[Assumption]:
    """A warp-specialised launch (tools/predict/warpspec.py): its partitions' overlap is modelled as one pipeline
    step per iteration, which no validation has measured: the band is widened both ways; where the SASS did not
    show the partitions, every warp was modelled running all of them in series: no band."""
    if any(n.startswith(WS_UNREAD) for n in notes):
        return [
            Assumption(
                "warp-specialised, but the SASS partitions were not mapped: the per-warp model runs every partition "
                "in series (no band)",
                decides=True,
            )
        ]
    if not any(n.startswith(WS_NOTE) for n in notes):
        return []
    return [
        Assumption(
            "warp-specialised (ttg.warp_specialize): the producer's TMA loads and the consumers' wgmma are modelled "
            "as one pipeline step per iteration, the chain one consumer warp's; no H200 run has validated this "
            "(band x0.67-x1.5)",
            low=1 / 1.5,
            high=1.5,
        )
    ]
