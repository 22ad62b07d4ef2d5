"""Trip counts from MLIR with ``scf.for`` loops: the bounds evaluated on the launch's scalar arguments and program ids.

Triton's TTIR (``tt.func``, arguments from the launch) and FlyDSL's origin stage (``gpu.func``, whose runtime scalars
come from the recorded ``@flyc.jit`` call through the host ``func.func`` and its ``gpu.launch_func``: ``flydsl_loops``).
Only scalar integer arithmetic is evaluated (``arith.*`` on i32/i64/index, ``tt.get_program_id`` / ``gpu.block_id``,
``tt.get_num_programs`` / ``gpu.grid_dim``); a bound that depends on a loaded value, a thread id or a loop-carried
value is unknown (its loop's trips are None), and the caller falls back to a stated assumption for that loop.
Programs are sampled (every program up to ``MAX_PROGRAMS``, evenly spread above), inner loops for up to
``MAX_OUTER`` outer iterations (scaled to the rest); where nested loops would make that walk longer than
``MAX_EVALUATED_OPS`` operations, fewer programs and iterations are sampled (``sampling``; the evidence says so), and
the walk stops at predict's --timeout (``tools.predict.bounds``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from tools.isa.ttir import ARG_RE as _ARG_RE
from tools.isa.ttir import FOR_RE as _FOR_RE
from tools.isa.ttir import LOC_RE as _LOC_RE
from tools.isa.ttir import LOC_REF_RE as _LOC_REF_RE
from tools.isa.ttir import OP_RE as _OP_RE
from tools.isa.ttir import loc_lines
from tools.predict import bounds
from tools.predict.loaded import compile_loaded as _compile_loaded
from tools.predict.loaded import seed_tensors as _seed_tensors

MAX_PROGRAMS = 256
MAX_OUTER = 64
MAX_EVALUATED_OPS = 1 << 20  # operations one evaluation walks, over every program sampled (~1-2 s of Python)

_TENSOR_RE = re.compile(r"tensor<([\dx]+)x(?:!tt\.ptr<)?(\w+)")
_SCALAR_PTR_RE = re.compile(r"^!tt\.ptr<(\w+)>")
_VECTOR_RE = re.compile(r"vector<([\dx]+)x(\w+)>")
_BLOCK_SIZE_RE = re.compile(r"known_block_size = array<i32: ([\d, ]+)>")
# FlyDSL's global accesses (raw buffer loads/stores, LDS DMA not included): per lane, the value's type last
_FLY_ACCESS_RE = re.compile(r"rocdl\.raw(?:\.ptr)?\.buffer\.(?:load|store)\s")
# a matrix product: Triton's tt.dot / tt.dot_scaled (operand types A: M x K, B: K x N), FlyDSL's rocdl.mfma (per wave)
_DOT_RE = re.compile(r"\btt\.dot(?:_scaled)?\b.*?:\s*tensor<(\d+)x(\d+)x[^>]*>.*?tensor<\d+x(\d+)x")
_FLY_MFMA_RE = re.compile(r"\brocdl\.(?:mfma|smfmac)\.\w*?(\d+)x(\d+)x(\d+)")
_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}


def _elem_bytes(name: str) -> int:
    if name.startswith("f8") or name.startswith("f4"):
        return 1
    return _BYTES.get(name, 4)


def access_bytes(type_text: str) -> int:
    """Bytes one tt.load / tt.store moves per program, from its pointer or value type."""
    m = _TENSOR_RE.search(type_text)
    if m:
        return math.prod(int(d) for d in m.group(1).split("x")) * _elem_bytes(m.group(2))
    m = _SCALAR_PTR_RE.match(type_text.strip())
    return _elem_bytes(m.group(1)) if m else 0


def lane_bytes(type_text: str) -> int:
    """Bytes one lane's access moves, from its value type (``vector<2xi32>`` → 8, ``f32`` → 4)."""
    m = _VECTOR_RE.search(type_text)
    if m:
        return math.prod(int(d) for d in m.group(1).split("x")) * _elem_bytes(m.group(2))
    t = type_text.strip()
    return _elem_bytes(t) if re.fullmatch(r"[if]\d+|bf16", t) else 0


