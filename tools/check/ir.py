"""Load an AMDGPU LLVM IR module with llvmlite into a form the lane executor runs quickly.

llvmlite parses and walks the module (functions → blocks → instructions → operands); this module only turns each
instruction into a small record (opcode, result type, operand references, the few flags the executor needs) and
reads the debug locations (``!dbg`` → ``DILocation`` with its ``inlinedAt`` chain) so reports can name source lines.
Types are described by :class:`Ty`, parsed from llvmlite's printed type names.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field

import numpy as np

from tools.check.errors import UnsupportedIR
from tools.check.ir_text import SHADOW, parse_error, translate
from tools.errors import InputError


def unsupported(what: str, line: str = "") -> UnsupportedIR:
    """The one error for IR the executor does not model: never a silent wrong result (the verdict: undetermined)."""
    return UnsupportedIR(what, line)


# ---------------------------------------------------------------------------------------------------------- types
@dataclass(frozen=True)
class Ty:
    """An LLVM type: kind is int|float|ptr|rsrc|vec|struct|array|void; ``bits`` for int/float, ``addrspace`` for ptr."""

    kind: str
    bits: int = 0
    fmt: str = ""  # float format: half|bfloat|float|double
    addrspace: int = 0
    count: int = 0
    elem: Ty | None = None
    members: tuple[Ty, ...] = ()

    @property
    def size(self) -> int:
        """ABI store size in bytes (vectors are packed, as on AMDGPU)."""
        if self.kind in ("int", "float"):
            return max(1, (self.bits + 7) // 8)
        if self.kind == "ptr":
            return 4 if self.addrspace in (3, 5) else 8
        if self.kind == "rsrc":
            return 16
        if self.kind == "vec":
            if self.elem.kind == "int" and self.elem.bits < 8:  # <8 x i1>: elements packed into bits
                return max(1, (self.elem.bits * self.count + 7) // 8)
            return self.elem.size * self.count
        if self.kind == "array":
            return _align(self.elem.size, self.elem.align) * self.count
        if self.kind == "struct":
            off = 0
            for m in self.members:
                off = _align(off, 1 if self.packed else m.align) + m.size
            return _align(off, 1 if self.packed else self.align)
        raise unsupported(f"size of type {self}")

    @property
    def align(self) -> int:
        if self.kind == "vec":
            return self.size
        if self.kind == "array":
            return self.elem.align
        if self.kind == "struct":
            return max((m.align for m in self.members), default=1)
        return self.size

    packed: bool = False

    @property
    def np_dtype(self):
        """Storage dtype of one scalar lane value: ints as uint64 (canonical, zero-extended), bfloat as float32."""
        if self.kind == "int":
            return np.bool_ if self.bits == 1 else np.uint64
        if self.kind == "float":
            return {"half": np.float16, "bfloat": np.float32, "float": np.float32, "double": np.float64}[self.fmt]
        if self.kind in ("ptr", "rsrc"):
            return np.uint64
        if self.kind == "vec":
            return self.elem.np_dtype
        raise unsupported(f"values of type {self}")

    @property
    def scalar(self) -> Ty:
        return self.elem if self.kind == "vec" else self


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


_FLOATS = {"half": 16, "bfloat": 16, "float": 32, "double": 64}


def parse_type(text: str) -> Ty:
    ty, rest = _parse_type(text.strip())
    if rest.strip():
        raise unsupported(f"type '{text}'")
    return ty


def _parse_type(s: str) -> tuple[Ty, str]:
    s = s.lstrip()
    m = re.match(r"i(\d+)", s)
    if m:
        return Ty("int", bits=int(m.group(1))), s[m.end() :]
    for name, bits in _FLOATS.items():
        if s.startswith(name):
            return Ty("float", bits=bits, fmt=name), s[len(name) :]
    if s.startswith("ptr"):
        s = s[3:]
        m = re.match(r"\s*addrspace\((\d+)\)", s)
        space = 0
        if m:
            space = int(m.group(1))
            s = s[m.end() :]
        return (Ty("rsrc") if space == 8 else Ty("ptr", addrspace=space)), s
    if s.startswith("void"):
        return Ty("void"), s[4:]
    if s.startswith("label"):
        return Ty("label"), s[5:]
    if s.startswith("metadata"):
        return Ty("metadata"), s[8:]
    if s.startswith("<{") or s.startswith("{"):
        packed = s.startswith("<{")
        s = s[2:] if packed else s[1:]
        members = []
        s = s.lstrip()
        while not (s.startswith("}>") or s.startswith("}")):
            t, s = _parse_type(s)
            members.append(t)
            s = s.lstrip()
            if s.startswith(","):
                s = s[1:].lstrip()
        s = s[2:] if packed else s[1:]
        return Ty("struct", members=tuple(members), packed=packed), s
    m = re.match(r"([<\[])\s*(\d+)\s+x\s+", s)
    if m:
        elem, s = _parse_type(s[m.end() :])
        s = s.lstrip()
        close = ">" if m.group(1) == "<" else "]"
        if not s.startswith(close):
            raise unsupported(f"type near '{s[:30]}'")
        kind = "vec" if close == ">" else "array"
        if kind == "vec" and elem.kind == "ptr":
            return Ty("vec", count=int(m.group(2)), elem=elem), s[1:]
        return Ty(kind, count=int(m.group(2)), elem=elem), s[1:]
    raise unsupported(f"type near '{s[:30]}'")


# ---------------------------------------------------------------------------------------------------------- constants
def _float_bits_value(tok: str, ty: Ty) -> float:
    tok = tok.strip()
    if tok.startswith("0xH"):
        return float(np.uint16(int(tok[3:], 16)).view(np.float16))
    if tok.startswith("0xR"):
        return float(np.uint32(int(tok[3:], 16) << 16).view(np.float32))
    if tok.startswith("0x"):  # LLVM prints float and double constants as the double's bits
        return float(np.uint64(int(tok[2:], 16)).view(np.float64))
    return float(tok)


def split_top(s: str) -> list[str]:
    """Split at the commas outside any bracket: 'i32 1, <2 x i32> <i32 1, i32 2>' → two items."""
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "<[({":
            depth += 1
        elif ch in ">])}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return [x.strip() for x in out if x.strip()]


def scalar_constant(tok: str, ty: Ty):
    tok = tok.strip()
    if tok in ("undef", "poison", "zeroinitializer", "null"):
        return 0
    if ty.kind == "int":
        if tok == "true":
            return 1
        if tok == "false":
            return 0
        return int(tok) & ((1 << ty.bits) - 1)
    if ty.kind == "float":
        return _float_bits_value(tok, ty)
    raise unsupported(f"constant '{tok}' of type {ty}")


def parse_constant(text: str, ty: Ty):
    """A constant operand's printed form ('<4 x float> zeroinitializer', 'i32 7', 'half 0xH3C00') → numpy value."""
    body = text.strip()
    # strip the leading type: the printed form is '<type> <value>'
    _, rest = _parse_type(body)
    rest = rest.strip()
    if ty.kind == "vec":
        if rest in ("zeroinitializer", "undef", "poison"):
            return np.zeros(ty.count, dtype=ty.np_dtype)
        m = re.match(r"splat\s*\((.*)\)$", rest)
        if m:
            inner = m.group(1).strip()
            _, val = _parse_type(inner)
            return np.full(ty.count, scalar_constant(val, ty.elem), dtype=ty.np_dtype)
        if rest.startswith("<") and rest.endswith(">"):
            items = split_top(rest[1:-1])
            vals = [scalar_constant(_parse_type(it)[1], ty.elem) for it in items]
            return np.array(vals, dtype=np.float64 if ty.elem.kind == "float" else np.uint64).astype(ty.np_dtype)
        raise unsupported(f"vector constant '{text}'")
    if ty.kind in ("struct", "array"):
        if rest in ("zeroinitializer", "undef", "poison"):
            return _zero_aggregate(ty)
        raise unsupported(f"aggregate constant '{text}'")
    if ty.kind == "int" and ty.bits > 64:  # held as 32-bit words, lowest first (tools.check.values.wide)
        v = scalar_constant(rest, ty)
        return np.array([(v >> (32 * i)) & 0xFFFFFFFF for i in range(-(-ty.bits // 32))], dtype=np.uint64)
    return np.array(scalar_constant(rest, ty)).astype(ty.np_dtype)


def _zero_aggregate(ty: Ty):
    if ty.kind == "struct":
        return [_zero_aggregate(m) for m in ty.members]
    if ty.kind == "array":
        return [_zero_aggregate(ty.elem) for _ in range(ty.count)]
    if ty.kind == "vec":
        return np.zeros(ty.count, dtype=ty.np_dtype)
    return np.array(0).astype(ty.np_dtype)


# ---------------------------------------------------------------------------------------------------------- program
def vid(value) -> int:
    """Stable identity of an llvmlite value (instructions, arguments and blocks print without names)."""
    return ctypes.cast(value._ptr, ctypes.c_void_p).value


@dataclass
class Operand:
    """``ref`` is a value id (instruction or argument) or None for a constant held in ``const``."""

    ty: Ty
    ref: int | None = None
    const: object = None
    global_name: str = ""
    text: str = ""


@dataclass
class Instr:
    opcode: str
    ty: Ty
    ops: list[Operand]
    result: int
    text: str
    dbg: int | None = None
    callee: str = ""
    predicate: str = ""
    targets: list[int] = field(default_factory=list)  # successor block ids (br/switch)
    incoming: list[int] = field(default_factory=list)  # phi predecessor block ids
    extra: dict = field(default_factory=dict)
    handler: object = None  # what executes it: tools.check.ops.bind sets it once per kernel


@dataclass
class Block:
    id: int
    index: int  # reverse post-order position: lanes at the lowest index run first, so branches reconverge
    phis: list[Instr]
    body: list[Instr]


@dataclass
class Location:
    file: str
    line: int
    column: int
    inlined_at: Location | None = None

    def render(self) -> str:
        text = f"{self.file}:{self.line}:{self.column}"
        outer = self.inlined_at
        while outer is not None:
            text += f" (inlined at {outer.file}:{outer.line}:{outer.column})"
            outer = outer.inlined_at
        return text

    def user_line(self) -> str:
        """The outermost call site: the line in the kernel body that led here."""
        loc = self
        while loc.inlined_at is not None:
            loc = loc.inlined_at
        return f"{loc.file}:{loc.line}"


@dataclass
class Kernel:
    name: str
    params: list[tuple[Ty, int]]  # (type, value id)
    blocks: list[Block]
    entry: int
    globals: dict[str, tuple[int, int]]  # addrspace(3) global name → (offset, size) in the workgroup's LDS
    lds_bytes: int
    locations: dict[int, Location]
    reqd_block: tuple[int, int, int] | None


_DBG = re.compile(r"!dbg !(\d+)")
_META = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$", re.M)


def _fields(body: str) -> dict[str, str]:
    return {k: v for k, v in re.findall(r"(\w+): (\"[^\"]*\"|[^,]+)", body)}


def read_locations(text: str) -> dict[int, Location]:
    """Every DILocation of the module, its scope resolved to a file and its inlinedAt chain linked."""
    meta = {int(m.group(1)): (m.group(2), _fields(m.group(3))) for m in _META.finditer(text)}

    def file_of(ref: str, depth: int = 0) -> str:
        if depth > 50 or not ref.startswith("!"):
            return "?"
        kind, f = meta.get(int(ref[1:]), ("", {}))
        if kind == "DIFile":
            return f.get("filename", "?").strip('"')
        if "file" in f:
            return file_of(f["file"], depth + 1)
        if "scope" in f:
            return file_of(f["scope"], depth + 1)
        return "?"

    cache: dict[int, Location] = {}

    def loc(n: int) -> Location | None:
        if n in cache:
            return cache[n]
        kind, f = meta.get(n, ("", {}))
        if kind != "DILocation":
            return None
        inl = f.get("inlinedAt", "")
        result = Location(
            file=file_of(f.get("scope", "")),
            line=int(f.get("line", 0)),
            column=int(f.get("column", 0)),
            inlined_at=loc(int(inl[1:])) if inl.startswith("!") else None,
        )
        cache[n] = result
        return result

    return {n: loc(n) for n, (kind, _) in meta.items() if kind == "DILocation"}


def _callee_name(instr) -> str:
    ops = list(instr.operands)
    name = ops[-1].name if ops else ""
    return "llvm." + name.removeprefix(SHADOW) if name.startswith(SHADOW) else name


_PRED = re.compile(
    r"= (?:icmp|fcmp)(?: [a-z]+)*? (eq|ne|ugt|uge|ult|ule|sgt|sge|slt|sle|oeq|ogt|oge|olt|ole|one|ord|ueq|une|uno|true|false) "
)


def _operand(o) -> Operand:
    ty = parse_type(str(o.type))
    kind = o.value_kind.name
    if kind in ("instruction", "argument"):
        return Operand(ty, ref=vid(o))
    if kind == "global_variable":
        return Operand(ty, global_name=o.name, text=str(o))
    if kind == "basic_block":
        return Operand(ty, ref=vid(o))
    if kind in ("constant_expr",):
        return Operand(ty, text=str(o), const=("expr", o))
    if kind == "function":
        return Operand(ty, global_name=o.name)
    if kind == "metadata_as_value":
        return Operand(ty, text=str(o))
    return Operand(ty, const=parse_constant(str(o), ty), text=str(o))


def _rpo(entry: int, succ: dict[int, list[int]]) -> list[int]:
    seen, order = set(), []
    stack = [(entry, iter(succ.get(entry, [])))]
    seen.add(entry)
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(node)
            stack.pop()
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(succ.get(nxt, []))))
    return order[::-1]


def load_kernel(text: str, name: str | None = None) -> Kernel:
    """Parse ``text`` (an AMDGPU LLVM IR module) and return its kernel ``name`` (or its only kernel)."""
    import llvmlite.binding as llvm

    try:
        module = llvm.parse_assembly(translate(text))
    except RuntimeError as exc:
        raise parse_error(str(exc), text) from exc
    kernels = [f for f in module.functions if not f.is_declaration]
    if name:
        kernels = [f for f in kernels if f.name == name] or kernels
    if not kernels:
        raise InputError("the LLVM IR module defines no function", hint="is this the kernel's LLVM IR stage?")
    fn = kernels[0]
    # LDS: addrspace(3) globals laid out in declaration order, each aligned to 16 bytes
    lds: dict[str, tuple[int, int]] = {}
    off = 0
    for g in module.global_variables:
        gtext = str(g)
        if "addrspace(3)" not in gtext.split("=", 1)[-1].split("global", 1)[0]:
            continue
        m = re.search(r"global\s+(.+?)(?:\s+(?:undef|poison|zeroinitializer))?(?:,|$)", gtext)
        gty = parse_type(m.group(1).strip()) if m else Ty("array", count=0, elem=Ty("int", bits=8))
        size = gty.size if not (gty.kind == "array" and gty.count == 0) else 0
        lds[g.name] = (off, size)
        off = _align(off + size, 16)
    blocks_raw = list(fn.blocks)
    succ: dict[int, list[int]] = {}
    for b in blocks_raw:
        term = list(b.instructions)[-1]
        succ[vid(b)] = [vid(o) for o in term.operands if o.value_kind.name == "basic_block"]
    order = {bid: i for i, bid in enumerate(_rpo(vid(blocks_raw[0]), succ))}
    blocks = []
    for b in blocks_raw:
        bid = vid(b)
        if bid not in order:
            continue  # unreachable
        phis, body = [], []
        for ins in b.instructions:
            try:
                rec = _instr(ins)
            except (InputError, MemoryError):
                raise
            except Exception as exc:  # a form of an instruction this reader does not know: no verdict on it
                raise unsupported(f"'{ins.opcode}' in this form ({type(exc).__name__}: {exc})", str(ins)) from exc
            (phis if rec.opcode == "phi" else body).append(rec)
        blocks.append(Block(id=bid, index=order[bid], phis=phis, body=body))
    blocks.sort(key=lambda blk: blk.index)
    reqd = None
    m = re.search(rf"define [^\n]*@{re.escape(fn.name)}\([^\n]*!reqd_work_group_size !(\d+)", text)
    if m:
        mm = re.search(rf"^!{m.group(1)} = !{{i32 (\d+), i32 (\d+), i32 (\d+)}}", text, re.M)
        if mm:
            reqd = (int(mm.group(1)), int(mm.group(2)), int(mm.group(3)))
    return Kernel(
        name=fn.name,
        params=[(parse_type(str(a.type)), vid(a)) for a in fn.arguments],
        blocks=blocks,
        entry=vid(blocks_raw[0]),
        globals=lds,
        lds_bytes=off,
        locations=read_locations(text),
        reqd_block=reqd,
    )


_ASM = re.compile(r'asm (?:(?:sideeffect|alignstack|inteldialect|unwind) )*"([^"]*)", "([^"]*)"')


def _unescape(text: str) -> str:
    """LLVM's string escapes (``\\0A`` a newline, ``\\22`` a quote) → the characters."""
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def _instr(ins) -> Instr:
    text = str(ins).strip()
    opcode = ins.opcode
    ty = parse_type(str(ins.type))
    raw_ops = list(ins.operands)
    m = _DBG.search(text)
    rec = Instr(opcode=opcode, ty=ty, ops=[], result=vid(ins), text=text, dbg=int(m.group(1)) if m else None)
    if opcode == "call":
        if raw_ops and raw_ops[-1].value_kind.name == "inline_asm":
            am = _ASM.search(text)
            if not am:
                raise unsupported("inline asm of this form", text)
            rec.extra["asm"] = (_unescape(am.group(1)), _unescape(am.group(2)))
            rec.callee = "asm"
        else:
            rec.callee = _callee_name(ins)
        raw_ops = raw_ops[:-1]
    if opcode == "phi":
        rec.incoming = [vid(b) for b in ins.incoming_blocks]
    if opcode in ("br", "switch"):
        rec.targets = [vid(o) for o in raw_ops if o.value_kind.name == "basic_block"]
    if opcode in ("icmp", "fcmp"):
        pm = _PRED.search(text) or re.search(r"(?:icmp|fcmp)(?: \w+)* (\w+) ", text)
        rec.predicate = pm.group(1)
    if opcode == "getelementptr":
        gm = re.search(r"getelementptr (?:(?:inbounds|nuw|nusw|inrange\(\S+\)) )*(.+?), (?:ptr|<)", text)
        if not gm:
            raise unsupported("getelementptr form", text)
        rec.extra["source"] = parse_type(gm.group(1))
    if opcode in ("load", "store", "alloca"):
        pass
    if opcode == "atomicrmw":
        am = re.search(r"atomicrmw (?:volatile )?(\w+) ", text)
        rec.extra["op"] = am.group(1)
    if opcode in ("extractvalue", "insertvalue"):
        rec.extra["indices"] = [int(x) for x in re.findall(r", (\d+)(?=,|$| )", text.split("!dbg")[0].rstrip(", "))]
    if opcode == "shufflevector":
        mask_text = text.split("!dbg")[0]
        rec.extra["mask_text"] = mask_text
    rec.ops = [_operand(o) for o in raw_ops]
    if opcode == "alloca":
        am = re.search(r"alloca (.+?)(?:, align \d+|, addrspace|$)", text.split("!dbg")[0])
        rec.extra["alloc"] = parse_type(am.group(1).rstrip(", "))
    return rec
