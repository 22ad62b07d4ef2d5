"""AMDGCN assembly text → kernels → instructions with typed operands, def/use register sets and source locations.

Covers the spellings of gfx90a/gfx942/gfx950 (``ds_read_b128``, ``global_load_dwordx4``, ``buffer_load_dword``) and
gfx11/gfx12 (``ds_load_b128``, ``global_load_b128``, ``buffer_load_b32``, ``s_wait_loadcnt``). Registers of one kernel
are kept as bitsets (Python ints) in one numbering: VGPR ``vN`` is bit N, AGPR ``aN`` is bit ``AGPR_BASE + N`` and
SGPR ``sN`` is bit ``SGPR_BASE + N``, so liveness is a handful of integer operations per instruction.

Pure text functions; no assembler is needed.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, field

from tools.errors import InputError
from tools.isa import metadata as metamod
from tools.isa.mnemonics import SCRATCH_CLASSES, SPILL_COMMENT_RE, InstructionClass, classify

AGPR_BASE = 512
SGPR_BASE = 1024
VGPR_MASK = (1 << AGPR_BASE) - 1
SGPR_MASK = ((1 << 128) - 1) << SGPR_BASE  # s0..s127; vcc/exec/m0 are kept apart by name


# Instructions whose operands are all reads even though the first one is a register.
_NO_DEF_PREFIXES = (
    "s_cmp",
    "s_bitcmp",
    "s_cbranch",
    "s_branch",
    "s_setpc",
    "s_waitcnt",
    "s_wait_",
    "s_barrier",
    "s_nop",
    "s_endpgm",
    "s_store",
    "s_buffer_store",
    "s_scratch_store",
    "s_setreg",
    "s_set_gpr_idx_on",
    "s_sendmsg",
    "s_dcache",
    "s_atc_probe",
    "s_cbranch",
    "s_ttracedata",
)
# VOP3b / carry-out instructions: the second operand is a second destination (SGPR pair or vcc).
_SECOND_DEF_RE = re.compile(
    r"^v_(mad_u64_u32|mad_i64_i32|(add|sub|subrev)_co_u32|(addc|subb|subbrev)_co_u32|"
    r"(add|sub|subrev)_co_ci_u32|div_scale_f\d+)(_e64|_e32)?$"
)
# Instructions that read their destination too (accumulate, preserve the other half, lane write).
_READS_DST_RE = re.compile(
    r"^(v_(fmac|mac|fmamk|fmaak|dot\d*c)_|v_writelane_|v_pk_fmac_|s_cmov|s_cmovk|s_addk_|s_mulk_|"
    r".*_d16_hi|.*_d16(?!_hi))"
)

_REG_RE = re.compile(r"(?<![\w.])(v|a|s|ttmp)(?:(\d+)|\[(\d+):(\d+)\])(?:\.[lh])?(?!\w)")
_SPECIAL_RE = re.compile(
    r"(?<![\w.])(vcc_lo|vcc_hi|vcc|exec_lo|exec_hi|exec|m0|scc|flat_scratch_lo|flat_scratch_hi|"
    r"flat_scratch|xnack_mask)(?!\w)"
)
_LABEL_RE = re.compile(r"^([A-Za-z_.$][\w.$@]*):(.*)$")
_LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)(?:\s+(\d+))?")
_FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?')
_TYPE_FN_RE = re.compile(r"^\s*\.type\s+([^\s,]+)\s*,\s*@function")

MAX_BYTES = 64 * 1024 * 1024


@dataclass(slots=True)
class Operand:
    """One comma-separated operand: a register (range), a special register, a literal, a label or something else."""

    text: str
    kind: str  # "v" | "a" | "s" | "ttmp" | "special" | "literal" | "label" | "off" | "other"
    first: int = -1
    count: int = 0

    @property
    def is_reg(self) -> bool:
        return self.kind in ("v", "a", "s", "ttmp")


@dataclass(slots=True)
class SourceLoc:
    """A ``.loc``: the innermost source position, and the call sites it was inlined at (innermost caller first).

    LLVM writes the inlining chain of each ``.loc`` in its comment (``; standard.py:287:12 @[ standard.py:314:12
    @[ kernel.py:21:12 ] ]``); Triton and FlyDSL inline every library helper, so the innermost line is often theirs.
    :func:`attribute_loc` walks the chain to the user's lines. ``str()`` stays the innermost position.
    """

    file: str
    line: int
    column: int = 0
    directory: str = ""
    inlined_at: tuple[SourceLoc, ...] = ()

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" + (f":{self.column}" if self.column else "")

    @property
    def frames(self) -> tuple[SourceLoc, ...]:
        """The innermost position, then each call site outward."""
        return (self, *self.inlined_at)

    @property
    def path(self) -> str:
        return f"{self.directory.rstrip('/')}/{self.file}" if self.directory else self.file


@dataclass(slots=True)
class Instruction:
    """One instruction line. ``index`` counts instructions within the kernel from 0; ``line`` is the file line."""

    index: int
    line: int
    mnemonic: str
    operands: list[Operand]
    modifiers: str
    text: str
    comment: str
    category: InstructionClass  # tools.isa.mnemonics.classify
    defs: int = 0
    uses: int = 0
    special_defs: tuple[str, ...] = ()
    special_uses: tuple[str, ...] = ()
    target: str | None = None
    loc: SourceLoc | None = None
    labels: list[str] = field(default_factory=list)

    @property
    def is_spill(self) -> bool:
        return self.category in SCRATCH_CLASSES and bool(SPILL_COMMENT_RE.search(self.comment))


@dataclass
class Kernel:
    """One function's body. ``is_kernel`` is False for device functions that no ``.amdhsa_kernel`` describes."""

    name: str
    start_line: int
    instructions: list[Instruction] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)  # label -> index of the instruction it precedes
    is_kernel: bool = True
    metadata: metamod.KernelMetadata | None = None


