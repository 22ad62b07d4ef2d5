"""What the live registers are: value kinds by defining instruction, spills, loop-carried state, and suggestions.

Pure analyses over a parsed kernel, its CFG and its liveness; ``tools.vgpr_pressure`` turns them into a report.
The value of a live register at point p is attributed to its nearest definition before p in program order, or — for
values carried around a loop back edge — to the last definition in the kernel (wrap-around). An in-place rewrite such
as ``v_bfi_b32 v104, s21, v104, v104`` is looked through to the instruction that produced the value.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from dataclasses import dataclass

from tools.isa.amdgcn import AGPR_BASE, VGPR_MASK, Instruction, Kernel, reg_mask
from tools.isa.cfg import Cfg, HotLoop
from tools.isa.liveness import Liveness, vgprs
from tools.isa.source_attr import attribute_loc
from tools.models.vgpr import ValueKind

_NARROW_LOAD_RE = re.compile(r"_(dword|b32|ushort|u16|short|b16|ubyte|u8|sbyte|i8|sshort|i16)$")
_SCALE_CONSUMER_RE = re.compile(r"^v_(mul|pk_mul|fma|pk_fma|fmac|mac|mfma_scale|cvt_scale|mad)")
_ADD_RE = re.compile(r"^v_(add|pk_add|fma|pk_fma|fmac|mac)_f(32|64)")
_FMA_RE = re.compile(r"^v_(fma|pk_fma|fmac|pk_fmac|mac|mad|dot\d*)_")
_SLOT_RE = re.compile(r"offset:(\d+)")


def fmt_regs(prefix: str, regs: list[int]) -> str:
    """``v[2:5], v9`` style compact list."""
    out, i = [], 0
    regs = sorted(regs)
    while i < len(regs):
        j = i
        while j + 1 < len(regs) and regs[j + 1] == regs[j] + 1:
            j += 1
        out.append(f"{prefix}{regs[i]}" if i == j else f"{prefix}[{regs[i]}:{regs[j]}]")
        i = j + 1
    return ", ".join(out)


@dataclass(frozen=True)
class ValueInfo:
    reg: int  # bit index in the combined numbering
    kind: ValueKind
    def_index: int | None


@dataclass(frozen=True)
class LiveGroup:
    """Live registers whose values have one kind (``group_live``, ``group_sass_live``), with one defining
    instruction as the example (None when every value is a kernel input)."""

    kind: ValueKind
    regs: list[int]
    example: int | None


class _DefUse:
    """Per-register lists of defining and reading instruction indices (``defs``, ``uses``) over ``insts``."""

    insts: list
    defs: dict[int, list[int]]
    uses: dict[int, list[int]]

    def reaching_def(self, reg: int, at: int) -> int | None:
        """Nearest definition before ``at`` in program order; the last one in the kernel when none precedes it."""
        lst = self.defs.get(reg)
        if not lst:
            return None
        pos = bisect.bisect_left(lst, at)
        return lst[pos - 1] if pos > 0 else lst[-1]

    def consumers(self, reg: int, d: int, limit: int = 64) -> list:
        """Instructions reading the value defined at ``d`` (program order, until the register is redefined)."""
        lst, dl = self.uses.get(reg, []), self.defs.get(reg, [])
        pos = bisect.bisect_right(dl, d)
        next_def = dl[pos] if pos < len(dl) else len(self.insts)
        out = []
        for u in lst[bisect.bisect_right(lst, d) :]:
            if u > next_def or len(out) >= limit:
                break
            out.append(self.insts[u])
        return out


class Attributor(_DefUse):
    """Answers 'which instruction produced the value of register r seen at instruction p, and what kind is it'."""

    def __init__(self, kernel: Kernel):
        self.k = kernel
        self.insts = kernel.instructions
        defs: dict[int, list[int]] = defaultdict(list)
        uses: dict[int, list[int]] = defaultdict(list)
        for i in self.insts:
            for bit in _iter_bits(i.defs):
                defs[bit].append(i.index)
            for bit in _iter_bits(i.uses):
                uses[bit].append(i.index)
        self.defs = defs
        self.uses = uses
        self.reloads_by_slot: dict[str, list[Instruction]] = defaultdict(list)
        for i in self.insts:
            if i.category == "scratch_load":
                self.reloads_by_slot[spill_slot(i)].append(i)
        self.acc_regs = 0
        for i in self.insts:
            if i.category == "mfma" and i.operands:
                self.acc_regs |= i.defs
                if len(i.operands) >= 4:
                    self.acc_regs |= reg_mask(i.operands[3])
        # VALU adds/FMAs that fold an MFMA result into a running sum (per-block accumulation, e.g. block scales).
        self.folds = {i.index for i in self.insts if self._folds_mfma_result(i)}
        self.fold_regs = 0
        for j in self.folds:
            self.fold_regs |= self.insts[j].defs
        self._address_memo: dict[tuple[int, int], bool] = {}

    def _folds_mfma_result(self, i: Instruction) -> bool:
        if not _ADD_RE.match(i.mnemonic) or not (i.defs & i.uses & VGPR_MASK):
            return False
        for reg in _iter_bits(i.uses & VGPR_MASK & ~i.defs):
            d = self.reaching_def(reg, i.index)
            if d is not None and self.insts[d].category == "mfma":
                return True
        return False

    def origin(self, reg: int, at: int) -> int | None:
        """Defining instruction, looking through in-place VALU rewrites (up to 8 steps)."""
        d = self.reaching_def(reg, at)
        for _ in range(8):
            if d is None:
                return None
            i = self.insts[d]
            if (
                i.category in ("valu", "cndmask")
                and (i.uses >> reg) & 1
                and i.mnemonic.startswith(("v_bfi", "v_perm", "v_cvt_pk", "v_pk_"))
            ):
                prev = self.reaching_def(reg, d)
                if prev is None or prev == d:
                    return d
                d = prev
                continue
            return d
        return d

    def kind(self, reg: int, at: int) -> ValueInfo:
        """Kind of the value in ``reg`` at instruction ``at``: an MFMA accumulator when an MFMA wrote it or reads it as
        srcC, otherwise named after the instruction that produced it: one of ``AmdValueKind``, ``other`` for an
        instruction outside the named kinds."""
        d = self.origin(reg, at)
        if d is None:
            return ValueInfo(reg, "kernel_input", None)
        if (
            self.insts[d].category == "mfma"
            or (self.acc_regs >> reg) & 1
            and any(
                u.category == "mfma" and len(u.operands) >= 4 and (reg_mask(u.operands[3]) >> reg) & 1
                for u in self.consumers(reg, d)
            )
        ):
            return ValueInfo(reg, "mfma_accumulator", d)
        i = self.insts[d]
        c = i.category
        if (self.fold_regs >> reg) & 1 and (
            d in self.folds or any(u.index in self.folds and (u.defs >> reg) & 1 for u in self.consumers(reg, d))
        ):
            return ValueInfo(reg, "valu_accumulator", d)
        if c == "vmem_load":
            if _NARROW_LOAD_RE.search(i.mnemonic) and any(
                self._scales_accumulated(u, reg) for u in self.consumers(reg, d)
            ):
                return ValueInfo(reg, "scale_load", d)
            return ValueInfo(reg, "global_load", d)
        if c == "lds_read":
            return ValueInfo(reg, "lds_fragment", d)
        if c == "scratch_load":
            return ValueInfo(reg, "spill_reload", d)
        if c == "accvgpr_move":
            return ValueInfo(reg, "agpr_copy", d)
        if c in ("valu", "cndmask"):
            if self.is_scale_product(d):
                return ValueInfo(reg, "scale_product", d)
            if self._feeds_address(reg, d, 4) or self._reloaded_as_address(reg, d):
                return ValueInfo(reg, "address", d)
            return ValueInfo(reg, "valu_other", d)
        if c == "lds_other":  # ds_bpermute/ds_swizzle (a reduction's lane shuffle), an LDS atomic with return
            return ValueInfo(reg, "lds_other", d)
        return ValueInfo(reg, "other", d)  # a returning global/buffer atomic, an unknown mnemonic

    def _scales_accumulated(self, u: Instruction, reg: int) -> bool:
        """``u`` multiplies ``reg`` with an MFMA or FMA result (or is a scaled MFMA), directly or through a product of
        two scales (a_scale * b_scale): only then is a narrow load a scale. A weight multiplied into plain data
        (``x * w``) is a global load like any other."""
        if u.category == "mfma":
            return u.mnemonic.startswith("v_mfma_scale")
        if not _SCALE_CONSUMER_RE.match(u.mnemonic):
            return False
        if self._multiplies_accumulator(u, reg):
            return True
        if u.mnemonic.startswith(("v_mul_f", "v_pk_mul_f")) and self._is_scale_product_shape(u.index):
            dest = next(iter(_iter_bits(u.defs & VGPR_MASK)), None)
            return dest is not None and any(
                self._multiplies_accumulator(c, dest) for c in self.consumers(dest, u.index, limit=16)
            )
        return False

    def _multiplies_accumulator(self, u: Instruction, reg: int) -> bool:
        """Another VGPR source of the multiply ``u`` (not ``reg``) holds an MFMA/FMA result or an MFMA accumulator."""
        if not _SCALE_CONSUMER_RE.match(u.mnemonic):
            return False
        for op in u.operands[1:]:
            if op.kind != "v" or op.first <= reg < op.first + max(op.count, 1):
                continue
            d = self.origin(op.first, u.index)
            if d is None:
                continue
            src = self.insts[d]
            if src.category == "mfma" or (self.acc_regs >> op.first) & 1 or _FMA_RE.match(src.mnemonic):
                return True
        return False

    def _is_scale_product_shape(self, d: int) -> bool:
        """``d`` multiplies two narrow loads (a_scale * b_scale) — checked on the loads' shape, not their kind."""
        srcs = {op.first for op in self.insts[d].operands[1:] if op.kind == "v"}
        if len(srcs) < 2:
            return False
        for r in srcs:
            o = self.origin(r, d)
            if o is None or self.insts[o].category != "vmem_load" or not _NARROW_LOAD_RE.search(self.insts[o].mnemonic):
                return False
        return True

    def is_scale_product(self, d: int) -> bool:
        """``d`` multiplies two or more VGPRs that all hold scale loads (a_scale * b_scale)."""
        i = self.insts[d]
        if not i.mnemonic.startswith(("v_mul_f", "v_pk_mul_f")):
            return False
        srcs = {op.first for op in i.operands[1:] if op.kind == "v"}
        return len(srcs) >= 2 and all(self.kind(r, d).kind == "scale_load" for r in srcs)

    def _feeds_address(self, reg: int, d: int, depth: int) -> bool:
        """The value is a memory address operand, directly or through VALU arithmetic (base pointer + offset)."""
        key = (reg, d)
        if key in self._address_memo:
            return self._address_memo[key]
        self._address_memo[key] = False  # cycles through the back edge are not addresses by themselves
        found = False
        for u in self.consumers(reg, d):
            if is_address_use(u, reg):
                found = True
            elif depth and u.category == "valu" and u.index != d:
                found = any(self._feeds_address(r, u.index, depth - 1) for r in _iter_bits(u.defs & VGPR_MASK))
            if found:
                break
        self._address_memo[key] = found
        return found

    def _reloaded_as_address(self, reg: int, d: int) -> bool:
        """A value spilled right after its definition: is it used as an address after a reload of its slot?"""
        for u in self.consumers(reg, d, limit=8):
            if u.category != "scratch_store" or stored_register(u) != reg:
                continue
            for r in self.reloads_by_slot.get(spill_slot(u), [])[:8]:
                if r.operands and r.operands[0].kind == "v":
                    rr = r.operands[0].first
                    if any(is_address_use(x, rr) for x in self.consumers(rr, r.index, limit=8)):
                        return True
        return False