@dataclass
class _Node:
    line: str
    children: list[_Node] = field(default_factory=list)
    is_for: bool = False
    loop_id: int = -1
    depth: int = 0
    bytes_per_iter: int = 0
    accesses: list = field(default_factory=list)  # (elements, bytes per element) of each own load/store
    step: int | None = None
    matrix_flops_per_iter: int = 0
    flatten: bool = False  # an scf.for marked {tt.flatten} (tl.range(..., flatten=True))
    loc: str | None = None  # the location its closing line names (``#loc6`` or an inline ``"file":line:col``)
    gate_unknown: bool = False  # an scf.if whose condition the evaluation could not decide (a loaded value)
    nested: bool = False  # a loop with a loop inside: only then does the evaluation walk its iterations
    # the line parsed once for the evaluator (_prepared): it runs once per program and sampled iteration
    prep: tuple | None = field(default=None, repr=False, compare=False)


@dataclass
class TtirLoop:
    depth: int
    trips: float | None  # iterations per program, summed over the loops around it (mean over programs)
    max_trips: float | None
    bytes_per_iter: int  # global bytes the loop body's own loads/stores move per program per iteration
    step: int | None = None  # the step of the first evaluated run
    # multiply-adds of the loop body's own matrix products per program per iteration (Triton's tt.dot M x N x K,
    # FlyDSL's rocdl.mfma m x n x k x its waves); 0 when the body has none
    matrix_flops_per_iter: int = 0
    # the loop sits in an scf.if whose condition reads a loaded value (not evaluated: the loop is counted as run):
    # the tensor bytes that region stores per program, by the pointer argument they go to (empty when it stores none)
    gate_stores: dict[str, int] | None = None
    # (elements, bytes per element) of each load/store of the loop body's own, per program (a scalar load: 1
    # element); tools.predict.work.lane_bytes reads what the program's lanes request from them
    accesses: tuple[tuple[int, int], ...] = ()
    # a loop the compiler made by merging a ``tl.range(..., flatten=True)`` nest (``fused_loops``): the outer loop's
    # iterations per program (the persistent program's tiles), each of which runs the epilogue once
    fused_outer_trips: float | None = None
    line: int | None = None  # the source line of its ``for`` (the scf.for's loc): how --trips names it
    flatten: bool = False  # marked {tt.flatten}: tl.range(..., flatten=True), a nest the compiler merges


def access_shape(type_text: str) -> tuple[int, int]:
    """(elements, bytes per element) one tt.load / tt.store moves per program (a scalar access: 1 element)."""
    m = _TENSOR_RE.search(type_text)
    if m:
        return math.prod(int(d) for d in m.group(1).split("x")), _elem_bytes(m.group(2))
    m = _SCALAR_PTR_RE.match(type_text.strip())
    return (1, _elem_bytes(m.group(1))) if m else (0, 0)