@dataclass
class IsaFile:
    arch: str | None
    kernels: list[Kernel]
    files: dict[int, str]
    text: str
    directories: dict[int, str] = field(default_factory=dict)  # .file N "dir" "name": N -> dir


# --- classification (tools.isa.mnemonics) ----------------------------------------------------------------------

_STORE_LIKE = {
    "vmem_store",
    "scratch_store",
    "lds_write",
    "waitcnt",
    "barrier",
    "branch",
    "nop",
    "endpgm",
    "vmem_load_lds",
}


# --- operand parsing ------------------------------------------------------------------------------------------

_operand_cache: dict[str, Operand] = {}


def parse_operand(text: str) -> Operand:
    """Typed operand; modifiers such as ``-|v1|`` or ``neg(v1)`` are looked through."""
    op = _operand_cache.get(text)
    if op is not None:
        return op
    m = _REG_RE.search(text)
    if m:
        if m.group(2) is not None:
            first, count = int(m.group(2)), 1
        else:
            first, count = int(m.group(3)), int(m.group(4)) - int(m.group(3)) + 1
        op = Operand(text, m.group(1), first, count)
    else:
        sm = _SPECIAL_RE.search(text)
        if sm:
            op = Operand(text, "special")
        elif text == "off":
            op = Operand(text, "off")
        elif re.fullmatch(r"[-+]?(0x[0-9a-fA-F]+|\d+(\.\d*)?([eE][-+]?\d+)?)", text):
            op = Operand(text, "literal")
        elif re.fullmatch(r"[A-Za-z_.$][\w.$@]*", text):
            op = Operand(text, "label")
        else:
            op = Operand(text, "other")
    if len(_operand_cache) < 200_000:
        _operand_cache[text] = op
    return op


def reg_mask(op: Operand) -> int:
    """Bits of a register operand in the kernel's combined numbering (0 for non-registers and ttmp)."""
    if op.kind == "v":
        return ((1 << op.count) - 1) << op.first
    if op.kind == "a":
        return ((1 << op.count) - 1) << (AGPR_BASE + op.first)
    if op.kind == "s":
        return ((1 << op.count) - 1) << (SGPR_BASE + op.first)
    return 0


def _split_operands(rest: str) -> tuple[list[str], str]:
    """Split on commas outside brackets; words after the last operand are modifiers (``offset:16 sc0``)."""
    if not rest:
        return [], ""
    parts = rest.split(",") if "(" not in rest and ",[" not in rest and ", [" not in rest else _SPLIT_RE.split(rest)
    parts = [p.strip() for p in parts]
    last = parts[-1]
    modifiers = ""
    # ``-|v1|`` and ``neg(v1)`` have no space inside; ``v1 offset:4`` and ``vmcnt(0) lgkmcnt(0)`` do.
    sp = last.find(" ")
    if sp > 0:
        head, tail = last[:sp], last[sp + 1 :].strip()
        parts[-1] = head
        modifiers = tail
    return [p for p in parts if p], modifiers


