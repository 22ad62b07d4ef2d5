"""SASS → per-instruction costs, loops and bytes in flight for the timing model.

Costs are per warp on one SM sub-partition: every instruction one issue slot, an FP32 op ``valu_cycles``, a
tensor-core MMA its FLOP / the sub-partition's dense FLOP per clock (``tensor_flops_per_cycle`` / 4; mma.sync at
``legacy_mma_fraction`` of it on sm_90). Bytes: a global or shared access moves its width per lane x 32 lanes;
``LDSM...x4`` moves four 8x8 matrices of 16-bit elements.
"""

from __future__ import annotations

import re

from tools.isa.machines import Machine
from tools.isa.sass import ALU_PREFIXES, SassInst, find_loops, guarded_regions, parse_sass
from tools.predict.model import WaveWork
from tools.predict.warpspec import warp_specialised
from tools.predict.work import InstCost, IsaLoop, wave_work

_MMA_SHAPE_RE = re.compile(r"MMA\.(\d+)")
_GMMA_RE = re.compile(r"GMMA\.(\d+)\s*x(\d+)x(\d+)")


def access_bytes(opcode: str) -> int:
    """Bytes per lane of a global / shared / local access (``LDG.E.128`` → 16, ``LDG.E.U16`` → 2)."""
    parts = opcode.split(".")
    for p in parts[1:]:
        if p in ("128", "64", "32"):
            return int(p) // 8
        if p in ("U8", "S8"):
            return 1
        if p in ("U16", "S16"):
            return 2
    return 4


def _mma_text(i: SassInst) -> str:
    """The MMA's whole mnemonic: the SASS parser ends the opcode at a digit-led part (``HGMMA.64`` +
    ``x64x16.F32 ...``), so the shape and types are read from the opcode and the operands' first token."""
    first = i.operands.split(" ", 1)[0] if i.operands.startswith("x") else ""
    return i.opcode + first


def _mma_dtype(opcode: str) -> str:
    if opcode.startswith("DMMA"):
        return "fp64"
    if opcode.startswith(("IMMA", "IGMMA")):
        return "int8"
    if opcode.startswith("QGMMA") or ".E4M3" in opcode or ".E5M2" in opcode:
        return "fp8"
    if ".TF32" in opcode:
        return "tf32"
    return "bf16" if ".BF16" in opcode else "fp16"


def _mma_flops(i: SassInst) -> float:
    """FLOP of one warp's MMA instruction (a warpgroup's GMMA split over its 4 warps)."""
    g = _GMMA_RE.search(_mma_text(i))
    if g:
        mm, nn, kk = (int(x) for x in g.groups())
        return 2 * mm * nn * kk / 4
    s = _MMA_SHAPE_RE.search(i.opcode)
    if s:
        digits = s.group(1)  # 16816 → m16 n8 k16; 1688 → m16 n8 k8; 884 → m8 n8 k4
        m, rest = (16, digits[2:]) if digits.startswith("16") else (int(digits[0]), digits[1:])
        if len(rest) >= 2:
            return 2.0 * m * int(rest[0]) * int(rest[1:])
    return 2.0 * 16 * 8 * 16


# FLOP per lane of the SASS arithmetic that counts as FLOP (an FMA two; packed half2 ops two lanes' worth)
_LANE_FLOPS = {"FFMA": 2, "DFMA": 2, "HFMA2": 4, "FMUL": 1, "FADD": 1, "DMUL": 1, "DADD": 1, "HMUL2": 2, "HADD2": 2}


def warp_flops(i: SassInst, lanes: int = 32) -> float:
    """FLOP one warp's instruction performs (an MMA its shape; FP arithmetic per lane x lanes; else 0)."""
    if i.is_mma:
        return _mma_flops(i)
    if i.opcode.startswith(("HADD2.F32", "HFMA2.MMA")) and "-RZ" in i.operands:
        return 0.0  # the half -> float conversion (-0 + x) and the register zeroing idioms: moves, not FLOP
    return _LANE_FLOPS.get(i.root, 0) * lanes