def _iter_bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def is_address_use(inst: Instruction, reg: int) -> bool:
    """True when ``reg`` is an address operand (not the data) of a memory instruction."""
    c = inst.category
    ops = inst.operands
    if c in ("vmem_load", "scratch_load", "lds_read", "vmem_load_lds"):
        addr_ops = ops if c == "vmem_load_lds" else ops[1:]
    elif c in ("vmem_store", "scratch_store", "vmem_atomic"):
        addr_ops = ops[1:] if inst.mnemonic.startswith(("buffer_", "tbuffer_")) else ops[:1] + ops[2:]
    elif c == "lds_write":
        addr_ops = ops[:1]
    else:
        return False
    return any((reg_mask(o) >> reg) & 1 for o in addr_ops)


def group_live(att: Attributor, live: int, at: int, liveness_src=None) -> tuple[list[LiveGroup], dict[str, list[int]]]:
    """Live VGPRs at ``at`` grouped by value kind (largest first) and by source line of their definition."""
    by_kind: dict[ValueKind, list[tuple[int, int | None]]] = defaultdict(list)
    by_src: dict[str, list[int]] = defaultdict(list)
    for reg in vgprs(live):
        info = att.kind(reg, at)
        by_kind[info.kind].append((reg, info.def_index))
        loc = att.insts[info.def_index].loc if info.def_index is not None else None
        by_src[str(attribute_loc(loc))].append(reg)  # the user's line, through inlined library code
    groups = []
    for kind, items in sorted(by_kind.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        example = next((d for _, d in items if d is not None), None)
        groups.append(LiveGroup(kind, [r for r, _ in items], example))
    return groups, by_src


def loop_carried(cfg: Cfg, lv: Liveness, hot: HotLoop) -> int:
    """VGPRs live into the loop header that the loop body redefines (values that travel around the back edge)."""
    body_defs = 0
    for i in hot.loop.instruction_indices(cfg):
        body_defs |= cfg.kernel.instructions[i].defs
    return lv.live_in[hot.loop.header] & body_defs


@dataclass
class SpillFacts:
    stores: list[Instruction]
    reloads: list[Instruction]
    agpr_slots: list[int]


def find_spills(kernel: Kernel) -> SpillFacts:
    """Scratch spill stores/reloads (by their 'Folded Spill/Reload' comments, or any scratch op when the compiler
    wrote no comment) and AGPRs used purely as spill slots (written from and read back into VGPRs, never by MFMA)."""
    stores = [i for i in kernel.instructions if i.category == "scratch_store"]
    reloads = [i for i in kernel.instructions if i.category == "scratch_load"]
    written: set[int] = set()
    read: set[int] = set()
    mfma_agprs = 0
    for i in kernel.instructions:
        if i.category == "mfma":
            mfma_agprs |= i.defs | i.uses
        elif i.mnemonic.startswith("v_accvgpr_write") and i.operands and i.operands[0].kind == "a":
            if len(i.operands) > 1 and i.operands[1].kind == "v":
                written.add(i.operands[0].first)
        elif i.mnemonic.startswith("v_accvgpr_read") and len(i.operands) > 1 and i.operands[1].kind == "a":
            read.add(i.operands[1].first)
    slots = sorted(a for a in written & read if not (mfma_agprs >> (AGPR_BASE + a)) & 1)
    return SpillFacts(stores, reloads, slots)


def spill_slot(inst: Instruction) -> str:
    m = _SLOT_RE.search(inst.modifiers)
    return f"scratch+{m.group(1) if m else 0}"


def stored_register(inst: Instruction) -> int | None:
    """Bit of the first VGPR a spill store writes out (data operand)."""
    ops = inst.operands
    data = ops[0] if inst.mnemonic.startswith(("buffer_", "tbuffer_")) else (ops[1] if len(ops) > 1 else None)
    if data is None or data.kind not in ("v", "a"):
        return None
    return data.first + (AGPR_BASE if data.kind == "a" else 0)


# --- NVIDIA SASS ---------------------------------------------------------------------------------------------

_SASS_INT_ALU = ("IMAD", "IADD3", "IADD", "LEA", "VIADD", "SHF", "SHL", "SHR", "LOP3", "SGXT", "ISCADD", "IABS", "SEL")
_SASS_INT_ALU += ("IMNMX", "VIMNMX", "PRMT", "MOV", "BMSK", "FLO", "POPC", "BREV")


class SassAttributor(_DefUse):
    """What defined the value of GPR r seen at instruction p in a SASS function: the nearest definition before p in
    program order (nvdisasm's ``^``/``x`` marks), or the last one in the function for values around a back edge."""

    def __init__(self, insts):
        self.insts = insts
        self.defs: dict[int, list[int]] = defaultdict(list)
        self.uses: dict[int, list[int]] = defaultdict(list)
        # nvdisasm's marks are exact (an HGMMA reads and writes all 32 accumulator registers its text names as R24);
        # the operand text is the fallback for listings without life ranges.
        marks = any(i.live for i in insts)
        for i in insts:
            for r in sorted(i.gpr_defs if marks else i.defs):
                self.defs[r].append(i.index)
            for r in sorted(i.gpr_uses if marks else i.uses):
                self.uses[r].append(i.index)
        self.marks = marks
        self._address_memo: dict[tuple[int, int], bool] = {}

    def defined(self, inst) -> frozenset[int] | set[int]:
        return inst.gpr_defs if self.marks else inst.defs

    def kind(self, reg: int, at: int) -> ValueInfo:
        """mma_accumulator | global_load | shared_load | spill_reload | constant_load | special_register | address |
        alu_other | kernel_input."""
        d = self.reaching_def(reg, at)
        if d is None:
            return ValueInfo(reg, "kernel_input", None)
        i = self.insts[d]
        if i.is_mma or any(u.is_mma and reg in self.defined(u) for u in self.consumers(reg, d)):
            return ValueInfo(reg, "mma_accumulator", d)
        root = i.root
        if root in ("LDG", "LD"):
            return ValueInfo(reg, "global_load", d)
        if root in ("LDS", "LDSM"):
            return ValueInfo(reg, "shared_load", d)
        if root == "LDL":
            return ValueInfo(reg, "spill_reload", d)
        if root == "LDC":
            return ValueInfo(reg, "constant_load", d)
        if root == "S2R" or root == "CS2R" and "SRZ" not in i.operands:
            return ValueInfo(reg, "special_register", d)
        if root in _SASS_INT_ALU and self._feeds_address(reg, d, 4):
            return ValueInfo(reg, "address", d)
        return ValueInfo(reg, "alu_other", d)

    def _feeds_address(self, reg: int, d: int, depth: int) -> bool:
        key = (reg, d)
        if key not in self._address_memo:
            self._address_memo[key] = False
            found = False
            for u in self.consumers(reg, d):
                if reg in u.address_regs:
                    found = True
                elif depth and u.root in _SASS_INT_ALU and u.index != d:
                    found = any(self._feeds_address(r, u.index, depth - 1) for r in self.defined(u))
                if found:
                    break
            self._address_memo[key] = found
        return self._address_memo[key]


def group_sass_live(att: SassAttributor, live, at: int) -> tuple[list[LiveGroup], dict[str, list[int]]]:
    """Live GPRs at ``at`` grouped by value kind (largest first) and by source line of their definition."""
    by_kind: dict[ValueKind, list[tuple[int, int | None]]] = defaultdict(list)
    by_src: dict[str, list[int]] = defaultdict(list)
    defined_here = att.defined(att.insts[at])
    for reg in sorted(live):
        info = att.kind(reg, at + 1 if reg in defined_here else at)
        by_kind[info.kind].append((reg, info.def_index))
        src = att.insts[info.def_index].source if info.def_index is not None else None
        by_src[src or "(no line info)"].append(reg)
    groups = []
    for kind, items in sorted(by_kind.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        example = next((d for _, d in items if d is not None), None)
        groups.append(LiveGroup(kind, [r for r, _ in items], example))
    return groups, by_src