def _def_use(mnemonic: str, category: str, ops: list[Operand], modifiers: str) -> tuple[int, int, tuple, tuple]:
    defs = uses = 0
    sdefs: list[str] = []
    suses: list[str] = []
    first_def = bool(ops) and category not in _STORE_LIKE and not mnemonic.startswith(_NO_DEF_PREFIXES)
    if category == "vmem_atomic" or (
        category == "lds_other"
        and not mnemonic.startswith(("ds_swizzle", "ds_bpermute", "ds_permute", "ds_append", "ds_consume"))
    ):
        returns = "_rtn" in mnemonic or bool(re.search(r"(^|\s)(glc|sc0|th:TH_ATOMIC_RETURN)(\s|$)", modifiers))
        first_def = returns and category == "lds_other" or (returns and not mnemonic.startswith("buffer_"))
        if returns and mnemonic.startswith("buffer_"):
            defs |= reg_mask(ops[0])  # buffer atomics return into their data register
    second_def = first_def and len(ops) > 1 and _SECOND_DEF_RE.match(mnemonic) is not None
    reads_dst = first_def and _READS_DST_RE.match(mnemonic) is not None
    for i, op in enumerate(ops):
        is_def = (i == 0 and first_def) or (i == 1 and second_def)
        if op.kind == "special":
            name = op.text.strip("-|!() ")
            (sdefs if is_def else suses).append(name)
            if is_def and reads_dst:
                suses.append(name)
            continue
        mask = reg_mask(op)
        if not mask:
            continue
        if is_def:
            defs |= mask
            if reads_dst and i == 0:
                uses |= mask
        else:
            uses |= mask
    return defs, uses, tuple(sdefs), tuple(suses)


# --- file parsing ---------------------------------------------------------------------------------------------


def _check_text(text: str | bytes, origin: str) -> str:
    if isinstance(text, bytes):
        if b"\x00" in text[:65536] or text[:4] == b"\x7fELF":
            raise InputError(
                f"{origin} is binary data, not AMDGCN assembly text",
                hint="pass the .s/.amdgcn text (hipcc --save-temps, FLYDSL_DUMP_IR=1, triton's asm['amdgcn']); "
                "for a code object run llvm-objdump -d first",
            )
        text = text.decode("utf-8", errors="replace")
    if len(text) > MAX_BYTES:
        raise InputError(
            f"{origin} is {len(text) // 2**20} MiB; the limit is {MAX_BYTES // 2**20} MiB",
            hint="split the file per kernel or pass --kernel on a smaller dump",
        )
    if "\x00" in text[:65536]:
        raise InputError(f"{origin} is binary data, not AMDGCN assembly text", hint="pass the .s text")
    return text


def parse_isa(text: str | bytes, origin: str = "input") -> IsaFile:
    """Every function in the text, in file order, with metadata attached where the file has any.

    Raises InputError when the text holds no AMDGCN instruction at all.
    """
    text = _check_text(text, origin)
    # Parsing allocates ~3 objects per line and frees none: the cyclic GC would only rescan them.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, origin)
    finally:
        if gc_was_enabled:
            gc.enable()