def flops_split(sass_text: str, kernel: str, lanes: int = 32) -> tuple[float, float]:
    """(FLOP per warp outside every loop, FLOP per warp inside loops): with ``--trips N`` every loop runs N times,
    so the FLOP at N trips is the first + N x the second (one level of nesting)."""
    f = find_function(parse_sass(sass_text), kernel)
    inside = {n for lp in find_loops(f) for n in range(lp.first, lp.last + 1)}
    once = sum(warp_flops(i, lanes) for n, i in enumerate(f.insts) if n not in inside)
    return once, sum(warp_flops(f.insts[n], lanes) for n in inside)


# the integer and conversion instructions of a dequantisation (int8 -> bf16: PRMT into a bf16 exponent, LOP3, IMAD;
# fp8 -> f16: F2FP ... UNPACK_B; I2F / F2F) and of address arithmetic: they share the SM sub-partition's lanes with
# FP32 at their own, lower rate (devices whose machine file states ``int_valu_cycles`` / ``convert_valu_cycles``)
_INT_ROOTS = frozenset(
    ("IMAD", "IADD3", "LOP3", "PRMT", "LEA", "SHF", "SGXT", "IABS", "IMNMX", "VIMNMX", "BMSK", "SEL")
)
_CONVERT_ROOTS = frozenset(("I2F", "F2F", "F2I", "I2FP", "F2FP", "F2IP", "FRND"))


def pipe_cycles(root: str, m: Machine) -> float:
    """Cycles a warp's integer or conversion instruction holds the lanes it shares with FP32 (0: not such an
    instruction, or the machine file does not state the rate)."""
    key = "int_valu_cycles" if root in _INT_ROOTS else "convert_valu_cycles" if root in _CONVERT_ROOTS else None
    return m.figures[key][0] if key and key in m.figures else 0.0


def inst_cost(i: SassInst, m: Machine) -> InstCost:
    root = i.root
    lanes = m.value("wave_size")
    dep = m.value("dependent_issue_cycles")
    if i.is_mma:
        per_sub = m.table("tensor_flops_per_cycle").get(_mma_dtype(_mma_text(i)), 1024) / m.value("issue_units_per_cu")
        # wgmma: the table's rate, at the share a full load sustains where the device file measured it
        sustained = m.figures["wgmma_sustained_fraction"][0] if "wgmma_sustained_fraction" in m.figures else 1.0
        rate = per_sub * (sustained if "GMMA" in i.opcode else m.value("legacy_mma_fraction"))
        cyc = _mma_flops(i) / rate
        return InstCost(matrix=cyc, chain=cyc)
    if i.opcode.startswith(ALU_PREFIXES):
        return InstCost(valu=m.value("valu_cycles"), chain=dep)
    pipe = pipe_cycles(root, m)
    if pipe:
        return InstCost(valu=pipe, chain=dep)
    if root == "LDL" or root == "STL":
        return InstCost(chain=dep)  # local memory: L1/L2 traffic, counted by local_bytes (not DRAM bytes)
    if root in ("LDG", "LD"):
        return InstCost(load_bytes=access_bytes(i.opcode) * lanes, chain=dep)
    if root == "LDGSTS":
        b = access_bytes(i.opcode) * lanes
        return InstCost(load_bytes=b, lds_bytes=b, chain=dep)
    if root in ("STG", "ST", "RED", "ATOM", "ATOMG"):
        return InstCost(store_bytes=access_bytes(i.opcode) * lanes, chain=dep)
    if root == "LDSM":
        n = 4 if ".4" in i.opcode else 2 if ".2" in i.opcode else 1
        return InstCost(lds_bytes=n * 8 * 8 * 2, chain=dep)
    if root in ("LDS", "STS", "ATOMS"):
        return InstCost(lds_bytes=access_bytes(i.opcode) * lanes, chain=dep)
    return InstCost(chain=dep if root not in ("NOP",) else 1)


