"""The device's own floors under a launch's time, from the work its source does (issues 31 and 36).

A launch takes at least
  * its source's matrix products (``tt.dot``: 2 x M x N x K per execution) at the highest tensor-core peak the machine
    file states (``tensor``);
  * its source's FP32 arithmetic (``arith.addf/subf/mulf/divf`` one FLOP per element, ``math.fma`` two, on f32
    tensors) at the FP32 peak: every lane an FMA (two FLOP) per ``valu_cycles`` (``valu``);
  * the bytes its loads and stores must touch at least once at peak HBM bandwidth (``hbm_bandwidth``): per access,
    the distinct elements one execution touches (the tensor dimensions its address varies along: a broadcast or a
    scalar load touches one row or one element, however many lanes read it) x the programs along the grid axes its
    address follows x the iterations of the loops whose induction variable it follows, summed per tensor argument and
    capped at the tensor's size (re-reads by other programs or iterations hit the L2).
Each execution count is the loop bounds' (``tools.predict.trips``); work inside an ``scf.if`` or ``scf.while`` is
left out (it may not run), and so is an access whose address or mask comes from loaded data (a gather: which bytes
it touches is unknown). Masks on the launch's scalars are taken to cut only the tensor's tail (the cap at the
tensor's size bounds that).

A prediction under a floor is never printed plainly (``judge``): when every figure the floor reads comes from the
code and the example arguments (no assumed trip count), the floor is a fact and the prediction is raised to it, with
the reason; when a loop the floor counts runs an assumed number of times, the floor is as uncertain as the
prediction, and the prediction abstains (band ``undetermined``), naming the floor.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from tools.isa.machines import Machine
from tools.isa.ttir import FOR_RE as _FOR_RE
from tools.isa.ttir import LOC_RE as _LOC_RE
from tools.isa.ttir import PID_RE as _PID_RE
from tools.isa.ttir import VALUE_RE as _NAME_RE
from tools.predict.evidence import Assumption

_DEF_RE = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)?\s*=\s*(\"?[\w.]+\"?)(.*)$")
_ITER_RE = re.compile(r"(%[\w.$-]+)\s*=\s*(%[\w.$-]+)")
_SHAPE_RE = re.compile(r"tensor<([\dx]+)x(?:!tt\.ptr<)?([a-z]+\d*)")
_SCALAR_PTR_RE = re.compile(r"!tt\.ptr<([a-z]+)(\d+)>")
_AXIS_RE = re.compile(r"axis\s*=\s*(\d+)")
_FUNC_ARG_RE = re.compile(r"(%[\w.$-]+)\s*:\s*!tt\.ptr")
_FP_OPS = {"arith.addf": 1, "arith.subf": 1, "arith.mulf": 1, "arith.divf": 1, "math.fma": 2}
DATA = "data"


@dataclass
class Access:
    """One tt.load / tt.store of the source: the tensor argument it touches and how often its bytes differ."""

    arg: str | None  # the pointer argument its address is offset from (None: not followed)
    distinct_bytes: int  # bytes one execution touches (varying dimensions only) x element bytes
    axes: frozenset[int]  # grid axes its address follows
    loops: tuple[int, ...]  # loops (TTIR order) whose induction variable its address follows
    enclosing: tuple[int, ...]  # loops around it, outermost first
    data_dependent: bool  # its address or mask comes from a loaded value
    gated: bool  # inside an scf.if / scf.while region


@dataclass
class SourceWork:
    accesses: list[Access] = field(default_factory=list)
    fp_ops: list[tuple[float, tuple[int, ...]]] = field(default_factory=list)  # (FLOP per execution, enclosing loops)
    pointer_args: list[str] = field(default_factory=list)
    loop_parent: list[int | None] = field(default_factory=list)  # per loop (TTIR order), the loop around it


def _shape(type_text: str) -> tuple[list[int], int]:
    """(dimensions, bytes per element) of a TTIR type (a scalar or scalar pointer: no dimensions)."""
    m = _SHAPE_RE.search(type_text)
    if m:
        elem = m.group(2)
        bits = int(re.sub(r"\D", "", elem) or 32)
        return [int(d) for d in m.group(1).split("x")], max(1, bits // 8)
    m = _SCALAR_PTR_RE.search(type_text)
    return [], max(1, int(m.group(2)) // 8) if m else 4


def _vary(op: str, rest: str, operands: list[str], vary: dict, dims: list[int]) -> tuple[bool, ...]:
    """Along which of its dimensions a value differs from element to element (an address: which elements are
    distinct). Unknown ops: where any operand of the same shape differs (never more than that)."""
    if op == "tt.make_range":
        return (True,) * len(dims)
    if op in ("tt.splat", "arith.constant") or not dims:
        return (False,) * len(dims)
    src = vary.get(operands[0], ()) if operands else ()
    if op == "tt.expand_dims":
        axis = _AXIS_RE.search(rest)
        a = int(axis.group(1)) if axis else 0
        return (*src[:a], False, *src[a:]) if len(src) + 1 == len(dims) else (False,) * len(dims)
    if op == "tt.broadcast":
        return tuple(src) if len(src) == len(dims) else (False,) * len(dims)
    if op in ("tt.load", "tt.trans", "tt.reshape"):
        return (True,) * len(dims)  # values, or a relayout: every element may differ
    known = [vary[o] for o in operands if o in vary and len(vary[o]) == len(dims)]
    return tuple(any(v[d] for v in known) for d in range(len(dims))) if known else (False,) * len(dims)


def source_work(ttir: str) -> SourceWork:  # noqa: C901 — one walk over the TTIR's lines, one case per op kind
    """The launch's source work from Triton's TTIR: each global access (what its address follows) and each FP32
    operation (its FLOP per execution), with the loops around them in TTIR order (``tools.predict.trips``' order)."""
    out = SourceWork()
    deps: dict[str, frozenset] = {}
    vary: dict[str, tuple[bool, ...]] = {}
    base: dict[str, str] = {}
    regions: list[tuple[str, int | None]] = []  # open regions: ("for", loop id) / ("if", None)
    n_loops = 0
    in_func = False
    for raw in ttir.splitlines():
        line = _LOC_RE.sub("", raw).strip()
        if not in_func:
            if line.startswith("tt.func"):
                in_func = True
                out.pointer_args = _FUNC_ARG_RE.findall(line)
                base.update({a: a.lstrip("%") for a in out.pointer_args})
            continue
        if line.startswith("}"):
            if regions:
                regions.pop()
            if line.endswith("{"):
                regions.append(("if", None))  # "} else {"
            continue
        enclosing = tuple(i for kind, i in regions if kind == "for")
        gated = any(kind != "for" for kind, _ in regions)
        m = _DEF_RE.match(line)
        op = m.group(2).strip('"') if m else line.split(" ", 1)[0]
        rest = m.group(3) if m else line[len(op) :]
        head, _, types = rest.rpartition(" : ") if " : " in rest else (rest, "", "")
        operands = _NAME_RE.findall(head)
        got = frozenset().union(*(deps.get(o, frozenset()) for o in operands))
        if op == "tt.get_program_id":
            pid = _PID_RE.search(line)
            got = frozenset({"xyz".index(pid.group(1))}) if pid else got
        loop = _FOR_RE.search(line) if line.endswith("{") else None
        if loop:
            ident = n_loops
            n_loops += 1
            out.loop_parent.append(enclosing[-1] if enclosing else None)
            bounds = frozenset().union(*(deps.get(o, frozenset()) for o in loop.groups()[1:]))
            deps[loop.group(1)] = bounds | {("loop", ident)}
            vary[loop.group(1)] = ()
            for arg, init in _ITER_RE.findall(line.split("iter_args", 1)[1] if "iter_args" in line else ""):
                deps[arg] = deps.get(init, frozenset()) | {("loop", ident)}
                if init in vary:
                    vary[arg] = vary[init]
                if init in base:
                    base[arg] = base[init]
            if m:
                deps[m.group(1)] = got | {DATA}
            regions.append(("for", ident))
            continue
        if line.endswith("{"):
            if m:
                deps[m.group(1)] = got | {DATA}
            regions.append(("if", None))
            continue
        if op in ("tt.load", "tt.store"):
            dims, elem = _shape(types.split(",")[0] if op == "tt.store" else types)
            ptr = operands[0] if operands else None
            checked = operands[:1] + operands[2:3] if op == "tt.store" else operands[:2]
            where = frozenset().union(*(deps.get(o, frozenset()) for o in checked))
            v = vary.get(ptr, ()) if ptr else ()
            distinct = math.prod(d for d, on in zip(dims, v, strict=False) if on) if dims else 1
            out.accesses.append(
                Access(
                    arg=base.get(ptr) if ptr else None,
                    distinct_bytes=distinct * elem,
                    axes=frozenset(a for a in where if isinstance(a, int)),
                    loops=tuple(sorted(x[1] for x in where if isinstance(x, tuple))),
                    enclosing=enclosing,
                    data_dependent=DATA in where,
                    gated=gated,
                )
            )
        if op in _FP_OPS and not gated:
            dims, _ = _shape(types)
            if types.strip().endswith("xf32>") or types.strip() == "f32":
                out.fp_ops.append((float(_FP_OPS[op] * math.prod(dims or [1])), enclosing))
        if not m:
            continue
        name = m.group(1)
        if op == "tt.load":
            got = got | {DATA}
        deps[name] = got
        dims, _ = _shape(types.split("->")[-1] if "->" in types else types.split(",")[0])
        vary[name] = _vary(op, rest, operands, vary, dims)
        if op in ("tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape") and operands:
            if operands[0] in base:
                base[name] = base[operands[0]]
    return out


@dataclass
class Floor:
    bound: str  # the Bound the launch takes when raised to it: "tensor", "valu", "hbm_bandwidth"
    us: float
    what: str  # the work, in words
    assumed: list[int]  # loops (TTIR order) whose assumed trips it counts


def _executions(loop: int | None, plan: list) -> float:
    return float(plan[loop].trips or 0.0) if loop is not None else 1.0


def _own(loop: int, plan: list, parent: list[int | None]) -> float:
    """Iterations of ``loop`` per iteration of the loop around it (the plan's trips are per program)."""
    outer = _executions(parent[loop], plan)
    return float(plan[loop].trips or 0.0) / outer if outer else 0.0


def device_floors(
    work: SourceWork,
    plan: list,
    assumed: set[int],
    grid: list[int],
    programs: int,
    tensor_bytes: dict[str, int],
    dot_flops: float,
    m: Machine,
) -> tuple[list[Floor], dict[str, float | None]]:
    """The launch's floors (tensor, FP32, bytes that must move) and the tensor arguments whose footprint is unknown:
    an access whose address or mask comes from loaded data (a gather) touches at most the elements it loads (the
    bytes, counted as for any access), one in a region that may not run anything (None). ``plan``: the source
    loops with trips (assumed ones filled in), ``assumed`` their indices whose bounds were not evaluated."""
    dims = [*grid, 1, 1, 1][:3]
    cus, clock = m.value("compute_units"), m.clock_hz
    out: list[Floor] = []
    rates = m.table("tensor_flops_per_cycle")
    dot_loops = sorted(i for i, t in enumerate(plan) if t.matrix_flops_per_iter)
    if dot_flops and rates:
        us = dot_flops / (max(rates.values()) * cus * clock) * 1e6
        what = f"the source's {dot_flops / 1e9:.3g} GFLOP of tt.dot at the tensor cores' peak"
        out.append(Floor("tensor", us, what, [i for i in dot_loops if i in assumed]))
    flops, fp_assumed = 0.0, set()
    for per, enclosing in work.fp_ops:
        inner = enclosing[-1] if enclosing else None
        flops += per * _executions(inner, plan) * programs
        fp_assumed |= {i for i in enclosing if i in assumed}
    fp32 = m.figures["fp32_flops_per_cycle"][0] if "fp32_flops_per_cycle" in m.figures else None
    if flops and fp32:  # devices whose file states it (AMD's packed FP32 doubles its lanes' rate: not a floor there)
        us = flops / (cus * fp32 * clock) * 1e6
        what = f"the source's {flops / 1e9:.3g} GFLOP of FP32 arithmetic at the FP32 peak (an FMA per lane per clock)"
        out.append(Floor("valu", us, what, sorted(fp_assumed)))
    per_arg: dict[str, float] = {}
    unknown: dict[str, float | None] = {}
    byte_assumed: set[int] = set()
    for a in work.accesses:
        if a.arg is None or a.arg not in tensor_bytes:
            continue
        if a.gated:
            unknown[a.arg] = None
            continue
        n = a.distinct_bytes * math.prod(dims[x] for x in a.axes if x < 3)
        for lp in a.enclosing:
            if lp in a.loops:
                n *= _own(lp, plan, work.loop_parent)
                if lp in assumed:
                    byte_assumed.add(lp)
        if a.data_dependent:  # a gather: which of its elements are distinct is in the data; no more than it loads
            if a.arg not in unknown or unknown[a.arg] is not None:
                unknown[a.arg] = (unknown.get(a.arg) or 0.0) + n
            continue
        per_arg[a.arg] = per_arg.get(a.arg, 0.0) + n
    must = sum(min(v, tensor_bytes[k]) for k, v in per_arg.items())
    if must:
        us = must / (m.value("hbm_peak_gbs") * 1e9) * 1e6
        what = (
            f"the {must / 1e6:.3g} MB its loads and stores must touch at least once ({', '.join(sorted(per_arg))}: "
            "the distinct elements of each access x the programs and iterations its address follows, each tensor "
            "capped at its size) at peak HBM bandwidth"
        )
        out.append(Floor("hbm_bandwidth", us, what, sorted(byte_assumed)))
    return out, unknown


def judge(kernel_us: float, floors: list[Floor], device: str) -> tuple[Floor | None, list[Assumption], list[str]]:
    """(the floor to raise the prediction to, the assumptions, notes) for a predicted kernel time: the highest floor
    read from the code alone that the time is under raises it (a fact: the kernel cannot be faster); a higher one
    that counts a loop's assumed trips makes the prediction abstain (band undetermined), naming it."""
    known = [f for f in floors if not f.assumed and f.us > kernel_us]
    raised = max(known, key=lambda f: f.us, default=None)
    level = raised.us if raised else kernel_us
    out, notes = [], []
    if raised:
        why = (
            f"the model's terms give {kernel_us:.2f} us, under the {raised.us:.2f} us {device} needs for {raised.what}: "
            f"raised to that floor (a term the model counts from the ISA, such as an unroll or the bytes of a "
            f"replicated load, is likely misread)"
        )
        notes.append(why)
        out.append(Assumption(f"raised to a floor: {why}"))
    for f in floors:
        if f.assumed and f.us > level:
            out.append(
                Assumption(
                    f"the predicted {level:.2f} us is under the {f.us:.2f} us {device} needs for {f.what}, counted "
                    f"with loop(s) {', '.join(f'scf.for #{i + 1}' for i in f.assumed)} at their assumed trips: the "
                    "floor is as uncertain as the prediction, so no time is claimed (measure on a GPU)",
                    low=None,
                    high=None,
                    decides=True,
                )
            )
    return raised, out, notes


def launch_floors(
    ttir: str, plan: list | None, raw_plan: list | None, grid: list[int], programs: int, arguments, kernel_us: float,
    m: Machine, bound: str | None = None,
) -> tuple[Floor | None, list[Assumption], list[str], int | None]:  # fmt: skip
    """``judge`` on one launch from its TTIR, trip plan (``raw_plan``: before assumed trips were filled in) and
    recorded arguments; also the bytes of the tensors whose footprint is unknown (for the whole-tensor floor of
    ``tools.predict.evidence.floor_assumptions``; None when every tensor's footprint was counted). A gather's
    distinct rows widen the band (``gather_assumptions``) where the model's ``bound`` is its DRAM bytes."""
    from tools.predict.evidence import matrix_flops

    work = source_work(ttir)
    plan = plan or []
    if len(plan) != len(work.loop_parent):
        return None, [], [], None  # the plan is not the TTIR's loops (the CPU engine's counts): no floor is read
    assumed = {i for i, t in enumerate(raw_plan or []) if t.trips is None}
    sizes = {a.name: a.nbytes for a in arguments or [] if a.kind == "tensor" and a.nbytes}
    floors, unknown = device_floors(work, plan, assumed, grid, programs, sizes, matrix_flops(plan, programs), m)
    raised, rests, notes = judge(kernel_us, floors, m.name)
    counted = {a.arg for a in work.accesses if a.arg in sizes}
    rest = sum(
        b if n not in counted or unknown.get(n, 0.0) is None else min(b, unknown[n])
        for n, b in sizes.items()
        if n in unknown or n not in counted
    )
    if bound == "hbm_bandwidth":  # elsewhere fewer distinct rows leave the time as it is (a latency chain)
        rests += gather_assumptions({n: min(sizes[n], v) for n, v in unknown.items() if v}, kernel_us, m)
    return raised, rests, notes, int(rest) or None


def gather_assumptions(gathered: dict[str, float], kernel_us: float, m: Machine) -> list[Assumption]:
    """A gather (``table[idx]``: a load whose address comes from loaded data) touches the distinct rows its indices
    name, which the code does not say: the model's DRAM bytes count every element it loads as distinct (at most the
    tensor), the top of what it can move. Repeated indices move less: the band's low end widens by the share of the
    kernel's time those bytes take at the achievable HBM bandwidth (the time without them)."""
    total = sum(gathered.values())
    if not total or kernel_us <= 0:
        return []
    us = total / (m.value("hbm_achievable_gbs") * 1e9) * 1e6
    low = max(0.0, 1.0 - us / kernel_us)
    if low >= 0.98:
        return []
    names = ", ".join(sorted(gathered))
    return [
        Assumption(
            f"{names}: read at addresses from loaded data (a gather); the distinct rows its indices name are not "
            f"counted (the indices' values are not read), so its {total / 1e6:.3g} MB are taken as all distinct, "
            f"the most it can move: repeated indices move less (band low x{low:.2f})",
            low=round(low, 4),
        )
    ]
