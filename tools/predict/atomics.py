"""Same-address atomics from Triton's TTIR: how many updates each address of a global atomic takes in one launch,
and how long the GPU takes to apply them.

An atomic's address is a function of the program ids and of loaded data. Each SSA value gets the set of grid axes
it depends on (``tt.get_program_id``) and whether it depends on a ``tt.load`` (data); an op's result depends on
everything its operands depend on. An atomic whose pointer does not depend on grid axis ``a`` is issued to the same
addresses by every program along ``a``: each address takes ``prod(grid[a] for the axes it ignores)`` updates, applied
one after another. The time per update of one address depends on how many 128-byte lines one program's update
covers and on the ordering (a fenced ``acq_rel`` update is slower once many lines are hot): the machine file's
``same_address_atomic_ns`` table, measured by benchmarks/atomic_sweep.py, interpolated in log2(lines). The sites a
program issues to addresses the same programs share count as one update of all their lines. On a grid of several
axes the programs that update different addresses (address groups) run one after another when the axes the addresses
follow are slower than the shared ones in the GPU's launch order (x fastest), else together (their lines all hot).
A pointer that depends on loaded data (a histogram's bin, a scatter's row) has an unknown number of updates per
address; what the launch must take at least is timed (``data_dependent_floor``): the most updates one 128-byte line
must take (pigeonhole over the tensor it updates), applied one after another, and the sectors all updates touch,
applied at the L2's rate with many lines hot (the table's widest row). Skewed data is slower still: open above.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from tools.isa.ttir import LOC_RE as _LOC_RE
from tools.isa.ttir import PID_RE as _PID_RE
from tools.isa.ttir import VALUE_RE as _NAME_RE

_DEF_RE = re.compile(r"^\s*(%[\w.$-]+)(?::(\d+))?\s*=\s*(\"?[\w.]+\"?)(.*)$")
_ELEMS_RE = re.compile(r"tensor<([\dx]+)x!tt\.ptr")
_TENSOR_RE = re.compile(r"tensor<([\dx]+)x")
_ELEM_TYPE_RE = re.compile(r"!tt\.ptr<([a-z]+)(\d+)>")
_SEM_RE = re.compile(r"\b(relaxed|acquire|release|acq_rel)\b")
LINE_BYTES = 128
_ATOMIC_OPS = ("tt.atomic_rmw", "tt.atomic_cas")
DATA = "data"
_FUNC_PTR_RE = re.compile(r"(%[\w.$-]+)\s*:\s*!tt\.ptr")
_BASE_OPS = ("tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape")


@dataclass
class AtomicSite:
    """One global atomic of the kernel."""

    op: str  # e.g. "fadd", "cas"
    axes: frozenset[int]  # grid axes its address depends on
    data_dependent: bool  # its address depends on loaded values
    elements: int  # addresses one program updates per execution
    in_loop: bool  # inside an scf.for / scf.while
    sem: str = "acq_rel"  # memory ordering: relaxed, acquire, release, acq_rel
    elem_bytes: int = 4
    arg: str | None = None  # the pointer argument its addresses are offset from (None: not followed)
    data_elements: int = 0  # elements of the loads its address depends on (a scatter's row indices); 0: none
    loop: int | None = None  # the innermost scf.for around it, by its order in the TTIR (0: the first)
    data_args: frozenset[str] = frozenset()  # the pointer arguments whose loaded values its address depends on


def atomic_sites(ttir: str) -> list[AtomicSite]:
    """Every ``tt.atomic_rmw`` / ``tt.atomic_cas`` with what its address depends on."""
    deps: dict[str, frozenset] = {}
    loops: list[bool] = []  # open regions: True for a loop body
    fors: list[int | None] = []  # open regions: the scf.for's order in the TTIR, None for other regions
    seen_for = 0
    sites: list[AtomicSite] = []
    base: dict[str, str] = {}  # pointer values -> the argument they are offset from
    loaded: dict[str, int] = {}  # values that depend on loaded data -> the elements of the load(s) they come from
    read_from: dict[str, frozenset[str]] = {}  # values that depend on loaded data -> the arguments loaded
    for raw in ttir.splitlines():
        line = _LOC_RE.sub("", raw).strip()
        if line.startswith("tt.func"):
            base = {a: a.lstrip("%") for a in _FUNC_PTR_RE.findall(line)}
        if line.startswith("}"):
            if loops:
                loops.pop()
                fors.pop()
        m = _DEF_RE.match(line)
        if m:
            name, op, rest = m.group(1), m.group(3).strip('"'), m.group(4)
            operands = _NAME_RE.findall(rest.split(" : ", 1)[0] if op not in ("scf.for", "scf.while") else rest)
            got: frozenset = frozenset().union(*(deps.get(o, frozenset()) for o in operands))
            if op == "tt.get_program_id":
                pid = _PID_RE.search(line)
                got = frozenset({"xyz".index(pid.group(1))}) if pid else got
            elif op == "tt.load":
                got = got | {DATA}
                shape = _TENSOR_RE.search(rest.split(" : ", 1)[-1])
                loaded[name] = math.prod(int(d) for d in shape.group(1).split("x")) if shape else 1
                arg = base.get(operands[0]) if operands else None
                read_from[name] = frozenset({arg}) if arg else frozenset()
            if op != "tt.load" and any(o in loaded for o in operands):
                loaded[name] = max(loaded.get(o, 0) for o in operands)
                read_from[name] = frozenset().union(*(read_from.get(o, frozenset()) for o in operands))
            deps[name] = got
            if op in _BASE_OPS and operands and operands[0] in base:
                base[name] = base[operands[0]]
            if op in _ATOMIC_OPS:
                ptr = next((o for o in operands), None)
                where = deps.get(ptr, frozenset()) if ptr else frozenset()
                elems = _ELEMS_RE.search(rest)
                sem = _SEM_RE.search(rest.split(" : ", 1)[0])
                etype = _ELEM_TYPE_RE.search(rest)
                sites.append(
                    AtomicSite(
                        op=rest.split(",", 1)[0].strip() if op == "tt.atomic_rmw" else "cas",
                        axes=frozenset(a for a in where if a != DATA),
                        data_dependent=DATA in where,
                        elements=math.prod(int(d) for d in elems.group(1).split("x")) if elems else 1,
                        in_loop=any(loops),
                        sem=sem.group(1) if sem else "acq_rel",
                        elem_bytes=max(1, int(etype.group(2)) // 8) if etype else 4,
                        arg=base.get(ptr) if ptr else None,
                        data_elements=loaded.get(ptr, 0) if ptr else 0,
                        loop=next((f for f in reversed(fors) if f is not None), None),
                        data_args=read_from.get(ptr, frozenset()) if ptr else frozenset(),
                    )
                )
        if re.search(r"\bscf\.(for|while)\b", line):
            # the induction variable and the iteration arguments: what the bounds and initial values depend on
            names = _NAME_RE.findall(line)
            got = frozenset().union(*(deps.get(o, frozenset()) for o in names))
            for block_arg in names:
                deps.setdefault(block_arg, got)
        if line.endswith("{"):
            loops.append(" scf.for " in f" {line} " or " scf.while " in f" {line} ")
            fors.append(seen_for if " scf.for " in f" {line} " else None)
            seen_for += " scf.for " in f" {line} "
    return sites


def update_ns(table: dict[str, float], sem: str, lines: float, scalar: bool) -> float | None:
    """ns per update of one address: the table's ``scalar/<sem>`` for a one-element update, else ``<sem>/<lines>``
    interpolated linearly in log2(lines) between the measured line counts (clamped at the ends). Any ordering but
    ``relaxed`` is fenced and reads the ``acq_rel`` rows. None when the table lacks the rows."""
    kind = "relaxed" if sem == "relaxed" else "acq_rel"
    if scalar:
        return table.get(f"scalar/{kind}")
    points = sorted((float(k.split("/")[1]), v) for k, v in table.items() if k.startswith(f"{kind}/"))
    if not points:
        return None
    x = math.log2(max(1.0, lines))
    xy = [(math.log2(n), v) for n, v in points]
    if x <= xy[0][0]:
        return xy[0][1]
    for (x0, y0), (x1, y1) in itertools.pairwise(xy):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return xy[-1][1]


@dataclass
class Contention:
    updates: float = 0.0  # the most updates any one address takes (0: no address shared by programs)
    us: float | None = None  # the time to apply them (None: no atomics shared, or no table for the device)
    notes: list[str] | None = None
    data_dependent: bool = False  # some atomic's addresses come from loaded data (not counted)


def _widest_rate(table: dict[str, float], kind: str) -> tuple[float, float] | None:
    """(lines, ns per update) of the table's widest row of this ordering: the most lines hot at once that the sweep
    measured, where the L2 applies one program's update of all of them in that time."""
    rows = sorted((float(k.split("/")[1]), v) for k, v in table.items() if k.startswith(f"{kind}/"))
    return rows[-1] if rows else None