def _in_flight(insts: list[SassInst], members: list[int], loop: bool, m: Machine) -> tuple[float, bool]:
    """(bytes of global loads a warp has outstanding when it stalls on one, pipelined). A stall: the first use of a
    pending LDG's register, or a ``DEPBAR`` on cp.async groups. The body is walked twice (once for a kernel without a
    loop); in the second, steady-state pass every stall is a sample, and the figure is the larger of the bytes at the
    first stall and the samples' mean: a body that uses each load soon after issuing it (an unrolled stream, a table
    entry then the block it names) keeps more in flight across its stalls than at the first. Pipelined: the first
    stall waits for a load issued in the previous iteration."""
    lanes = m.value("wave_size")
    out: dict[int, tuple[float, int]] = {}  # cp.async groups: instruction -> (bytes, pass)
    groups = 0  # cp.async groups committed (LDGDEPBAR) since the last DEPBAR
    pending: list[tuple[frozenset[int], float, int]] = []
    first: tuple[float, bool] | None = None
    samples: list[float] = []
    for rep in (0, 1) if loop else (1,):
        for idx in members:
            i = insts[idx]
            regs = frozenset(i.uses)
            hit = [p for p in pending if p[0] & regs]
            waits_async = i.root == "DEPBAR" and any(b for b, _ in out.values())
            if rep == 1 and (hit or waits_async):
                issued = sum(b for b, _ in out.values())
                flight = sum(b for _, b, _ in pending) + (pipeline_bytes(i, issued, groups) if waits_async else issued)
                samples.append(flight)
                if first is None:
                    passes = [p for _, _, p in hit] + ([p for _, p in out.values()] if waits_async else [])
                    first = (flight, any(p == 0 for p in passes))
            if hit:
                pending = [p for p in pending if not p[0] & regs]
            if i.root == "DEPBAR":
                out.clear()
                groups = 0
            if i.root == "LDGDEPBAR":
                groups += 1
            if i.root in ("LDG", "LD"):
                pending.append((frozenset(i.defs), access_bytes(i.opcode) * lanes, rep))
            elif i.root == "LDGSTS":
                out[idx * 2 + rep] = (access_bytes(i.opcode) * lanes, rep)
    if first is not None:
        return max(first[0], sum(samples) / len(samples)), first[1]
    loads = sum(access_bytes(insts[i].opcode) * lanes for i in members if insts[i].root in ("LDG", "LDGSTS", "LD"))
    return float(loads), False


_DEPBAR_LE_RE = re.compile(r"SB\d+\s*,\s*(0x[0-9a-fA-F]+|\d+)")


def pipeline_bytes(wait: SassInst, issued: float, groups: int) -> float:
    """Bytes of cp.async a warp has in flight at ``DEPBAR.LE SBn, N`` in the steady state of a pipelined loop
    (Triton's ``num_stages``): the wait lets N commit groups stay outstanding, and those are the groups of the
    iterations ahead, issued before the walk started (the prologue fills them). So in flight: the ``issued`` bytes of
    the ``groups`` committed since the last wait, plus N more groups of the same size (Little's law: num_stages - 1
    iterations' loads in flight). ``DEPBAR.LE SB0, 0x0`` (two stages) keeps just the groups it waits for."""
    hit = _DEPBAR_LE_RE.search(wait.operands) if ".LE" in wait.opcode else None
    allowed = int(hit.group(1), 0) if hit else 0
    return issued * (1 + allowed / max(1, groups))


