"""NVIDIA SASS: nvdisasm text → functions → instructions with def/use registers, labels, branch targets and source
lines; loops from backward branches and the hot loop; the MMA and compute opcode classes; and, for cubins, the parsers
of ``cuobjdump -res-usage`` (per-function resources) and of ``nvdisasm --print-life-ranges --life-range-mode narrow``
(the exact live GPR set at every instruction). Pure text parsing: running the tools is
``tools.frontends.nvidia.read_cubin``'s job.

The life-range columns are read by their header names (GPR, PRED, UGPR, UPRED), whichever subset this nvdisasm prints;
in a GPR column ``^`` marks a definition, ``v`` a use, ``x`` both and ``:`` a value passing through. nvdisasm ignores
``-g`` while printing life ranges, so source lines come from a second listing, matched by instruction offset.
Registers: ``R4`` is one register; a ``.64``/``.128`` access or an ``R4.64`` operand spans 2 or 4.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FUNC_RES_RE = re.compile(r"^\s*Function\s+(\S+):\s*$")
_RES_RE = re.compile(r"(\w+(?:\[\d+\])?):(\d+)")
_TARGET_DIRECTIVE_RE = re.compile(r"^\s*\.target\s+(sm_\d+)")
_INST_RE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
_LINE_RE = re.compile(r'//## File "([^"]+)", line (\d+)')
_LABEL_RE = re.compile(r"^(\.?[A-Za-z_$][\w.$]*):\s*$")
_FUNC_RE = re.compile(r"^\s*\.type\s+(\S+),@function")
_REG_RE = re.compile(r"(?<![\w.])R(\d+)(\.64|\.128)?(?![\w])")
_BRACKET_RE = re.compile(r"\[([^\]]*)\]")
_TARGET_RE = re.compile(r"`\(([^)]+)\)")
# Tensor-core matrix multiply-accumulate, every generation: HMMA/IMMA/DMMA (sm_70+), the warpgroup HGMMA/IGMMA/QGMMA/
# BGMMA (sm_90 wgmma.mma_async), and UTC*MMA (sm_100 tcgen05.mma). The one MMA classification of SASS here.
MMA_PREFIXES = ("HMMA", "IMMA", "DMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA", "WGMMA", "UTCHMMA", "UTCQMMA")
# Arithmetic that is not MMA (FP32/FP16/FP64 fused multiply-add, multiply, add, min/max, the special-function unit).
ALU_PREFIXES = ("FFMA", "FMUL", "FADD", "HFMA", "DFMA", "HADD", "HMUL", "FMNMX", "MUFU")
# Memory instructions that weigh in the choice of the hot loop: global loads and cp.async, shared memory, local spills.
HOT_LOOP_MEMORY_ROOTS = ("LDG", "LDGSTS", "LDS", "LDSM", "STS", "LDL", "STL")
MEMORY_ROOTS = ("LD", "ST", "ATOM", "RED")


@dataclass
class SassInst:
    """One instruction. ``defs``/``uses`` come from the operand text; ``live``/``gpr_defs``/``counts`` from nvdisasm's
    life ranges when the function was read from a cubin."""

    index: int
    addr: int
    opcode: str
    operands: str
    text: str
    source: str | None
    defs: set[int] = field(default_factory=set)
    uses: set[int] = field(default_factory=set)
    target: str | None = None
    labels: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    live: frozenset[int] = frozenset()
    gpr_defs: frozenset[int] = frozenset()
    gpr_uses: frozenset[int] = frozenset()

    @property
    def root(self) -> str:
        return self.opcode.split(".")[0]

    @property
    def is_mma(self) -> bool:
        return self.opcode.startswith(MMA_PREFIXES)

    @property
    def is_compute(self) -> bool:
        """MMA or floating-point arithmetic: what hides memory latency in a loop."""
        return self.is_mma or self.opcode.startswith(ALU_PREFIXES)

    @property
    def address_regs(self) -> set[int]:
        """GPRs inside ``[...]`` of a memory instruction (the address, not the data)."""
        if not self.root.startswith(MEMORY_ROOTS):
            return set()
        return _regs(" ".join(_BRACKET_RE.findall(self.operands)), 1)


@dataclass
class SassFunction:
    name: str
    insts: list[SassInst]
    labels: dict[str, int]  # label -> instruction index
    arch: str | None = None
    resources: dict[str, int] = field(default_factory=dict)


@dataclass
class SassLoop:
    first: int  # instruction index of the branch target (the header)
    last: int  # the backward branch
    depth: int
    innermost: bool


def _width(opcode: str) -> int:
    if ".128" in opcode:
        return 4
    if ".64" in opcode:
        return 2
    return 1


def _regs(text: str, default_width: int) -> set[int]:
    out: set[int] = set()
    for m in _REG_RE.finditer(text):
        base = int(m.group(1))
        width = {".64": 2, ".128": 4}.get(m.group(2) or "", default_width)
        out.update(range(base, base + width))
    return out


def _def_use(opcode: str, operands: str) -> tuple[set[int], set[int]]:
    parts = [p.strip() for p in operands.split(",")] if operands.strip() else []
    root = opcode.split(".")[0]
    stores = root.startswith(("ST", "RED", "ATOM")) or root in ("LDGSTS", "BRA", "EXIT", "BAR", "DEPBAR", "LDGDEPBAR")
    if stores or not parts:
        return set(), _regs(operands, 1)
    width = _width(opcode) if root.startswith("LD") else 1
    if root in ("IMAD", "LEA") and ".WIDE" in opcode or root == "LDC" and ".64" in opcode:
        width = 2
    first = parts[0]
    return _regs(first, width), _regs(", ".join(parts[1:]), 2 if "[" in operands else 1)


def _attributed(chain: list[tuple[str, int]]) -> str:
    """(path, line) frames, innermost first → the user's line through library frames (as
    ``tools.isa.source_attr.attribute_loc`` does for AMDGCN): ``(inside tl.sum at kernel.py:19)``."""
    from tools.isa.amdgcn import SourceLoc
    from tools.isa.source_attr import attribute_loc

    frames = []
    for path, ln in chain:
        directory, _, name = path.rpartition("/")
        frames.append(SourceLoc(name, ln, 0, directory))
    loc = frames[0]
    loc.inlined_at = tuple(frames[1:])
    return str(attribute_loc(loc))


def parse_sass(text: str) -> list[SassFunction]:
    """Functions of an nvdisasm listing (with or without ``-g`` line info or life-range columns)."""
    funcs: list[SassFunction] = []
    names = {m.group(1) for m in (_FUNC_RE.match(ln) for ln in text.splitlines()) if m}
    arch = None
    cur: SassFunction | None = None
    source = None
    pending: list[str] = []
    chain: list[tuple[str, int]] = []
    after_line_info = False
    for raw in text.splitlines():
        m = _TARGET_DIRECTIVE_RE.match(raw)
        if m:
            arch = m.group(1)
            continue
        m = _LINE_RE.search(raw)
        if m:
            # nvdisasm -gi writes an inlined position as consecutive lines, innermost first, each naming its caller
            # ('inlined at'), the outermost last: collect them and walk the chain to the user's line.
            frame = (m.group(1), int(m.group(2)))
            chain = [*chain, frame] if after_line_info else [frame]
            after_line_info = " inlined at " in raw  # the next line continues this chain only if it names a caller
            source = f"{m.group(1).rsplit('/', 1)[-1]}:{m.group(2)}" if len(chain) == 1 else _attributed(chain)
            continue
        after_line_info = False
        lm = _LABEL_RE.match(raw.split("//", 1)[0].strip())
        if lm:
            name = lm.group(1)
            if name in names:
                cur = SassFunction(name, [], {}, arch)
                funcs.append(cur)
                source, pending = None, []
            elif cur is not None:
                pending.append(name)
            continue
        im = _INST_RE.match(raw)
        if not im or cur is None:
            continue
        opcode, operands = im.group(3), im.group(4).strip()
        defs, uses = _def_use(opcode, operands)
        tm = _TARGET_RE.search(operands)
        inst = SassInst(
            len(cur.insts),
            int(im.group(1), 16),
            opcode,
            operands,
            raw.split("//", 1)[0].strip(),
            source,
            defs,
            uses,
            tm.group(1) if tm and opcode.startswith("BRA") else None,
            pending,
        )
        for lab in pending:
            cur.labels[lab] = inst.index
        pending = []
        cur.insts.append(inst)
    return [f for f in funcs if f.insts]


# the barrier waits a warp retries until its phase flips (mbarrier try_wait on sm_90: TMA and wgmma pipelines)
_WAIT_ROOTS = ("SYNCS", "BRA", "NOP", "NANOSLEEP", "YIELD", "WARPSYNC")


def _spin_wait(f: SassFunction, first: int, last: int) -> bool:
    """A loop that only retries an mbarrier wait (``SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR13+0x34000], R21`` then
    ``@!P0 BRA`` back to it): a wait for a TMA copy or another warp, not an iteration of the program's work."""
    body = f.insts[first : last + 1]
    return any(i.root == "SYNCS" for i in body) and all(i.root in _WAIT_ROOTS for i in body)


