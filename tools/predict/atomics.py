"""Same-address atomics from Triton's TTIR: how many updates each address of a global atomic takes in one launch.

An atomic's address is a function of the program ids and of loaded data. Each SSA value gets the set of grid axes
it depends on (``tt.get_program_id``) and whether it depends on a ``tt.load`` (data); an op's result depends on
everything its operands depend on. An atomic whose pointer does not depend on grid axis ``a`` is issued to the same
addresses by every program along ``a``: each address takes ``prod(grid[a] for the axes it ignores)`` updates, and
the L2 applies the updates to one address one after another (a read-modify-write per update). A pointer that
depends on loaded data (a histogram's bin) has an unknown number of updates per address: reported, not modelled.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_LOC_RE = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)")
_DEF_RE = re.compile(r"^\s*(%[\w.$-]+)(?::(\d+))?\s*=\s*(\"?[\w.]+\"?)(.*)$")
_NAME_RE = re.compile(r"%[\w.$-]+")
_PID_RE = re.compile(r"tt\.get_program_id\s+([xyz])")
_ELEMS_RE = re.compile(r"tensor<([\dx]+)x!tt\.ptr")
_ATOMIC_OPS = ("tt.atomic_rmw", "tt.atomic_cas")
DATA = "data"


@dataclass
class AtomicSite:
    """One global atomic of the kernel."""

    op: str  # e.g. "fadd", "cas"
    axes: frozenset[int]  # grid axes its address depends on
    data_dependent: bool  # its address depends on loaded values
    elements: int  # addresses one program updates per execution
    in_loop: bool  # inside an scf.for / scf.while


def atomic_sites(ttir: str) -> list[AtomicSite]:
    """Every ``tt.atomic_rmw`` / ``tt.atomic_cas`` with what its address depends on."""
    deps: dict[str, frozenset] = {}
    loops: list[bool] = []  # open regions: True for a loop body
    sites: list[AtomicSite] = []
    for raw in ttir.splitlines():
        line = _LOC_RE.sub("", raw).strip()
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
            if op in _ATOMIC_OPS:
                ptr = next((o for o in operands), None)
                where = deps.get(ptr, frozenset()) if ptr else frozenset()
                elems = _ELEMS_RE.search(rest)
                sites.append(
                    AtomicSite(
                        op=rest.split(",", 1)[0].strip() if op == "tt.atomic_rmw" else "cas",
                        axes=frozenset(a for a in where if a != DATA),
                        data_dependent=DATA in where,
                        elements=math.prod(int(d) for d in elems.group(1).split("x")) if elems else 1,
                        in_loop=any(loops),
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


def same_address_updates(ttir: str, grid: list[int]) -> tuple[float, list[str]]:
    """(the most updates any one address takes in the launch, notes). 0 when the kernel has no global atomic or its
    programs update distinct addresses; atomics whose addresses come from loaded data are named in the notes only."""
    dims = [*grid, 1, 1, 1][:3]
    worst = 0.0
    notes = []
    for s in atomic_sites(ttir):
        if s.data_dependent:
            notes.append(
                f"atomic {s.op}: its addresses come from loaded data, so how many updates meet at one address is "
                "unknown; same-address contention is not modelled (measure it)"
            )
            continue
        shared = math.prod(dims[a] for a in range(3) if a not in s.axes)
        if s.in_loop and shared > 1:
            notes.append(
                f"atomic {s.op} inside a loop: counted once per program ({shared} programs update each address)"
            )
        worst = max(worst, float(shared) if shared > 1 else 0.0)
    return worst, list(dict.fromkeys(notes))