def run_ahead_cycles(insts: list[SassInst], costs: list, members: list[int]) -> float | None:
    """Chain cycles a pipelined hot loop runs between issuing the loads its first stall waits for (in the previous
    iteration) and that stall: the work that hides their latency. A stall on an LDG's register, or a ``DEPBAR`` that
    leaves no cp.async group outstanding (``DEPBAR.LE SBn, 0x0``: the groups it waits for are the previous
    iteration's); None where the wait leaves groups outstanding (they were issued iterations earlier: the whole body
    runs ahead of them) or no stall waits for a previous iteration's load. A loop that issues its next tile's loads
    at the end of its body, after the work that uses the current one, hides nothing behind them."""
    pos = 0.0
    pending: list[tuple[frozenset[int], float, int]] = []  # LDG: (its registers, chain position at issue, pass)
    groups: list[tuple[float, int]] = []  # cp.async issued since the last DEPBAR: (chain position, pass)
    for rep in (0, 1):
        for idx in members:
            i = insts[idx]
            regs = frozenset(i.uses)
            hit = [p for p in pending if p[0] & regs]
            if rep == 1 and i.root == "DEPBAR" and groups:
                le = _DEPBAR_LE_RE.search(i.operands) if ".LE" in i.opcode else None
                if le and int(le.group(1), 0) > 0:
                    return None
                older = [at for at, p in groups if p == 0]
                return pos - min(older) if older else None
            if rep == 1 and hit:
                older = [at for _, at, p in hit if p == 0]
                return pos - min(older) if older else None
            if hit:
                pending = [p for p in pending if not p[0] & regs]
            if i.root == "DEPBAR":
                groups = []
            if i.root in ("LDG", "LD"):
                pending.append((frozenset(i.defs), pos, rep))
            elif i.root == "LDGSTS":
                groups.append((pos, rep))
            pos += costs[idx].chain
    return None


_UR_RE = re.compile(r"(?<![\w.])UR(\d+)(?![\w])")
_GLOBAL_LOADS = ("LDG", "LD")
# loads whose address may come from another load of the iteration (dependent_loads): LDGSTS copies to shared memory,
# waited for at a DEPBAR, but its latency is in series behind the load that gave its address all the same
_SERIES_LOADS = ("LDG", "LD", "LDGSTS")


def _sass_def_use(i: SassInst) -> tuple[set, set]:
    """Registers an instruction writes and reads: vector registers as numbers (``SassInst.defs``/``uses``), uniform
    registers as ``"UR<n>"`` (an ``R2UR`` moves a loaded value into the uniform register an address then reads)."""
    parts = [p.strip() for p in i.operands.split(",")] if i.operands.strip() else []
    stores = i.root.startswith(("ST", "RED", "ATOM")) or i.root in ("BRA", "EXIT", "BAR", "DEPBAR", "LDGSTS")
    first = parts[0] if parts and not stores else ""
    rest = ", ".join(parts[1:] if first else parts)
    udefs = {f"UR{n}" for n in _UR_RE.findall(first)}
    uuses = {f"UR{n}" for n in _UR_RE.findall(rest)}
    return set(i.defs) | udefs, set(i.uses) | uuses


def dependent_loads(insts: list[SassInst], order: list[int]) -> tuple[int, list[int]]:
    """(global loads one loop iteration waits for in series beyond the first, the loads behind another): the SASS
    counterpart of ``tools.predict.amd.dependent_loads``. A series: LDGs whose address comes, through registers, from
    the result of an LDG issued earlier in the same iteration (a block-table entry, then the block it names); a value
    the iteration has not written yet comes from an earlier iteration (loop-carried) and starts no series."""
    depth: dict = {}
    longest, behind = 0, []
    for idx in order:
        i = insts[idx]
        defs, uses = _sass_def_use(i)
        d = max((depth.get(r, 0) for r in uses), default=0)
        if i.root in _SERIES_LOADS:
            if d:
                behind.append(idx)
            d += 1
            longest = max(longest, d)
        for r in defs:
            depth[r] = d
    return max(0, longest - 1), behind


_IADD_RE = re.compile(r"^(U?IADD3|VIADD|IADD)\b")
_REG_TOKEN_RE = re.compile(r"^U?R\d+$")


def counter_step(insts: list[SassInst], first: int, last: int) -> int | None:
    """|immediate| a loop adds to a register its ISETP reads (``IADD3 R8, R8, -0x4, RZ`` → 4)."""
    compared = set()
    for i in insts[first : last + 1]:
        if i.root in ("ISETP", "UISETP"):
            compared |= {t.strip() for t in i.operands.split(",")}
    for i in insts[first : last + 1]:
        if not _IADD_RE.match(i.opcode):
            continue
        parts = [t.strip() for t in i.operands.split(",")]
        if len(parts) < 3 or not _REG_TOKEN_RE.match(parts[0]) or parts[0] not in compared:
            continue
        imms = [p for p in parts[1:] if re.fullmatch(r"-?0x[0-9a-fA-F]+|-?\d+", p)]
        if parts[0] in parts[1:] and len(imms) == 1:
            return abs(int(imms[0], 0))
    return None