def data_dependent_floor(
    site: AtomicSite,
    programs: int,
    tensor_bytes: dict[str, int] | None,
    table: dict[str, float],
    executions: float | None = 1.0,
    sector_bytes: int | None = None,
    lanes: int | None = None,
    hottest: dict[str, tuple[int, dict[str, int]]] | None = None,
) -> tuple[float, float | None, str | None]:
    """(updates, us, note) that a site whose addresses come from loaded data takes at least. Its ``programs x
    elements x executions`` updates land in the tensor it updates (its size is known, the data is not):

    - *one line at a time*: each loaded index addresses ``run`` contiguous elements (the site's elements over the
      elements of the loads its address comes from: 1 for a histogram's bin, a row for a scatter). Runs of one
      element are scattered lanes, each its own update of a 128-byte line: by pigeonhole some line of the tensor
      takes at least ``updates / lines`` of them, applied one after another at the table's one-element rate. Longer
      runs are one update of their lines: some address takes at least ``updates / addresses`` of them, each at the
      table's rate for that many lines.
    - *the L2's rate*: every update touches its sectors (``sector_bytes``: a run's sectors, or for runs shorter than
      a sector the distinct sectors of one warp instruction's ``lanes / run`` runs spread over the tensor), and the
      L2 applies sector updates at most at the rate of the table's widest row (that row's ns / its sectors).

    The larger of the two. Skewed data is slower still: when the indices come from one argument whose values the
    launch recorded (``hottest``: argument -> (elements, LaunchArgument.hottest)), the hottest line's (or run's)
    share of them, scaled to the launch's updates, replaces the pigeonhole count when it is larger. Scattered lanes
    are applied at the table's ``lanes/<sem>`` rate (ns per lane update of one line, benchmarks/atomic_sweep.py
    ``lanes``) where the machine file has it, else at the one-element rate. (0, None, None) when the tensor or its
    size is unknown."""
    size = (tensor_bytes or {}).get(site.arg or "")
    if not size:
        return 0.0, None, None
    total = float(programs * site.elements) * max(1.0, (executions or 1.0) if site.in_loop else 1.0)
    addresses = max(1, size // site.elem_bytes)
    kind = "relaxed" if site.sem == "relaxed" else "acq_rel"
    run = max(1, site.elements // site.data_elements) if site.data_elements else 1
    run_bytes = run * site.elem_bytes
    scalar_ns = table.get(f"scalar/{kind}") or update_ns(table, site.sem, 1, scalar=False) if table else None
    updates = math.ceil(total / addresses)  # pigeonhole: some address takes at least this many
    per = LINE_BYTES // site.elem_bytes if run == 1 else 1
    skew = _skewed(site, hottest, total / run, per)
    if run == 1:
        lines = max(1, math.ceil(size / LINE_BYTES))
        serial = math.ceil(total / lines)
        where = (
            f"one of its {addresses} elements takes at least {updates} and one of its {lines} lines at least "
            f"{serial} (pigeonhole; scattered lanes update a line one at a time)"
        )
    else:
        serial = updates
        where = f"one of its {addresses // run} runs of {run} elements takes at least {updates} (pigeonhole)"
    if skew and skew[0] > serial:
        serial, updates, where = skew[0], max(updates, skew[1]), skew[2]
    if run == 1:
        serial_us, how = _lanes_us(table, kind, serial, updates, total, lanes) if table else (0.0, "")
        if not how:  # no lanes rows for this device: each lane at the one-element rate
            serial_us = serial * scalar_ns / 1e3 if scalar_ns and serial > 1 else 0.0
        where += how
        serial = serial if serial > 1 else 0
    else:
        serial_ns = update_ns(table, site.sem, run_bytes / LINE_BYTES, scalar=False) if table else None
        serial_us = serial * serial_ns / 1e3 if serial_ns and serial > 1 else 0.0
    rate_us, rate_note = 0.0, ""
    widest = _widest_rate(table, kind) if table else None
    if widest and sector_bytes and lanes:
        per_sector_ns = widest[1] / (widest[0] * LINE_BYTES / sector_bytes)
        if run_bytes >= sector_bytes:
            sectors = total / run * math.ceil(run_bytes / sector_bytes)
        else:
            spread = max(1.0, size / sector_bytes)
            runs_per_instruction = max(1.0, lanes / run)
            distinct = spread * (1.0 - (1.0 - 1.0 / spread) ** runs_per_instruction)
            sectors = total / (runs_per_instruction * run) * distinct
        rate_us = sectors * per_sector_ns / 1e3
        rate_note = (
            f"; {sectors:.0f} sector updates at the L2's rate with {widest[0]:.0f} lines hot "
            f"({per_sector_ns:.4f} ns each) take {rate_us:.1f} us"
        )
    us = max(serial_us, rate_us)
    note = (
        f"atomic {site.op} on {site.arg}: {total:.0f} updates whose addresses come from loaded data"
        f"{' (once per program: the trips of its loop are unknown)' if site.in_loop and executions is None else ''}"
        f"; {where}"
        f"{f' ({serial_us:.1f} us)' if serial_us else ''}{rate_note}"
        f"{'' if skew else '; more when the data is skewed (the example recorded no values for its indices)'}"
    )
    return float(updates if updates > 1 else 0.0), (us or None), note


def _skewed(
    site: AtomicSite, hottest: dict[str, tuple[int, dict[str, int]]] | None, reads: float, per: int
) -> tuple[int, int, str] | None:
    """(updates of the hottest line or run, of the hottest address, where) from the example's own indices: the line
    is ``per`` elements of the updated tensor (a histogram's lanes), a run ``per`` 1 (a scatter's row); ``reads``
    index reads in the launch, each element of the index tensor read ``reads / elements`` times (all read alike; a
    launch that reads each once: exactly the counts). None when the indices do not come from one argument with
    recorded counts."""
    if not hottest or len(site.data_args) != 1:
        return None
    (name,) = site.data_args
    numel, counts = hottest.get(name, (0, {}))
    top, one = counts.get(str(per)), counts.get("1")
    if not numel or not top or not one:
        return None
    scale = reads / numel
    line, address = max(1, math.ceil(top * scale)), max(1, math.ceil(one * scale))
    what = f"one 128-byte line of {site.arg}" if per > 1 else f"one run of {site.arg}"
    return (
        line,
        address,
        (
            f"{top} of the example's {numel} indices in {name} fall in {what} ({one} on one address), so it takes "
            f"{line} of the updates (the example's skew, not pigeonhole)"
        ),
    )


def _lanes_us(
    table: dict[str, float], kind: str, line: float, address: float, total: float, lanes: int | None
) -> tuple[float, str]:
    """(us, note) for scattered lanes: the hottest line's ``line`` lane updates at the table's ``lanes/<sem>/<L>``
    ns each (L: lanes of one warp instruction on that line, indices in random order: ``lanes x line / total``;
    interpolated in log2(L) between the swept densities, clamped), or its hottest address's ``address`` updates at
    ``address/<sem>`` ns each (lanes on one address are applied one at a time), whichever is longer. (0, "") when
    the table has no such rows."""
    rows = sorted((float(k.rsplit("/", 1)[1]), v) for k, v in table.items() if k.startswith(f"lanes/{kind}/"))
    same = table.get(f"address/{kind}")
    if not rows or not same or not lanes:
        return 0.0, ""
    density = max(1e-9, lanes * line / max(1.0, total))
    x = math.log2(density)
    xy = [(math.log2(n), v) for n, v in rows]
    ns = xy[0][1] if x <= xy[0][0] else xy[-1][1]
    for (x0, y0), (x1, y1) in itertools.pairwise(xy):
        if x0 <= x <= x1:
            ns = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    line_us, address_us = line * ns / 1e3, address * same / 1e3
    return max(line_us, address_us), (
        f"; at {density:.1f} lanes of a warp instruction on that line its updates take {ns:.3f} ns each "
        f"({line_us:.1f} us), its hottest address's {address:.0f} one at a time {same:.3f} ns each ({address_us:.1f} us)"
    )


def _trips_of(site: AtomicSite, loop_trips: list[float | None] | None) -> float | None:
    """How often a site runs per program: its innermost scf.for's trips (summed over the loops around it), 1 outside
    a loop; None when its loop's trips are unknown (counted once)."""
    if not site.in_loop:
        return 1.0
    if site.loop is None or not loop_trips or site.loop >= len(loop_trips):
        return None
    return loop_trips[site.loop]


def contention(
    ttir: str,
    grid: list[int],
    table: dict[str, float],
    tensor_bytes: dict[str, int] | None = None,
    *,
    loop_trips: list[float | None] | None = None,
    sector_bytes: int | None = None,
    lanes: int | None = None,
    hottest: dict[str, tuple[int, dict[str, int]]] | None = None,
) -> Contention:
    """The launch's same-address atomics: the most updates one address takes and, with the device's table, the time
    to apply them. The sites one program issues to addresses shared by the same programs act as one update of all
    their lines (two 1024-wide sums take as long as one 2048-wide: benchmarks/atomic_sweep.py ``split``); a group
    with any fenced site reads the fenced rows. Atomics whose addresses come from loaded data take their floor
    (``data_dependent_floor``: a site in a loop as often as its loop runs per program, ``loop_trips`` in TTIR order, the
    trip evaluator's; ``sector_bytes`` and
    ``lanes`` from the machine file)."""
    dims = [*grid, 1, 1, 1][:3]
    out = Contention(notes=[])
    groups: dict[int, list[AtomicSite]] = {}
    floor = 0.0  # the data-dependent sites' pigeonhole floor
    for s in atomic_sites(ttir):
        if s.data_dependent:
            out.data_dependent = True
            updates, us, note = data_dependent_floor(
                s, math.prod(dims), tensor_bytes, table, _trips_of(s, loop_trips), sector_bytes, lanes, hottest
            )
            out.notes.append(
                note
                or f"atomic {s.op}: its addresses come from loaded data, so how many updates meet at one address is "
                "unknown; same-address contention is not modelled (measure it)"
            )
            out.updates = max(out.updates, updates)
            floor = max(floor, us or 0.0)
            continue
        shared = math.prod(dims[a] for a in range(3) if a not in s.axes)
        if shared <= 1:
            continue
        if s.in_loop:
            out.notes.append(
                f"atomic {s.op} inside a loop: counted once per program ({shared} programs update each address)"
            )
        groups.setdefault(shared, []).append(s)
    total = 0.0
    for shared, sites in groups.items():
        out.updates = max(out.updates, float(shared))
        sem = "relaxed" if all(s.sem == "relaxed" for s in sites) else "acq_rel"
        scalar = len(sites) == 1 and sites[0].elements == 1
        lines = sum(s.elements * s.elem_bytes for s in sites) / LINE_BYTES
        # the address groups (programs that differ on an axis the addresses follow): the GPU starts programs in the
        # order of their linear id, x fastest, so when every such axis is slower than every shared one, the groups
        # run one after another (each group's programs contend among themselves); otherwise they run together and
        # their lines are hot at once
        axes = sites[0].axes
        group_count = math.prod(dims[a] for a in axes)
        shared_axes = [a for a in range(3) if a not in axes and dims[a] > 1]
        in_turn = bool(axes) and all(a > b for a in axes for b in shared_axes)
        if not in_turn:
            lines *= group_count
        ns = update_ns(table, sem, lines, scalar and group_count == 1) if table else None
        if ns is not None:
            total += (group_count if in_turn else 1) * shared * ns / 1e3
    out.us = max(total, floor) or None
    out.notes = list(dict.fromkeys(out.notes))
    return out
