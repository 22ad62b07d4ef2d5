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
A pointer that depends on loaded data (a histogram's bin) has an unknown number of updates per address: reported,
not modelled.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

_LOC_RE = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)")
_DEF_RE = re.compile(r"^\s*(%[\w.$-]+)(?::(\d+))?\s*=\s*(\"?[\w.]+\"?)(.*)$")
_NAME_RE = re.compile(r"%[\w.$-]+")
_PID_RE = re.compile(r"tt\.get_program_id\s+([xyz])")
_ELEMS_RE = re.compile(r"tensor<([\dx]+)x!tt\.ptr")
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


def atomic_sites(ttir: str) -> list[AtomicSite]:
    """Every ``tt.atomic_rmw`` / ``tt.atomic_cas`` with what its address depends on."""
    deps: dict[str, frozenset] = {}
    loops: list[bool] = []  # open regions: True for a loop body
    sites: list[AtomicSite] = []
    base: dict[str, str] = {}  # pointer values -> the argument they are offset from
    for raw in ttir.splitlines():
        line = _LOC_RE.sub("", raw).strip()
        if line.startswith("tt.func"):
            base = {a: a.lstrip("%") for a in _FUNC_PTR_RE.findall(line)}
        if line.startswith("}"):
            if loops:
                loops.pop()
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


def data_dependent_floor(
    site: AtomicSite, programs: int, tensor_bytes: dict[str, int] | None, table: dict[str, float]
) -> tuple[float, float | None, str | None]:
    """(updates, us, note) that a site whose addresses come from loaded data applies to one address at least: its
    ``programs x elements`` updates land in the ``tensor / element bytes`` addresses of the tensor it updates, so by
    pigeonhole some address takes at least their ratio (all of them when the data is skewed: this is a floor); each
    update of one address at the table's one-element rate. (0, None, None) when the tensor or its size is unknown."""
    size = (tensor_bytes or {}).get(site.arg or "")
    if not size:
        return 0.0, None, None
    total = float(programs * site.elements)
    addresses = max(1, size // site.elem_bytes)
    updates = math.ceil(total / addresses)
    if updates <= 1:
        return 0.0, None, None
    kind = "relaxed" if site.sem == "relaxed" else "acq_rel"
    ns = table.get(f"scalar/{kind}") or update_ns(table, site.sem, 1, scalar=False) if table else None
    note = (
        f"atomic {site.op} on {site.arg}: {total:.0f} updates whose addresses come from loaded data land in its "
        f"{addresses} elements, so one address takes at least {updates} (pigeonhole; every lane's update counted, "
        f"{'once per program although it sits in a loop, ' if site.in_loop else ''}more when the data is skewed)"
    )
    return float(updates), (updates * ns / 1e3 if ns else None), note


def contention(
    ttir: str, grid: list[int], table: dict[str, float], tensor_bytes: dict[str, int] | None = None
) -> Contention:
    """The launch's same-address atomics: the most updates one address takes and, with the device's table, the time
    to apply them. The sites one program issues to addresses shared by the same programs act as one update of all
    their lines (two 1024-wide sums take as long as one 2048-wide: benchmarks/atomic_sweep.py ``split``); a group
    with any fenced site reads the fenced rows. Atomics whose addresses come from loaded data are named only."""
    dims = [*grid, 1, 1, 1][:3]
    out = Contention(notes=[])
    groups: dict[int, list[AtomicSite]] = {}
    floor = 0.0  # the data-dependent sites' pigeonhole floor
    for s in atomic_sites(ttir):
        if s.data_dependent:
            out.data_dependent = True
            updates, us, note = data_dependent_floor(s, math.prod(dims), tensor_bytes, table)
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