def find_function(funcs: list, kernel: str):
    """The SASS function of ``kernel``: by its exact (mangled) name, else by the identifier a demangled profiler name
    starts with (``fir_kernel(float const*, ...)`` → ``_Z10fir_kernelPKfS0_Pfii``); LookupError when none is."""
    exact = next((fn for fn in funcs if fn.name == kernel), None)
    if exact is not None:
        return exact
    base = re.split(r"[(<]", kernel, maxsplit=1)[0].split("::")[-1].split()[-1] if kernel.strip() else ""
    found = [fn for fn in funcs if base and re.search(rf"(?<!\d){len(base)}{re.escape(base)}", fn.name)]
    if len(found) == 1 or (found and len(funcs) == 1):
        return found[0]
    if len(funcs) == 1 and not base:
        return funcs[0]
    raise LookupError(f"no SASS function for {kernel} among {len(funcs)} in the listing")


_IMM_RE = re.compile(r"-?0x[0-9a-fA-F]+|-?\d+")
_TMA_STORE_RE = re.compile(r"ttng\.async_tma_copy_local_to_global\b.*?!tt\.tensordesc<([\dx]+)x(\w+)")
_ELEM_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "i32": 4, "i8": 1, "f64": 8, "i64": 8, "i16": 2}


def _constant(insts: list[SassInst], idx: int, reg: str) -> int | None:
    """The immediate the latest write of ``reg`` before instruction ``idx`` put there (``IMAD.MOV.U32 R8, RZ, RZ,
    0xc000``, ``MOV R8, 0xc000``, ``UMOV UR4, 0xc000``); None when that write is not an immediate move."""
    if _IMM_RE.fullmatch(reg):
        return int(reg, 0)
    for i in reversed(insts[:idx]):
        parts = [p.strip() for p in i.operands.split(",")]
        if not parts or parts[0] != reg:
            continue
        moves = i.root in ("MOV", "UMOV") or i.opcode.startswith("IMAD.MOV")
        return int(parts[-1], 0) if moves and _IMM_RE.fullmatch(parts[-1]) else None
    return None


def expect_tx_bytes(insts: list[SassInst], idx: int) -> int:
    """Bytes a ``SYNCS.ARRIVE.TRANS64`` (PTX ``mbarrier.arrive.expect_tx``) tells its barrier to wait for: the bytes
    the TMA copies of one pipeline stage move (``cp.async.bulk.tensor`` / ``UTMALDG``: every box of that stage),
    its last operand's constant; 0 for a plain arrival or a count not set by an immediate."""
    i = insts[idx]
    if not i.opcode.startswith("SYNCS.ARRIVE.TRANS64"):
        return 0
    last = i.operands.rsplit(",", 1)[-1].strip()
    if last in ("RZ", "URZ"):
        return 0
    return max(0, _constant(insts, idx, last) or 0)


def mbarrier_stages(insts: list[SassInst]) -> int:
    """Pipeline stages of a TMA loop: the mbarriers the kernel initialises (``SYNCS.EXCH.64`` on distinct
    addresses, one per shared-memory stage of Triton's num_stages)."""
    return len({i.operands.split(",")[1].strip() for i in insts if i.opcode.startswith("SYNCS.EXCH.64")})


def tma_store_boxes(ttgir: str | None) -> list[int]:
    """Bytes of each TMA store's box (``ttng.async_tma_copy_local_to_global``, its tensor descriptor's block), in
    program order: ``UTMASTG`` names no size in SASS."""
    out = []
    for dims, elem in _TMA_STORE_RE.findall(ttgir or ""):
        n = 1
        for d in dims.split("x"):
            n *= int(d)
        out.append(n * _ELEM_BYTES.get(elem, 4))
    return out