def _slow_path_return(f: SassFunction, first: int, last: int) -> bool:
    """An unconditional ``BRA`` back from an out-of-line block placed after ``EXIT`` (ptxas moves a wait's retry
    there): the instruction before its target branches forward into that block, so the backward branch returns to
    the fall-through point, it closes no loop."""
    back = f.insts[last]
    if back.text.lstrip().startswith("@") or first == 0:
        return False
    before = f.insts[first - 1]
    stub = f.labels.get(before.target) if before.target else None
    if stub is None or not first < stub <= last:
        return False
    return any(i.root == "EXIT" for i in f.insts[first:stub])


def find_loops(f: SassFunction) -> list[SassLoop]:
    """Loops from backward branches (target at or before the branch), outermost first; the ``BRA`` to itself after
    ``EXIT`` is padding, not a loop, and neither is an mbarrier wait's retry (``_spin_wait``) or the branch back
    from its out-of-line block (``_slow_path_return``)."""
    spans = set()
    for i in f.insts:
        if i.target and i.target in f.labels and f.labels[i.target] < i.index:
            span = (f.labels[i.target], i.index)
            if not (_spin_wait(f, *span) or _slow_path_return(f, *span)):
                spans.add(span)
    out = []
    for s in sorted(spans):
        depth = 1 + sum(1 for o in spans if o != s and o[0] <= s[0] and s[1] <= o[1])
        inner = not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)
        out.append(SassLoop(s[0], s[1], depth, inner))
    return out