# Long because: one pass over the lines whose state (current kernel, .loc, .file table, pending labels, section,
# block comment) lives in locals; it is the hot path of every AMD analysis (run with gc off), one line per iteration
def _parse(text: str, origin: str) -> IsaFile:
    fn_names = {m.group(1) for m in (_TYPE_FN_RE.match(ln) for ln in text.splitlines() if ".type" in ln) if m}
    try:
        metas = metamod.read_kernel_metadata(text)
        meta_error = None
    except InputError as exc:  # keep the code analysable when only the YAML is broken
        metas, meta_error = {}, exc
    fn_names |= set(metas)
    kernels: list[Kernel] = []
    files: dict[int, str] = {}
    dirs: dict[int, str] = {}
    cur: Kernel | None = None
    loc: SourceLoc | None = None
    pending_labels: list[str] = []
    in_text = True
    in_asm_block_comment = False

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if in_asm_block_comment:
            if "*/" in line:
                in_asm_block_comment = False
                line = line.split("*/", 1)[1].strip()
                if not line:
                    continue
            else:
                continue
        if line.startswith("/*") and "*/" not in line:
            in_asm_block_comment = True
            continue
        c = line[0]
        if c == ";" or c == "#" or line.startswith("//"):
            continue
        if c == ".":
            if line.startswith(".loc"):
                m = _LOC_RE.match(line)
                if m:
                    n = int(m.group(1))
                    loc = SourceLoc(
                        files.get(n, f"file{n}"),
                        int(m.group(2)),
                        int(m.group(3) or 0),
                        dirs.get(n, ""),
                        _inline_chain(line) if "@[" in line else (),
                    )
                continue
            if line.startswith(".file"):
                m = _FILE_RE.match(line)
                if m:
                    files[int(m.group(1))] = m.group(3) or m.group(2)
                    if m.group(3) and m.group(2):
                        files[int(m.group(1))] = m.group(3)
                        dirs[int(m.group(1))] = m.group(2)
                continue
            if line.startswith((".section", ".text", ".data", ".bss", ".rodata")):
                in_text = line.startswith(".text") or (line.startswith(".section") and ".text" in line)
                continue
            lm = _LABEL_RE.match(line)
            if not lm:
                continue  # a directive
        else:
            colon = line.find(":")
            lm = None
            if colon > 0:
                sp = line.find(" ")
                if sp < 0 or colon < sp:
                    lm = _LABEL_RE.match(line)
        if lm:
            name = lm.group(1)
            rest = lm.group(2).strip()
            if cur is not None and name == f".L{cur.name}$local":
                pass  # LLVM's dso_local alias of the function just opened (Mojo emits one per kernel)
            elif name in fn_names or (cur is None and in_text and not name.startswith(".L")):
                cur = Kernel(name=name, start_line=lineno, is_kernel=name in metas or not metas)
                kernels.append(cur)
                pending_labels = []
                loc = None
            elif name.startswith(".Lfunc_end"):
                cur = None
                continue
            elif cur is not None:
                pending_labels.append(name)
            if not rest or rest.startswith((";", "//")):
                continue
            line = rest
        if cur is None or not in_text:
            continue
        _add_instruction(cur, line, lineno, loc, pending_labels)
        pending_labels = []

    kernels = [k for k in kernels if k.instructions]
    if not kernels:
        raise InputError(
            f"{origin} holds no AMDGCN instructions",
            hint="pass the final ISA (.s/.amdgcn) of a kernel, or a dump directory containing *final_isa.s",
        )
    for k in kernels:
        k.metadata = metas.get(k.name)
        if meta_error is not None:
            k.metadata = metamod.KernelMetadata(name=k.name, notes=[f"metadata unreadable: {meta_error.message}"])
    _fill_caller_directories(kernels, files, dirs)
    return IsaFile(arch=metamod.detect_arch(text), kernels=kernels, files=files, text=text, directories=dirs)


_decoded_cache: dict[tuple[str, bool], tuple] = {}
_SPLIT_RE = re.compile(r",(?![^\[(]*[\])])")


def _decode(line: str, spill: bool) -> tuple | None:
    """Mnemonic, operands, modifiers, category, def/use of one instruction text; cached, lines repeat a lot."""
    key = (line, spill)
    hit = _decoded_cache.get(key)
    if hit is not None:
        return hit
    sp = line.find(" ")
    tab = line.find("\t")
    if tab >= 0 and (sp < 0 or tab < sp):
        sp = tab
    if sp < 0:
        mnemonic, rest = line, ""
    else:
        mnemonic, rest = line[:sp], line[sp + 1 :].strip()
    if not (mnemonic[:2] in ("v_", "s_") or mnemonic.startswith(_MEM_PREFIXES)):
        return None  # not an instruction (stray directive or data)
    if mnemonic in _NO_OPERAND_MNEMONICS:
        words, modifiers = [], rest
    else:
        words, modifiers = _split_operands(rest)
    ops = [parse_operand(w) for w in words]
    category = classify(mnemonic, modifiers, "Folded Spill" if spill else "")
    defs, uses, sdefs, suses = _def_use(mnemonic, category, ops, modifiers)
    target = None
    if category == "branch" and mnemonic.startswith(("s_branch", "s_cbranch")) and ops:
        target = ops[-1].text
    out = (mnemonic, ops, modifiers, category, defs, uses, sdefs, suses, target)
    if len(_decoded_cache) < 500_000:
        _decoded_cache[key] = out
    return out