def add_tma_costs(insts: list[SassInst], costs: list[InstCost], waves_per_block: int, ttgir: str | None) -> None:
    """TMA: each stage's expect-tx bytes as load bytes, each UTMASTG its box as store bytes. A TMA copy moves a
    whole box for its program (one elected thread issues it), so each of the block's warps is charged its share."""
    share = 1.0 / max(1, waves_per_block)
    for n in range(len(insts)):
        b = expect_tx_bytes(insts, n)
        if b:
            costs[n].load_bytes += b * share
    boxes = tma_store_boxes(ttgir)
    stores = [n for n, i in enumerate(insts) if i.root == "UTMASTG"]
    for k, n in enumerate(stores):
        box = boxes[k] if len(boxes) == len(stores) else (sum(boxes) / len(boxes) if boxes else 0)
        costs[n].store_bytes += box * share


def tma_in_flight(insts: list[SassInst], members: list[int], waves_per_block: int, stages: int | None = None) -> float:
    """Bytes of TMA loads a warp's share has in flight at its hot loop's barrier wait: the stages ahead of the one
    it waits for (num_stages - 1 stages' boxes, Little's law over the pipeline). ``stages``: where the TTGIR gives
    them (a warp-specialised kernel's full and empty barriers per operand and consumer are no count of stages)."""
    per_stage = sum(expect_tx_bytes(insts, n) for n in members) / max(1, waves_per_block)
    return per_stage * max(1, (stages or mbarrier_stages(insts)) - 1)


def _fused_epilogue(f, loops: list[IsaLoop], costs: list[InstCost], plan: list | None) -> tuple[str | None, set]:
    """In a loop merged from a flatten=True nest, the epilogue (a block the loop branches over that stores: UTMASTG,
    STG) runs once per outer iteration, not per merged one: its costs are scaled by outer / merged trips."""
    fused = next((t for t in plan or [] if t.fused_outer_trips and t.trips), None)
    if fused is None:
        return None, set()
    ratio = fused.fused_outer_trips / fused.trips
    scaled: set[int] = set()
    for lp in loops:
        idx = sorted(lp.members)
        if not any(f.insts[n].is_mma for n in idx):
            continue
        for n in idx:
            i = f.insts[n]
            end = f.labels.get(i.target) if i.root == "BRA" and i.target else None
            if end is None or not n < end <= idx[-1]:
                continue
            block = range(n + 1, end)
            if any(f.insts[j].root in ("UTMASTG", "STG", "ST") for j in block):
                scaled.update(block)
    for n in scaled:
        c = costs[n]
        for key in ("issue", "valu", "matrix", "chain", "lds_bytes", "load_bytes", "store_bytes"):
            setattr(c, key, getattr(c, key) * ratio)
    if not scaled:
        return None, scaled
    return (
        f"a flatten=True loop: its epilogue ({len(scaled)} instructions the merged loop branches over, with its "
        f"stores) counted once per tile: x{ratio:.4f} per merged iteration ({fused.fused_outer_trips:g} tiles / "
        f"{fused.trips:g} iterations)"
    ), scaled


_WG_WAIT_RE = re.compile(r"gsb0\s*,\s*(0x[0-9a-fA-F]+|\d+)")


def wgmma_groups(insts: list[SassInst], members: list[int]) -> tuple[int, int, int]:
    """(wgmma groups, their waits, the waits that drain every group) in ``members``: a group is the HGMMAs up to
    the one that commits it (operand ``gsb0``); ``WARPGROUP.DEPBAR.LE gsb0, N`` waits until at most N groups are
    outstanding, so N = 0 leaves the tensor pipe empty before the warpgroup issues again."""
    groups = sum(1 for n in members if insts[n].is_mma and "GMMA" in insts[n].opcode and "gsb0" in insts[n].operands)
    waits = [_WG_WAIT_RE.search(insts[n].operands) for n in members if insts[n].opcode.startswith("WARPGROUP.DEPBAR")]
    return groups, len(waits), sum(1 for w in waits if w and int(w.group(1), 0) == 0)


