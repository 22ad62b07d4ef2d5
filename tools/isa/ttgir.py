"""Triton GPU IR (TTGIR) text → layouts, tensor values per lane, and the tile values live across whole-tile ops.

Pure text functions over the ``ttgir`` stage dump-ir keeps. What it answers for vgpr-pressure:

- how many elements of each tensor one lane holds, from its layout (``#ttg.blocked<{sizePerThread, threadsPerWarp,
  warpsPerCTA}>``) and shape, and how that changes with ``num_warps``;
- which tile values must be held in registers at once: at an op that needs the whole tile before it produces
  (``tt.reduce``, ``tt.scan``, ``tt.dot``, ``ttg.convert_layout``), every tensor defined before it and used after
  it is live, plus its own input. Element-wise chains between such ops can be fused by the compiler, so these are
  the copies the register file cannot avoid;
- per load: the contiguous elements per lane its layout allows, and which kernel arguments carry no
  ``tt.divisibility`` (what makes Triton keep a load narrow).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from tools.isa.amdgcn import SourceLoc
from tools.isa.source_attr import LIBRARY_DIR_MARKERS, callee_at
from tools.isa.ttir import LOC_DEF_RE as _LOC_DEF_RE
from tools.isa.ttir import VALUE_RE as _VALUE_RE

WHOLE_TILE_OPS = ("tt.reduce", "tt.scan", "tt.dot", "ttg.convert_layout", "tt.histogram", "tt.dot_scaled")
LOAD_OPS = ("tt.load", "amdg.buffer_load", "ttg.async_copy_global_to_local", "amdg.buffer_load_to_local")
STORE_OPS = ("tt.store", "amdg.buffer_store")

_LAYOUT_DEF_RE = re.compile(r"^(#[\w.]+)\s*=\s*#ttg\.(\w+)<(.*)>\s*$")
_LIST_RE = r"\s*=\s*\[([\d,\s]*)\]"
_RESULT_RE = re.compile(r"^(%[\w.$-]+)(?::\d+)?\s*=\s*\"?([\w.]+)\"?")
_TRAILING_LOC_RE = re.compile(r"\s+loc\((#loc\d*)\)\s*$")
_ARG_RE = re.compile(r"(%[\w.$-]+):\s*([^{%]+?)(\{[^}]*\})?\s+loc\(")


def _ints(attrs: str, key: str) -> list[int]:
    m = re.search(key + _LIST_RE, attrs)
    return [int(x) for x in m.group(1).split(",") if x.strip()] if m else []


@dataclass
class Layout:
    name: str
    kind: str  # "blocked" | "slice" | other encoding names (mma, linear, dot_op …)
    size_per_thread: list[int] = field(default_factory=list)
    threads_per_warp: list[int] = field(default_factory=list)
    warps_per_cta: list[int] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    parent: str | None = None
    dim: int | None = None
    text: str = ""


@dataclass
class TensorType:
    shape: list[int]
    element: str
    encoding: str | None

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def bits(self) -> int:
        e = self.element
        if e.startswith("!tt.ptr"):
            return 64
        m = re.search(r"(\d+)", e)
        return int(m.group(1)) if m and e[:1] in "fib" else 32

    def __str__(self) -> str:
        return f"tensor<{'x'.join(map(str, self.shape))}x{self.element}>"


@dataclass
class Frame:
    file: str
    line: int
    column: int
    directory: str = ""

    @property
    def is_library(self) -> bool:
        return any(m in self.directory for m in LIBRARY_DIR_MARKERS)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class Op:
    index: int
    name: str  # "tt.reduce", "arith.addf" …
    result: str | None  # "%xc_6"
    result_type: TensorType | None
    operands: list[str]
    text: str
    var: str | None = None  # the user's variable name Triton kept in the loc ("xc")
    frames: list[Frame] = field(default_factory=list)  # innermost first
    body: list[Op] = field(default_factory=list)  # an scf.for's ops (its region, parsed)

    @property
    def user_frame(self) -> Frame | None:
        return next((f for f in self.frames if not f.is_library), None)

    @property
    def where(self) -> str:
        """The user's line; ``kernel.py:7 via kernel.py:15`` inside a helper (its outermost user call site)."""
        users = [f for f in self.frames if not f.is_library]
        if not users:
            return "?"
        outer = users[-1]
        return f"{users[0]} via {outer}" if str(outer) != str(users[0]) else str(users[0])

    @property
    def label(self) -> str:
        """``xc (kernel.py:22)``: the value's name and the user's line."""
        return f"{self.var or (self.result or '').lstrip('%')} ({self.where})"