_PREDICATED_RE = re.compile(r"^\s*(?:/\*[0-9a-f]+\*/\s*)?@")


def _predicated(i: SassInst) -> bool:
    return bool(_PREDICATED_RE.match(i.text))


def guarded_regions(insts: list[SassInst], labels: dict[str, int]) -> list[tuple[int, int]]:
    """The code each forward conditional branch can skip (first, last instruction index), in address order: ``@P BRA
    L`` skips up to L; ``@P EXIT`` ends the program before what follows it, up to the next unconditional ``EXIT``.
    What ``tools.predict.work.straight_remainders`` reads an unrolled loop's remainder copies from."""
    out = []
    for i in insts:
        if not _predicated(i):
            continue
        if i.root == "BRA" and i.target in labels and labels[i.target] > i.index + 1:
            out.append((i.index + 1, labels[i.target] - 1))
        elif i.root == "EXIT":
            end = next((o.index for o in insts[i.index + 1 :] if o.root == "EXIT" and not _predicated(o)), None)
            if end is not None and end > i.index:
                out.append((i.index + 1, end))
    return out


@dataclass
class SassHotLoop:
    loop: SassLoop
    label: str  # the header's label, or its offset ``/*0ab0*/``
    reason: str


def find_hot_loop(f: SassFunction) -> SassHotLoop | None:
    """The innermost loop with the most MMA + global/shared/local memory instructions (ties: more MMA, then the
    larger body), or None without a loop. The one choice of the SASS hot loop (vgpr-pressure, prefetch-data-load)."""
    inner = [lp for lp in find_loops(f) if lp.innermost]
    if not inner:
        return None

    def weight(lp: SassLoop) -> tuple[int, int, int]:
        body = f.insts[lp.first : lp.last + 1]
        mma = sum(1 for i in body if i.is_mma)
        mem = sum(1 for i in body if i.root in HOT_LOOP_MEMORY_ROOTS)
        return mma + mem, mma, lp.last - lp.first + 1

    ranked = sorted(inner, key=weight, reverse=True)
    best = ranked[0]
    score, mma, size = weight(best)
    label = f.insts[best.first].labels[0] if f.insts[best.first].labels else f"/*{f.insts[best.first].addr:04x}*/"
    reason = (
        f"innermost loop headed by {label} (backward branch at #{best.last}, depth {best.depth}, {size} instructions) "
        f"has the most MMA + memory instructions: {mma} MMA, {score - mma} LDG/LDGSTS/LDS/STS/LDL/STL"
    )
    if len(ranked) > 1:
        reason += f"; {len(ranked) - 1} other innermost loop(s) have at most {weight(ranked[1])[0]}"
    else:
        reason += "; it is the only innermost loop"
    return SassHotLoop(best, label, reason)