def wgmma_chain(insts: list[SassInst], costs: list[InstCost], dep: float, drain: float = 0.0) -> None:
    """A warp's chain through asynchronous wgmma: an ``HGMMA`` only issues (``dep`` cycles), and a
    ``WARPGROUP.DEPBAR.LE gsb0, N`` waits for the groups older than the newest N, the ones the walk (in address
    order) has seen committed since the last wait. Waited to 0 right after its group, a wait takes the group's whole
    tensor time; at N = 1 in a pipelined loop, the group it waits for was committed an iteration earlier and ran
    while the warp issued (not charged). The matrix pipe's own time stays in ``matrix``."""
    groups: list[float] = []
    running = 0.0
    for n, i in enumerate(insts):
        if i.is_mma and "GMMA" in i.opcode:
            running += costs[n].chain
            costs[n].chain = dep
            if "gsb0" in i.operands:
                groups.append(running)
                running = 0.0
        elif i.opcode.startswith("WARPGROUP.DEPBAR"):
            hit = _WG_WAIT_RE.search(i.operands)
            keep = int(hit.group(1), 0) if hit else 0
            waited = groups[: max(0, len(groups) - keep)]
            # waited to 0: the pipe empties, and the warpgroup's next group starts only after its drain latency
            costs[n].chain += sum(waited) + (drain if keep == 0 and waited else 0.0)
            groups = groups[len(waited) :]


def _wgmma_note(insts: list[SassInst], work: WaveWork, loops: list[IsaLoop], once: set, drain: float) -> str | None:
    """What the hot loop's wgmma groups and waits do, when each wait drains the pipe; ``once``:
    the instructions of a merged loop's epilogue (run once per tile, left out)."""
    hot = next((li for li, lf in enumerate(work.loops) if lf.hot), None)
    if hot is None:
        return None
    groups, waits, drained = wgmma_groups(insts, sorted(loops[hot].members - once))
    if not groups:
        return None
    text = f"wgmma: {groups} group(s) and {waits} wait(s) per hot-loop iteration"
    if drained and drained >= groups:
        return (
            f"{text}, every group waited to completion (WARPGROUP.DEPBAR.LE gsb0, 0x0) before the next is issued: "
            "the tensor pipe drains between groups: "
            + (f"each such wait adds the device file's wgmma_drain_cycles ({drain:g}, calibrated on generated GEMMs) "
               "to the warp's chain" if drain else "the device file has no wgmma_drain_cycles, so the time may be longer")
        )  # fmt: skip
    return f"{text}, {drained} of them to completion: the next group is issued while one runs"


def nvidia_wave_work(
    sass_text: str,
    kernel: str,
    m: Machine,
    plan: list | None,
    default_trips: float,
    waves_per_block: int,
    ttgir: str | None = None,
) -> tuple[WaveWork, float, float]:
    """One warp's work from the SASS of ``kernel``; ``ttgir``: the Triton GPU IR, for the boxes of TMA stores."""
    f = find_function(parse_sass(sass_text), kernel)
    loops = []
    for lp in find_loops(f):
        label = f.insts[lp.first].labels[0] if f.insts[lp.first].labels else f"/*{f.insts[lp.first].addr:04x}*/"
        step = counter_step(f.insts, lp.first, lp.last)
        loops.append(IsaLoop(label, lp.depth, frozenset(range(lp.first, lp.last + 1)), counter_step=step))
    for i, lp in enumerate(loops):
        parents = [j for j, o in enumerate(loops) if j != i and lp.members < o.members]
        lp.parent = min(parents, key=lambda j: len(loops[j].members)) if parents else None
    costs = [inst_cost(i, m) for i in f.insts]
    drain = m.figures["wgmma_drain_cycles"][0] if "wgmma_drain_cycles" in m.figures else 0.0
    wgmma_chain(f.insts, costs, m.value("dependent_issue_cycles"), drain)
    loops, stages, ws_notes = warp_specialised(f.insts, loops, costs, ttgir, waves_per_block)
    add_tma_costs(f.insts, costs, waves_per_block, ttgir)
    epilogue, once = _fused_epilogue(f, loops, costs, plan)

    def in_flight(members: list[int], loop: bool) -> tuple[float, bool]:
        flight, pipelined = _in_flight(f.insts, members, loop, m)
        tma = tma_in_flight(f.insts, members, waves_per_block, stages)
        if not tma:
            return flight, pipelined
        return tma + (flight if any(f.insts[n].root in _GLOBAL_LOADS for n in members) else 0.0), loop

    def dependent_waits(members: list[int]) -> tuple[int, float]:
        waits, behind = dependent_loads(f.insts, sorted(members))  # a SASS loop body runs from its first address
        return waits, sum(costs[i].load_bytes for i in behind)

    work, trips, peak = wave_work(
        costs,
        loops,
        plan,
        default_trips,
        waves_per_block,
        in_flight,
        dependent_waits,
        threads=waves_per_block * int(m.value("wave_size")),
        segments=guarded_regions(f.insts, f.labels),
    )
    work.notes += ws_notes
    if epilogue:
        work.notes.append(epilogue)
    wgmma = _wgmma_note(f.insts, work, loops, once, drain)
    if wgmma:
        work.notes.append(wgmma)
    work.matrix_unit = "tensor"
    hot = next((lp for lp, lf in zip(loops, work.loops, strict=True) if lf.hot), None)
    if hot is not None and work.pipelined:
        work.run_ahead_cycles_iter = run_ahead_cycles(f.insts, costs, sorted(hot.members))
    work.block_synced = block_synced(f.insts, loops)
    _local_bytes(work, f.insts, loops, m)
    return work, trips, peak