@dataclass
class TtgirModule:
    num_warps: int
    threads_per_warp: int
    shared_bytes: int | None
    layouts: dict[str, Layout]
    ops: list[Op]
    args: dict[str, tuple[str, bool]]  # %name -> (type, has tt.divisibility)
    kernel: str | None = None
    _by_result: dict[str, Op] | None = field(default=None, repr=False)

    @property
    def flat_ops(self) -> list[Op]:
        """Every op in text order, a loop's body right after the loop op: ``flat_ops[i].index == i``."""
        out: list[Op] = []

        def walk(ops: list[Op]) -> None:
            for o in ops:
                out.append(o)
                walk(o.body)

        walk(self.ops)
        return out

    def defining(self, value: str) -> Op | None:
        """The op (top level or in a loop body) whose result ``value`` is (None for arguments and values local to a
        region that is not parsed, such as a reduce's combiner)."""
        if self._by_result is None:  # ops are fixed once parsed: index them on first use
            self._by_result = {o.result: o for o in self.flat_ops if o.result}
        return self._by_result.get(value)


def _parse_layout(name: str, kind: str, body: str) -> Layout:
    lay = Layout(name=name, kind=kind, text=body)
    if kind == "blocked":
        lay.size_per_thread = _ints(body, "sizePerThread")
        lay.threads_per_warp = _ints(body, "threadsPerWarp")
        lay.warps_per_cta = _ints(body, "warpsPerCTA")
        lay.order = _ints(body, "order")
    elif kind == "slice":
        m = re.search(r"dim\s*=\s*(\d+)", body)
        p = re.search(r"parent\s*=\s*(#[\w.]+)", body)
        lay.dim = int(m.group(1)) if m else None
        lay.parent = p.group(1) if p else None
    return lay


def parse_tensor_type(text: str) -> TensorType | None:
    """``tensor<64x32xf16, #blocked>`` → TensorType; None for anything that is not a ranked tensor."""
    start = text.find("tensor<")
    if start < 0:
        return None
    depth, i = 0, start + len("tensor")
    for i in range(start + len("tensor"), len(text)):
        depth += {"<": 1, ">": -1}.get(text[i], 0)
        if depth == 0:
            break
    inner = text[start + len("tensor<") : i]
    depth, cut = 0, len(inner)
    for j, c in enumerate(inner):
        depth += {"<": 1, ">": -1, "{": 1, "}": -1}.get(c, 0)
        if c == "," and depth == 0:
            cut = j
            break
    head, enc = inner[:cut], inner[cut + 1 :].strip() or None
    m = re.match(r"((?:\d+x)+)(.+)", head.strip())
    if not m:
        return None
    shape = [int(x) for x in m.group(1).rstrip("x").split("x")]
    return TensorType(shape=shape, element=m.group(2).strip(), encoding=enc)