def is_cubin(data: bytes) -> bool:
    return data[:4] == b"\x7fELF" and len(data) > 18 and data[18] == 190  # e_machine EM_CUDA


_EIATTR_REGCOUNT = 0x2F
_EIFMT_SVAL = 4  # an attribute with a 2-byte size and that many bytes of payload; the other formats take 4 bytes


def register_count_fields(data: bytes) -> list[tuple[int, int]]:
    """``(file offset, value)`` of every EIATTR_REGCOUNT attribute (``symbol index, registers``) in the ``.nv.info``
    sections of a 64-bit little-endian cubin: the per-function register count nvdisasm reads. Empty for anything
    else."""
    if not is_cubin(data) or data[4] != 2 or data[5] != 1 or len(data) < 64:
        return []
    shoff = int.from_bytes(data[0x28:0x30], "little")
    entsize, count, strndx = (int.from_bytes(data[o : o + 2], "little") for o in (0x3A, 0x3C, 0x3E))
    headers = []
    for k in range(count):
        h = data[shoff + k * entsize : shoff + (k + 1) * entsize]
        if len(h) < 0x28:
            return []
        headers.append((int.from_bytes(h[0:4], "little"), int.from_bytes(h[0x18:0x20], "little"),
                        int.from_bytes(h[0x20:0x28], "little")))  # fmt: skip
    if strndx >= len(headers):
        return []
    names = headers[strndx][1]
    out = []
    for name_at, start, size in headers:
        name = data[names + name_at : data.find(b"\0", names + name_at)]
        if not name.startswith(b".nv.info"):
            continue
        pos, end = start, min(start + size, len(data))
        while pos + 4 <= end:
            fmt, attr = data[pos], data[pos + 1]
            if fmt != _EIFMT_SVAL:
                pos += 4
                continue
            length = int.from_bytes(data[pos + 2 : pos + 4], "little")
            if attr == _EIATTR_REGCOUNT and length == 8 and pos + 12 <= end:
                out.append((pos + 8, int.from_bytes(data[pos + 8 : pos + 12], "little")))
            pos += 4 + length
    return out


# Bytes one thread moves per local-memory access, by the STL/LDL size modifier (no modifier: 32 bits).
_LOCAL_ACCESS_BYTES = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16}


def local_memory_bytes(insts: list[SassInst]) -> tuple[int, int]:
    """``(store bytes, load bytes)``: the bytes of every STL and LDL in the code, each counted once at its access
    width. ptxas -v's "bytes spill stores / spill loads" is this same static sum (equal on Triton's sm_90 kernels),
    as long as the kernel keeps no local array of its own (Triton's never do)."""
    totals = {"STL": 0, "LDL": 0}
    for i in insts:
        if i.root in totals:
            mods = i.opcode.split(".")[1:]
            totals[i.root] += next((_LOCAL_ACCESS_BYTES[m] for m in mods if m in _LOCAL_ACCESS_BYTES), 4)
    return totals["STL"], totals["LDL"]