def block_synced(insts: list[SassInst], loops: list[IsaLoop]) -> bool:
    """Whether a block's warps move through their DRAM phases together: a barrier (``BAR``) inside a loop, or, in a
    kernel without loops, anywhere (a reduction across warps between the loads and the stores). Otherwise each warp
    loads and stores on its own, and the warps, not the blocks, take turns at the SM's bandwidth (model.py)."""
    bars = {n for n, i in enumerate(insts) if i.root == "BAR"}
    if not loops:
        return bool(bars)
    return any(bars & lp.members for lp in loops)


_FRAME_RE = re.compile(r"^R1,\s*R1,\s*-(0x[0-9a-fA-F]+|\d+)")
_R1_OFFSET_RE = re.compile(r"\[R1(?:\+(0x[0-9a-fA-F]+|\d+))?\]")


def local_frame_bytes(insts: list[SassInst]) -> int:
    """Per-lane local-memory frame of a function: the stack pointer's drop at entry (``IADD3 R1, R1, -0x268, RZ``
    → 616 B, the ABI's frame of spills and local arrays), else the highest ``[R1+off]`` access's end; 0 without
    local memory."""
    for i in insts[:64]:
        if i.root in ("IADD3", "VIADD", "IADD"):
            hit = _FRAME_RE.match(i.operands)
            if hit:
                return int(hit.group(1), 0)
    ends = [
        int(hit.group(1) or "0", 0) + access_bytes(i.opcode)
        for i in insts
        if i.root in ("LDL", "STL")
        for hit in [_R1_OFFSET_RE.search(i.operands)]
        if hit
    ]
    return max(ends, default=0)


def _local_bytes(work: WaveWork, insts: list[SassInst], loops: list[IsaLoop], m: Machine) -> None:
    """Fill the wave's local-memory bytes (LDL/STL): per hot-loop iteration, and once (others x their loop's trips),
    and its frame (per-lane frame x lanes: local memory interleaves the lanes' words, so a warp's frame is lines)."""
    lanes = m.value("wave_size")
    if any(i.root in ("LDL", "STL") for i in insts):
        work.local_frame_bytes = local_frame_bytes(insts) * lanes
    hot = next((li for li, lf in enumerate(work.loops) if lf.hot), None)
    for n, i in enumerate(insts):
        if i.root not in ("LDL", "STL"):
            continue
        b = access_bytes(i.opcode) * lanes
        inner = [li for li, lp in enumerate(loops) if n in lp.members]
        own = max(inner, key=lambda li: loops[li].depth) if inner else None
        if own is not None and own == hot:
            work.local_bytes_iter += b
        else:
            work.local_bytes_once += b * (work.loops[own].trips or 1.0 if own is not None else 1.0)