def _split_top(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for c in text:
        depth += {"<": 1, ">": -1, "(": 1, ")": -1, "{": 1, "}": -1, "[": 1, "]": -1}.get(c, 0)
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def _result_type(op_name: str, stmt: str) -> TensorType | None:
    """The result type from an op's trailing signature (``: T``, ``: (A) -> R`` or ``: A, B`` for select)."""
    last = _TRAILING_LOC_RE.sub("", stmt.rstrip().splitlines()[-1])
    if "->" in last:
        sig = last.rsplit("->", 1)[1]
    elif " : " in last:
        sig = last.rsplit(" : ", 1)[1]
    else:
        return None
    parts = _split_top(sig)
    if not parts:
        return None
    # tt.addptr lists (pointer, offset): the result is the pointer; arith.select lists (condition, value).
    t = parse_tensor_type(parts[0] if op_name == "tt.addptr" else parts[-1])
    if t is None:
        return None
    if op_name in ("arith.cmpi", "arith.cmpf"):
        t.element = "i1"
    elif op_name == "tt.load" and "->" not in last:
        m = re.match(r"!tt\.ptr<([^,>]+)", t.element)  # `tt.load %p : tensor<Nx!tt.ptr<f32>>` yields f32 values
        if m:
            t.element = m.group(1)
    return t


def _resolve_locs(defs: dict[str, str]) -> dict[str, tuple[str | None, list[Frame]]]:
    """#locN → (variable name, frames innermost first) through name(...) and callsite(A at B) wrappers."""
    memo: dict[str, tuple[str | None, list[Frame]]] = {}

    def resolve(expr: str, depth: int = 0) -> tuple[str | None, list[Frame]]:
        expr = expr.strip()
        if depth > 32:
            return None, []
        if expr.startswith("#loc"):
            if expr not in memo:
                memo[expr] = (None, [])
                memo[expr] = resolve(defs.get(expr, "unknown"), depth + 1)
            return memo[expr]
        if expr.startswith("callsite("):
            inner = expr[len("callsite(") : -1]
            callee, _, caller = inner.rpartition(" at ")
            n1, f1 = resolve(callee, depth + 1)
            n2, f2 = resolve(caller, depth + 1)
            return n1 or n2, f1 + f2
        m = re.match(r'^"([^"]*)"\s*:\s*(\d+)\s*:\s*(\d+)', expr)
        if m:
            path = m.group(1)
            directory, _, name = path.rpartition("/")
            return None, [Frame(name, int(m.group(2)), int(m.group(3)), directory)]
        m = re.match(r'^"([^"]*)"\s*\((.*)\)$', expr)
        if m:
            _, frames = resolve(m.group(2), depth + 1)
            return m.group(1), frames
        return None, []

    return {k: resolve(k) for k in defs}


def _statements(lines: list[str], start: int) -> list[tuple[str, int]]:
    """The statements of the region opened on ``lines[start]``: each with its continuation lines joined (stripped),
    and the line it starts on."""
    stmts: list[tuple[str, int]] = []
    body_indent = None
    for n in range(start + 1, len(lines)):
        ln = lines[n]
        if not ln.strip():
            continue
        indent = len(ln) - len(ln.lstrip())
        if body_indent is None:
            body_indent = indent
        if indent < body_indent:
            break
        if indent == body_indent and not ln.lstrip().startswith(("}", "^")):
            stmts.append((ln.strip(), n))
        elif stmts:
            stmts[-1] = (stmts[-1][0] + "\n" + ln.strip(), stmts[-1][1])
    return stmts


def _ops(lines: list[str], start: int, locs, counter: list[int]) -> list[Op]:
    """The ops of the region opened on ``lines[start]``, numbered in text order; an ``scf.for``'s body is parsed
    into its ``body`` (so a loop's ops follow the loop op in :attr:`TtgirModule.flat_ops`)."""
    ops: list[Op] = []
    for stmt, line_no in _statements(lines, start):
        first = stmt.splitlines()[0]
        m = _RESULT_RE.match(first)
        if m:
            result, name = m.group(1), m.group(2)
        else:
            nm = re.match(r"\"?([\w.]+)", first)
            if nm is None:
                continue  # a block label or anything else that is not an op
            result, name = None, nm.group(1)
        inner_defs = set(re.findall(r"(%[\w.$-]+)(?::\d+)?\s*=", stmt))
        for bb in re.findall(r"^\^bb\d*\((.*)$", stmt, re.M):  # region block arguments
            inner_defs |= set(re.findall(r"(%[\w.$-]+):", bb))
        operands = [v for v in dict.fromkeys(_VALUE_RE.findall(stmt)) if v != result and v not in inner_defs]
        lm = _TRAILING_LOC_RE.search(stmt.splitlines()[-1])
        var, frames = locs.get(lm.group(1), (None, [])) if lm else (None, [])
        op = Op(
            index=counter[0],
            name=name,
            result=result,
            result_type=_result_type(name, stmt) if result else None,
            operands=operands,
            text=stmt,
            var=var,
            frames=frames,
        )
        counter[0] += 1
        ops.append(op)
        if name == "scf.for":
            op.body = _ops(lines, line_no, locs, counter)
    return ops


def parse_ttgir(text: str) -> TtgirModule:
    """The public kernel function of a TTGIR module: its top-level ops (a region op is one op; an ``scf.for``
    keeps its body's ops in ``body``), layouts, locs."""
    layouts: dict[str, Layout] = {}
    loc_defs: dict[str, str] = {}
    for line in text.splitlines():
        s = line.strip()
        m = _LAYOUT_DEF_RE.match(s)
        if m:
            layouts[m.group(1)] = _parse_layout(m.group(1), m.group(2), m.group(3))
            continue
        m = _LOC_DEF_RE.match(s)
        if m:
            loc_defs[m.group(1)] = m.group(2)
    locs = _resolve_locs(loc_defs)
    nw = re.search(r'"ttg\.num-warps"\s*=\s*(\d+)', text)
    tpw = re.search(r'"ttg\.threads-per-warp"\s*=\s*(\d+)', text)
    shared = re.search(r"ttg\.shared\s*=\s*(\d+)", text)

    lines = text.splitlines()
    start = next((n for n, ln in enumerate(lines) if re.match(r"\s*tt\.func\s+public\b", ln)), None)
    args: dict[str, tuple[str, bool]] = {}
    kernel = None
    ops: list[Op] = []
    if start is not None:
        head = lines[start]
        km = re.search(r"@([\w$.]+)\(", head)
        kernel = km.group(1) if km else None
        for am in _ARG_RE.finditer(head):
            args[am.group(1)] = (am.group(2).strip(), "tt.divisibility" in (am.group(3) or ""))
        ops = _ops(lines, start, locs, [0])
    return TtgirModule(
        num_warps=int(nw.group(1)) if nw else 4,
        threads_per_warp=int(tpw.group(1)) if tpw else 64,
        shared_bytes=int(shared.group(1)) if shared else None,
        layouts=layouts,
        ops=ops,
        args=args,
        kernel=kernel,
    )


# --- per-lane counts -----------------------------------------------------------------------------------------


def elements_per_lane(mod: TtgirModule, t: TensorType, num_warps: int | None = None) -> int:
    """Elements of ``t`` one lane holds. Blocked and slice layouts exactly (a dimension smaller than the layout's tile
    is replicated, not split); other layouts, and any other ``num_warps``, as numel / lanes (Triton's default layouts
    split a large enough tile evenly), never fewer than the layout's own elements per lane."""
    own = _layout_elements(mod, t.shape, t.encoding)
    if num_warps is None or num_warps == mod.num_warps:
        return own if own is not None else max(1, math.ceil(t.numel / (mod.threads_per_warp * mod.num_warps)))
    return max(1, math.ceil(t.numel / (mod.threads_per_warp * num_warps)))


def _layout_elements(mod: TtgirModule, shape: list[int], enc: str | None) -> int | None:
    lay = mod.layouts.get(enc or "")
    if lay is None and enc and enc.startswith("#ttg.slice"):
        lay = _parse_layout(enc, "slice", enc)
    if lay is None:
        return None
    if lay.kind == "slice" and lay.parent and lay.dim is not None:
        parent = mod.layouts.get(lay.parent)
        if parent is None or parent.kind != "blocked":
            return None
        full = shape[: lay.dim] + [1] + shape[lay.dim :]
        per = _blocked_dims(parent, full)
        return math.prod(p for d, p in enumerate(per) if d != lay.dim) if per else None
    if lay.kind == "blocked":
        per = _blocked_dims(lay, shape)
        return math.prod(per) if per else None
    return None


def _blocked_dims(lay: Layout, shape: list[int]) -> list[int] | None:
    if not (len(lay.size_per_thread) == len(lay.threads_per_warp) == len(lay.warps_per_cta) == len(shape)):
        return None
    out = []
    for d, n in enumerate(shape):
        tile = lay.size_per_thread[d] * lay.threads_per_warp[d] * lay.warps_per_cta[d]
        out.append(math.ceil(n / tile) * lay.size_per_thread[d])
    return out


def registers_per_lane(mod: TtgirModule, t: TensorType, num_warps: int | None = None) -> int:
    """32-bit registers the tensor takes per lane (i1 masks count 0: they live in SGPR lane masks or VCC)."""
    if t.bits == 1:
        return 0
    return math.ceil(elements_per_lane(mod, t, num_warps) * t.bits / 32)


# --- tile values live across whole-tile ops -------------------------------------------------------------------


@dataclass
class HeldValue:
    op: Op  # the defining op
    role: str  # "input" (what the op consumes) or "held" (defined before, used after)
    next_use: Op | None  # the first use after the whole-tile op (why it is held)


@dataclass
class TilePeak:
    """The whole-tile op where the most tile registers are live, and what they are."""

    at: Op
    values: list[HeldValue]

    def registers(self, mod: TtgirModule, num_warps: int | None = None, *, index: bool | None = None) -> int:
        """Registers per lane of the values here; ``index`` True/False counts only index/data tensors."""
        return sum(
            registers_per_lane(mod, v.op.result_type, num_warps)
            for v in self.values
            if v.op.result_type and (index is None or is_index(mod, v.op) == index)
        )


def mask_sgprs(mod: TtgirModule, values: list[HeldValue], num_warps: int | None = None) -> int:
    """SGPRs the held i1 tensors take when each element per lane is a lane mask (a ``v_cmp`` result): an SGPR pair
    per element on wave64, one SGPR on wave32."""
    per = 2 if mod.threads_per_warp == 64 else 1
    return sum(
        per * elements_per_lane(mod, v.op.result_type, num_warps)
        for v in values
        if v.op.result_type is not None and v.op.result_type.bits == 1
    )


def is_index(mod: TtgirModule, op: Op) -> bool:
    """An integer tensor computed without loading anything (``tl.arange`` offsets, masks' operands): the compiler
    may hold it per element (scalar loads need per-element offsets) or rebuild it from the lane id."""
    t = op.result_type
    if t is None or t.element.startswith(("f", "bf", "!tt.ptr")) or t.bits == 1:
        return False
    stack, seen = [op], set()
    while stack:
        o = stack.pop()
        if o.index in seen:
            continue
        seen.add(o.index)
        if o.name in LOAD_OPS:
            return False
        stack.extend(d for d in (mod.defining(v) for v in o.operands) if d is not None)
    return True


def tile_peak(mod: TtgirModule) -> TilePeak | None:
    """The whole-tile op (reduce, scan, dot, convert_layout) with the most tensor registers live across it; over
    every op when the kernel has none. Inside an ``scf.for`` a value defined before the loop and used in its body
    is live at every op of the body (the next iteration reads it again). None when no tensor value is live
    anywhere, or when the kernel has a region this view does not parse (``scf.if``, ``scf.while``)."""
    flat = mod.flat_ops
    if any(o.name.startswith("scf.") and o.name not in ("scf.for", "scf.yield") for o in flat):
        return None  # a region's body is one op here: what is live inside it is not seen (the ISA's hot loop is)
    # A splat or a constant holds one value for the whole tile: it costs a register or none, never a tile.
    defs = {
        o.result: o
        for o in flat
        if o.result and o.result_type is not None and o.name not in ("tt.splat", "arith.constant")
    }
    uses: dict[str, list[int]] = {}
    for o in flat:
        if o.name == "scf.for":
            continue  # its operands are its body's: the body's ops are the uses
        for v in o.operands:
            uses.setdefault(v, []).append(o.index)
    loops = [(o.index, _last_index(o)) for o in flat if o.name == "scf.for" and o.body]
    points = [o for o in flat if o.name in WHOLE_TILE_OPS] or list(flat)
    best: TilePeak | None = None
    best_regs = -1
    for p in points:
        held: list[HeldValue] = []
        for v, d in defs.items():
            u = uses.get(v, [])
            if d.index >= p.index or not u:
                continue
            after = [i for i in u if i > p.index]
            for first, last in loops:  # a value from outside a loop that contains p, used in that loop
                if d.index < first < p.index <= last and not after:
                    after = [i for i in u if first < i <= last]
            if v in p.operands:
                held.append(HeldValue(d, "input", flat[after[0]] if after else None))
            elif after:
                held.append(HeldValue(d, "held", flat[after[0]]))
        peak = TilePeak(at=p, values=held)
        regs = peak.registers(mod)
        if regs > best_regs:
            best, best_regs = peak, regs
    return best if best is not None and best_regs > 0 else None


def _last_index(op: Op) -> int:
    """The index of the last op inside ``op``'s body (nested loops included)."""
    return _last_index(op.body[-1]) if op.body else op.index


# --- loads ---------------------------------------------------------------------------------------------------


def contiguous_elements(mod: TtgirModule, t: TensorType) -> int | None:
    """Contiguous elements per lane along the fastest dimension (``sizePerThread[order[0]]``): the widest vector the
    layout allows a load of ``t`` to be, in elements."""
    lay = mod.layouts.get(t.encoding or "")
    if lay is None or lay.kind != "blocked" or not lay.order:
        return None
    return lay.size_per_thread[lay.order[0]]


def arguments_feeding(mod: TtgirModule, value: str, depth: int = 24) -> set[str]:
    """Kernel arguments a value is computed from (through its defining ops)."""
    out: set[str] = set()
    seen: set[str] = set()
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if v in seen or d > depth:
            continue
        seen.add(v)
        if v in mod.args:
            out.add(v)
            continue
        op = mod.defining(v)
        if op is not None:
            stack.extend((o, d + 1) for o in op.operands)
    return out


_OP_WORDS = {
    "arith.mulf": "*",
    "arith.addf": "+",
    "arith.subf": "-",
    "arith.divf": "/",
    "arith.muli": "*",
    "arith.addi": "+",
    "arith.select": "tl.where",
    "tt.reduce": "reduction",
    "tt.scan": "scan",
    "tt.dot": "tl.dot",
    "ttg.convert_layout": "convert_layout",
}


def describe_use(op: Op) -> str:
    """``the load at kernel.py:24``: what an op is, in words a kernel author reads."""
    if op.name in LOAD_OPS:
        word = "load"
    elif op.name in STORE_OPS:
        word = "store"
    else:
        word = _OP_WORDS.get(op.name, op.name.rsplit(".", 1)[-1])
        f = op.user_frame
        if f is not None and op.frames and op.frames[0].is_library:  # a library call (tl.sum): name it as written
            word = callee_at(SourceLoc(f.file, f.line, f.column, f.directory)) or word
    return f"the {word} at {op.where}"