_MEM_PREFIXES = ("ds_", "buffer_", "global_", "flat_", "scratch_", "tbuffer_", "image_", "exp", "export")
_NO_OPERAND_MNEMONICS = {
    "s_waitcnt",
    "s_nop",
    "s_endpgm",
    "s_barrier",
    "s_setprio",
    "s_sleep",
    "s_wait_loadcnt",
    "s_wait_dscnt",
    "s_wait_storecnt",
    "s_wait_kmcnt",
}


def _add_instruction(k: Kernel, line: str, lineno: int, loc: SourceLoc | None, labels: list[str]) -> None:
    comment = ""
    spill = False
    semi = line.find(";")
    if semi >= 0:
        comment = line[semi + 1 :].strip()
        line = line[:semi].rstrip()
        spill = SPILL_COMMENT_RE.search(comment) is not None
    if "//" in line:
        slash = line.find("//")
        comment = comment or line[slash + 2 :].strip()
        line = line[:slash].rstrip()
    if not line:
        return
    decoded = _decode(line, spill)
    if decoded is None:
        return
    mnemonic, ops, modifiers, category, defs, uses, sdefs, suses, target = decoded
    index = len(k.instructions)
    if labels:
        for lab in labels:
            k.labels[lab] = index
        labels = list(labels)
    else:
        labels = _NO_LABELS
    k.instructions.append(
        Instruction(
            index,
            lineno,
            mnemonic,
            ops,
            modifiers,
            line,
            comment,
            category,
            defs,
            uses,
            sdefs,
            suses,
            target,
            loc,
            labels,
        )
    )


_NO_LABELS: list[str] = []


def load_isa_text(path) -> str:
    """Read a file as text, with the errors the user can act on."""
    from pathlib import Path

    p = Path(path)
    if not p.exists():
        raise InputError(f"{p} does not exist", hint="pass an ISA file (.s/.amdgcn) or a dump directory")
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise InputError(
            f"{p} is {size // 2**20} MiB; the limit is {MAX_BYTES // 2**20} MiB", hint="split the file per kernel"
        )
    return _check_text(p.read_bytes(), str(p))


def find_kernel(isa: IsaFile, name: str) -> Kernel:
    """The kernel called ``name`` (exact, then unique substring); InputError lists the names there are."""
    for k in isa.kernels:
        if k.name == name:
            return k
    hits = [k for k in isa.kernels if name in k.name]
    if len(hits) == 1:
        return hits[0]
    names = ", ".join(k.name for k in isa.kernels)
    raise InputError(f"no kernel named '{name}'" + (" (ambiguous)" if hits else ""), hint=f"kernels here: {names}")


# --- source attribution through inlined-at locations ---------------------------------------------------------

_CHAIN_FRAME_RE = re.compile(r"@\[\s*([^\s@\[\]]+?):(\d+)(?::(\d+))?\s")
_chain_cache: dict[str, tuple[SourceLoc, ...]] = {}


def _inline_chain(line: str) -> tuple[SourceLoc, ...]:
    """The ``@[ file:line:col`` call sites in a ``.loc`` comment, innermost caller first (cached: lines repeat)."""
    comment = line.split(";", 1)[1] if ";" in line else ""
    hit = _chain_cache.get(comment)
    if hit is None:
        hit = tuple(
            SourceLoc(f, int(ln), int(col or 0)) for f, ln, col in _CHAIN_FRAME_RE.findall(comment.replace("]", " ]"))
        )
        _chain_cache[comment] = hit
    return hit


def _fill_caller_directories(kernels: list[Kernel], files: dict[int, str], dirs: dict[int, str]) -> None:
    """Call sites in ``.loc`` comments carry base names only: give them the directory of the ``.file`` so named."""
    by_name: dict[str, str] = {}
    for n, name in files.items():
        by_name.setdefault(name, dirs.get(n, ""))
    for k in kernels:
        for i in k.instructions:
            if i.loc is not None:
                for f in i.loc.inlined_at:
                    if not f.directory:
                        f.directory = by_name.get(f.file, "")