def parse_res_usage(text: str) -> dict[str, dict[str, int]]:
    """``cuobjdump -res-usage`` output: per function, every ``NAME:value`` of its resource line (REG, STACK, SHARED,
    LOCAL, CONSTANT[0], TEXTURE…). The one parser of that output."""
    out: dict[str, dict[str, int]] = {}
    cur = None
    for line in text.splitlines():
        m = _FUNC_RES_RE.match(line)
        if m:
            cur = m.group(1)
            out[cur] = {}
            continue
        if cur and "REG:" in line:
            out[cur] = {k: int(v) for k, v in _RES_RE.findall(line)}
    return out


LifeRow = tuple[dict[str, int], frozenset[int], frozenset[int], frozenset[int]]


def parse_life_ranges(text: str) -> dict[str, dict[int, LifeRow]]:
    """``nvdisasm -plr --life-range-mode narrow`` (or ``count``) listing: per function, per instruction offset, the live
    counts by column name, the live GPR set, and the GPRs the instruction defines and reads (sets empty in count mode)."""
    out: dict[str, dict[int, LifeRow]] = {}
    header: list[str] = []
    segments: list[tuple[str, int, int, dict[int, int]]] = []  # name, start, end, column -> register
    cur = None
    for line in text.splitlines():
        bar = line.find("// ")
        if bar < 0:
            continue
        prefix, row = line[:bar], line[bar + 3 :]
        im = _INST_RE.match(line)
        if im is None:
            if not prefix.strip() and row.startswith("|"):  # a header row (each function prints its own)
                header.append(row)
            elif not prefix.strip() and row.startswith("+") and header:
                segments, header = _life_range_segments(header), []
            fm = re.match(r"^\s*\.global\s+(\S+)", prefix)
            if fm:
                cur = out.setdefault(fm.group(1), {})
            continue
        if cur is None:
            continue
        counts: dict[str, int] = {}
        live: set[int] = set()
        defs: set[int] = set()
        uses: set[int] = set()
        for name, start, end, cols in segments:
            num = row[start : min(cols) if cols else end].strip()
            counts[name] = int(num) if num.isdigit() else 0
            if name == "GPR":
                for col, reg in cols.items():
                    ch = row[col : col + 1]
                    if ch in (":", "^", "v", "x"):
                        live.add(reg)
                    if ch in ("^", "x"):
                        defs.add(reg)
                    if ch in ("v", "x"):
                        uses.add(reg)
        cur[int(im.group(1), 16)] = (counts, frozenset(live), frozenset(defs), frozenset(uses))
    return out


def _life_range_segments(header: list[str]) -> list[tuple[str, int, int, dict[int, int]]]:
    """Column groups of the life-range header: name, character span, and (narrow mode) column -> register number."""
    title = header[0]
    bars = [i for i, ch in enumerate(title) if ch == "|"]
    segs = []
    for start, end in zip(bars, bars[1:], strict=False):
        name = title[start + 1 : end].strip()
        digit_rows = [h for h in header[1:] if len(h) > start]
        cols: dict[int, int] = {}
        last = digit_rows[-1] if digit_rows else ""
        for c in range(start + 1, end):
            if c < len(last) and last[c].isdigit():
                digits = "".join((h[c] if c < len(h) and h[c].isdigit() else "0") for h in digit_rows)
                cols[c] = int(digits)
        segs.append((name, start + 1, end, cols))
    return segs


def functions_from_listings(listing: str, life_ranges: str, res_usage: str) -> list[SassFunction]:
    """Functions of a cubin from its three tool outputs (``nvdisasm -gi -c``, ``nvdisasm --print-life-ranges
    --life-range-mode narrow -c``, ``cuobjdump -res-usage``): resources, live GPR sets and source lines."""
    funcs = parse_sass(listing)
    ranges = parse_life_ranges(life_ranges)
    table = parse_res_usage(res_usage)
    for f in funcs:
        f.resources = table.get(f.name, {})
        by_offset = ranges.get(f.name, {})
        for i in f.insts:
            if i.addr in by_offset:
                i.counts, i.live, i.gpr_defs, i.gpr_uses = by_offset[i.addr]
    return funcs