def _tree(text: str, head: str = "tt.func") -> tuple[list[str], list[_Node], list[_Node]]:
    """The function that opens with the line prefix ``head``: its argument names, its op tree and its loops."""
    args: list[str] = []
    threads = 1
    root: list[_Node] = []
    stack: list[list[_Node]] = [root]
    parents: list[_Node] = []
    loops: list[_Node] = []
    in_func = False
    for raw in text.splitlines():
        line = _LOC_RE.sub("", raw).rstrip()
        s = line.strip()
        if not in_func:
            if s.startswith(head):
                in_func = True
                sig = s[s.index("(") + 1 :]
                args = [m.group(1) for m in _ARG_RE.finditer(sig)]
                size = _BLOCK_SIZE_RE.search(s)
                threads = math.prod(int(v) for v in size.group(1).split(",")) if size else 1
            continue
        if s.startswith("}"):
            if len(stack) == 1:
                break
            if parents[-1].is_for:
                parents[-1].flatten = "tt.flatten" in s
                ref = _LOC_REF_RE.search(raw)
                parents[-1].loc = ref.group(1) if ref else None
            stack.pop()
            parents.pop()
            if s.endswith("{"):  # "} else {"
                node = _Node(s)
                stack[-1].append(node)
                stack.append(node.children)
                parents.append(node)
            continue
        node = _Node(s)
        stack[-1].append(node)
        if s.startswith(("tt.load", "tt.store")) or " tt.load " in s or "tt.descriptor_load" in s:
            owner = next((p for p in reversed(parents) if p.is_for), None)
            if owner is not None:
                owner.bytes_per_iter += access_bytes(s.rsplit(" : ", 1)[-1])
                owner.accesses.append(access_shape(s.rsplit(" : ", 1)[-1]))
        elif _FLY_ACCESS_RE.search(s):
            owner = next((p for p in reversed(parents) if p.is_for), None)
            if owner is not None:  # per lane x the workgroup's threads: per program, like TTIR's
                owner.bytes_per_iter += lane_bytes(s.rsplit(" : ", 1)[-1]) * threads
        dot = _DOT_RE.search(s) or _FLY_MFMA_RE.search(s)
        if dot:
            owner = next((p for p in reversed(parents) if p.is_for), None)
            if owner is not None:  # tt.dot is per program; rocdl.mfma per wave (64 lanes) of the workgroup
                per = 1 if dot.re is _DOT_RE else max(1, threads // 64)
                owner.matrix_flops_per_iter += math.prod(int(v) for v in dot.groups()) * per
        if s.endswith("{"):
            if _FOR_RE.search(s):
                node.is_for = True
                node.loop_id = len(loops)
                node.depth = 1 + sum(1 for p in parents if p.is_for)
                for p in parents:
                    p.nested = p.nested or p.is_for
                loops.append(node)
            stack.append(node.children)
            parents.append(node)
    return args, root, loops


_BIN = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: int(a / b) if b else None,
    "arith.divui": lambda a, b: a // b if b else None,
    "arith.floordivsi": lambda a, b: a // b if b else None,
    "arith.ceildivsi": lambda a, b: -(-a // b) if b else None,
    "arith.ceildivui": lambda a, b: -(-a // b) if b else None,
    "arith.remsi": lambda a, b: int(math.fmod(a, b)) if b else None,
    "arith.remui": lambda a, b: a % b if b else None,
    "arith.maxsi": max,
    "arith.maxui": max,
    "arith.minsi": min,
    "arith.minui": min,
    "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
    "arith.shli": lambda a, b: a << b,
    "arith.shrsi": lambda a, b: a >> b,
    "arith.shrui": lambda a, b: a >> b,
}
_CMP = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b,
    "ult": lambda a, b: a < b,
    "ule": lambda a, b: a <= b,
    "ugt": lambda a, b: a > b,
    "uge": lambda a, b: a >= b,
}
_UNARY = ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui")


def _compile(line: str):
    """The line's effect on the scalar environment as ``(name, fn)`` with ``fn(env, pid, grid)`` giving the value or
    None, or None when the line defines no scalar the evaluation follows. Parsed once per line, not per evaluation."""
    m = _OP_RE.match(line)
    if not m or " : tensor<" in line or "tensor<" in m.group(3).split(" : ")[0]:
        return None
    name, op, rest = m.groups()
    body = rest.partition(" : ")[0]
    ops = [o.strip() for o in body.split(",")]
    tok = body.strip()
    if op == "arith.constant":
        if tok in ("true", "false"):
            const = tok == "true"
        elif re.fullmatch(r"-?\d+", tok):
            const = int(tok)
        else:
            return None
        return name, lambda env, pid, grid: const
    if op in ("tt.get_program_id", "gpu.block_id", "tt.get_num_programs", "gpu.grid_dim"):
        if tok[:1] not in "xyz" or not tok:
            return None
        axis = "xyz".index(tok[0])
        if op in ("tt.get_program_id", "gpu.block_id"):
            return name, lambda env, pid, grid: pid[axis]
        return name, lambda env, pid, grid: grid[axis]
    if op in _BIN and len(ops) == 2:
        fn, a, b = _BIN[op], ops[0], ops[1]

        def binary(env, pid, grid):
            x, y = env.get(a), env.get(b)
            return None if x is None or y is None else fn(int(x), int(y))

        return name, binary
    if op in _UNARY and len(ops) == 1:
        a = ops[0]
        return name, lambda env, pid, grid: env.get(a)
    if op == "arith.cmpi" and len(ops) == 3 and ops[0] in _CMP:
        fn, a, b = _CMP[ops[0]], ops[1], ops[2]

        def compare(env, pid, grid):
            x, y = env.get(a), env.get(b)
            return None if x is None or y is None else fn(x, y)

        return name, compare
    if op == "arith.select" and len(ops) == 3:
        c, a, b = ops

        def select(env, pid, grid):
            cond = env.get(c)
            return None if cond is None else (env.get(a) if cond else env.get(b))

        return name, select
    return None


_IF_RE = re.compile(r"scf\.if\s+(%[\w.$-]+)")


def _prepared(node: _Node) -> tuple:
    """``(effect, if_condition, closes_a_region, for_groups)`` of the node, parsed on first use."""
    if node.prep is None:
        branch = _IF_RE.search(node.line)
        loop = _FOR_RE.search(node.line) if node.is_for else None
        node.prep = (
            None if node.is_for else (_compile(node.line) or _compile_loaded(node.line)),
            branch.group(1) if branch else None,
            node.line.startswith("}"),
            loop.groups() if loop else None,
        )
    return node.prep


def _walk_ops(nodes: list[_Node], samples: int) -> int:
    """Operations a walk of ``nodes`` evaluates at most, ``samples`` iterations of each loop."""
    walked = {False: 1, True: samples}  # an scf.if's region once, a loop's body per sampled iteration
    return sum(1 + (walked[n.is_for] * _walk_ops(n.children, samples) if n.nested or not n.is_for else 0)
               for n in nodes)  # fmt: skip


def sampling(root: list[_Node], programs: int) -> tuple[int, int]:
    """(programs, iterations per loop) to sample: up to ``MAX_PROGRAMS`` and ``MAX_OUTER``, the larger halved in
    turn while the walk would pass ``MAX_EVALUATED_OPS`` (three or four nested runtime loops would take minutes)."""
    picks, samples = min(programs, MAX_PROGRAMS), MAX_OUTER
    while picks * _walk_ops(root, samples) > MAX_EVALUATED_OPS and (samples > 2 or picks > 1):
        if samples > 2 and (samples >= picks or picks == 1):
            samples //= 2
        else:
            picks //= 2
    return picks, samples


def _run(nodes: list[_Node], env: dict, pid, grid, counts: list[float | None], scale: float,
         most: int = MAX_OUTER) -> None:  # fmt: skip
    taken = None  # the last scf.if's condition, when known: which of its regions runs
    for node in nodes:
        effect, cond, closes, for_groups = node.prep or _prepared(node)
        if not node.is_for:
            if effect is not None:
                out = effect[1](env, pid, grid)
                if out is not None:
                    env[effect[0]] = out
            if cond is not None:
                taken = env.get(cond)
                if taken is False:
                    continue
                if taken is None:
                    node.gate_unknown = True
            elif closes and taken is True:
                continue  # "} else {" of an scf.if whose condition holds
            if node.children:
                _run(node.children, env, pid, grid, counts, scale, most)
            continue
        iv, lb, ub, st = for_groups
        lo, hi, step = env.get(lb), env.get(ub), env.get(st)
        if None in (lo, hi, step) or step <= 0:
            counts[node.loop_id] = None
            _mark_unknown(node.children, counts)
            continue
        trips = max(0, -(-(hi - lo) // step))
        node.step = node.step or step
        if counts[node.loop_id] is not None:
            counts[node.loop_id] += trips * scale
        samples = range(trips) if trips <= most else [round(k * (trips - 1) / (most - 1)) for k in range(most)]
        if not node.nested:  # nothing inside has bounds to evaluate (its values stay inside its region)
            continue
        inner_scale = scale * (trips / len(samples)) if trips else 0
        bounds.check("evaluating the loop bounds")
        for k in samples:
            env[iv] = lo + k * step
            _run(node.children, env, pid, grid, counts, inner_scale, most)


def _mark_unknown(nodes: list[_Node], counts: list) -> None:
    for n in nodes:
        if n.is_for:
            counts[n.loop_id] = None
        _mark_unknown(n.children, counts)


_STORE_RE = re.compile(r"^tt\.store\s+(%[\w.$-]+)")
_PTR_OPS = ("tt.addptr", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.reshape")


def _base_pointer(name: str, defs: dict[str, tuple[str, str]], args: list[str]) -> str | None:
    """The pointer argument a pointer value is offset from (through addptr / splat / broadcast), or None."""
    for _ in range(64):
        if name in args:
            return name.lstrip("%")
        op, operands = defs.get(name, ("", ""))
        if op not in _PTR_OPS:
            return None
        name = operands.split(",")[0].strip()
    return None


def _gate_stores(root: list[_Node], args: list[str]) -> dict[int, dict[str, int]]:
    """Per loop (its loop_id) under an scf.if whose condition was not decided, the tensor bytes that scf.if's region
    stores per program outside loops, by pointer argument."""
    defs: dict[str, tuple[str, str]] = {}

    def collect(nodes: list[_Node]) -> None:
        for n in nodes:
            m = _OP_RE.match(n.line)
            if m:
                defs[m.group(1)] = (m.group(2), m.group(3).split(" : ")[0])
            collect(n.children)

    collect(root)

    def stores(nodes: list[_Node], out: dict[str, int]) -> None:
        for n in nodes:
            hit = _STORE_RE.match(n.line)
            typ = n.line.rsplit(" : ", 1)[-1]
            if hit and "tensor<" in typ:
                base = _base_pointer(hit.group(1), defs, args)
                if base:
                    out[base] = out.get(base, 0) + access_bytes(typ)
            if not n.is_for:
                stores(n.children, out)

    def loops_in(nodes: list[_Node]) -> list[int]:
        return [n.loop_id for n in nodes if n.is_for] + [i for n in nodes for i in loops_in(n.children)]

    found: dict[int, dict[str, int]] = {}

    def walk(nodes: list[_Node]) -> None:
        for n in nodes:
            if n.gate_unknown:
                out: dict[str, int] = {}
                stores(n.children, out)
                for i in loops_in(n.children):
                    found.setdefault(i, out)
            walk(n.children)

    walk(root)
    return found


def ttir_loops(
    text: str,
    scalars: dict[str, int],
    grid: list[int] | None,
    head: str = "tt.func",
    tensors: dict[str, list[int]] | None = None,
) -> tuple[list[TtirLoop], str]:
    """Every ``scf.for`` of the kernel (the function whose line starts with ``head``) with its iterations per program
    on ``scalars`` (argument name or position → value) and ``tensors`` (a tensor argument's recorded values, by name
    or position: a scalar ``tt.load`` from it is evaluated, see ``tools.predict.loaded``), and a line saying what was
    evaluated."""
    args, root, loops = _tree(text, head)
    g = tuple((list(grid or [1]) + [1, 1, 1])[:3])
    programs = math.prod(g)
    env_base: dict = {}
    for pos, name in enumerate(args):
        key = name.lstrip("%")
        value = scalars.get(key, scalars.get(str(pos)))
        if isinstance(value, bool | int):
            env_base[name] = int(value)
    read = _seed_tensors(env_base, args, tensors)
    sampled, most = sampling(root, programs)
    if programs <= sampled:
        picks = range(programs)
    else:
        picks = sorted({round(k * (programs - 1) / max(sampled - 1, 1)) for k in range(sampled)})
    per_program: list[list[float | None]] = []
    for linear in picks:
        pid = (linear % g[0], (linear // g[0]) % g[1], linear // (g[0] * g[1]))
        counts: list[float | None] = [0.0] * len(loops)
        _run(root, dict(env_base), pid, g, counts, 1.0, most)
        per_program.append(counts)
    gated = _gate_stores(root, args)
    lines = loc_lines(text, [n.loc for n in loops])
    out = []
    for li, node in enumerate(loops):
        vals = [c[li] for c in per_program]
        known = None not in vals and vals
        out.append(
            TtirLoop(
                node.depth,
                sum(vals) / len(vals) if known else None,
                max(vals) if known else None,
                node.bytes_per_iter,
                node.step,
                node.matrix_flops_per_iter,
                gated.get(li),
                tuple(node.accesses),
                line=lines[li],
                flatten=node.flatten,
            )
        )
    detail = f"scf.for bounds evaluated on the example arguments for {len(per_program)} of {programs} programs"
    if most < MAX_OUTER or sampled < min(programs, MAX_PROGRAMS):
        detail += (f" (nested runtime loops: fewer programs and at most {most} evenly spread iterations of each outer "
                   f"loop walked, scaled to its trips, to keep the walk under {MAX_EVALUATED_OPS:,} operations; the "
                   "samples are assumed representative)")  # fmt: skip
    if read:
        detail += f" (values loaded from {', '.join(sorted(read))} read from the example tensors)"
    return out, detail


_HOST_RE = re.compile(r"^func\.func\s+(?:\w+\s+)?@([\w.$]+)\((.*)$")
_LAUNCH_RE = re.compile(
    r"gpu\.launch_func\s.*?@[\w.$]+::@([\w.$]+)\s+blocks in \(([^)]*)\)\s+threads in \(([^)]*)\).*?args\((.*)\)"
)
_INT_TYPE_RE = re.compile(r"^(i\d+|index)$")
_OPERAND_RE = re.compile(r"(%[\w.$-]+)\s*:")


def _signature(text: str) -> list[tuple[str, str]]:
    """``(%name, type)`` of each argument in a signature's text (from after its ``(``), split at the commas
    outside ``<>``, ``()`` and ``{}`` (``!fly.memref<i8, global, ?:1>`` is one type)."""
    out, depth, part = [], 0, ""
    for ch in text:
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            out.append(part)
            part = ""
            continue
        part += ch
    out.append(part)
    args = []
    for p in out:
        name, sep, typ = p.strip().partition(":")
        if sep and name.strip().startswith("%"):
            args.append((name.strip(), typ.split("{")[0].strip()))
    return args


def flydsl_launch_values(
    text: str, kernel: str, arguments: list
) -> tuple[dict[str, int] | None, list[int] | None, list[int] | None, str]:
    """A FlyDSL kernel's integer arguments (by position), grid and block from its origin stage and the recorded
    @flyc.jit call (``arguments``: LaunchArguments in the call's order): the call's runtime (non-constexpr) values
    are the host ``func.func``'s arguments in order, its ops are evaluated, and ``gpu.launch_func`` passes the
    results to the kernel. (None, None, None, why) when the host function that launches ``kernel`` is not found or
    its arguments do not match the call."""
    host_args: list[tuple[str, str]] | None = None
    env: dict = {}
    mismatch = f"no host func.func launches {kernel}"
    for raw in text.splitlines():
        s = _LOC_RE.sub("", raw).strip()
        m = _HOST_RE.match(s)
        if m:
            host_args = _signature(m.group(2))
            env = {}
            runtime = [a for a in arguments if a.kind != "constexpr"]
            # one host argument per runtime argument in order, and the stream FlyDSL appends when none is declared
            if len(host_args) not in (len(runtime), len(runtime) + 1) or any(
                (a.kind == "tensor") != ("memref" in typ) for (_, typ), a in zip(host_args, runtime, strict=False)
            ):
                mismatch = f"the host function {m.group(1)}'s arguments do not match the recorded call's"
                host_args = None
                continue
            for (name, typ), a in zip(host_args, runtime, strict=False):
                if _INT_TYPE_RE.match(typ) and isinstance(a.value, bool | int):
                    env[name] = int(a.value)
            continue
        if host_args is None:
            continue
        launch = _LAUNCH_RE.search(s)
        if launch and launch.group(1) == kernel:
            values = [env.get(v) for v in _OPERAND_RE.findall(launch.group(4))]
            scalars = {str(pos): v for pos, v in enumerate(values) if v is not None}
            grid, block = ([env.get(v.strip()) for v in launch.group(i).split(",")] for i in (2, 3))
            return (
                scalars,
                None if None in grid else grid,
                None if None in block else block,
                "the host function's gpu.launch_func, evaluated on the recorded call's arguments",
            )
        if s.startswith("return") or s == "}":
            host_args = None
            continue
        effect = _compile(s)
        value = effect[1](env, (0, 0, 0), (1, 1, 1)) if effect else None
        if value is not None:
            env[effect[0]] = value
    return None, None, None, mismatch


def flydsl_loops(text: str, kernel: str, arguments: list, grid: list[int] | None) -> tuple[list[TtirLoop] | None, str]:
    """Every ``scf.for`` of a FlyDSL kernel's ``gpu.func`` (origin stage) with its iterations per program on the
    recorded call's arguments (``flydsl_launch_values``); (None, why) when the arguments cannot be matched."""
    scalars, _, _, why = flydsl_launch_values(text, kernel, arguments)
    if scalars is None:
        return None, why
    loops, detail = ttir_loops(text, scalars, grid, head=f"gpu.func @{kernel}(")
    return loops, detail.replace("the example arguments", "the @flyc.jit call's arguments")
