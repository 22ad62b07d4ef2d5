"""AMDGCN → per-instruction costs, loops and bytes in flight for the timing model.

Costs are per wave64 on one SIMD: a VALU op occupies the SIMD16 for ``valu_cycles`` (4), an MFMA the matrix core for
its passes (the device's ``mfma_cycles`` table), every instruction one issue slot. Bytes: a vector-memory or LDS
access moves its width per lane x 64 lanes (masked lanes are not known statically and are counted).
"""

from __future__ import annotations

import re

from tools.isa.amdgcn import Instruction, find_kernel, parse_isa
from tools.isa.cfg import build_cfg
from tools.isa.costs import cost
from tools.isa.machines import Machine
from tools.isa.waitcnt import counts_in_vmcnt, vmcnt_of
from tools.predict.model import WaveWork
from tools.predict.work import InstCost, IsaLoop, wave_work

_WIDTH_RE = re.compile(r"_(dwordx(\d)|dword|b(\d+)|ubyte|sbyte|byte|ushort|sshort|short|u8|i8|u16|i16|d16\w*)(?:_|$)")
_TR_SUFFIX_RE = re.compile(r"_tr_b\d+$")
_DS2_RE = re.compile(r"^ds_(read|write|load|store)2(st64)?_b(\d+)")
# an MFMA's shape m x n x k and its block count (``v_mfma_f32_32x32x4_2b_f16``: 2 blocks; none named: 1)
_MFMA_SHAPE_RE = re.compile(r"(\d+)x(\d+)x(\d+)(?:_(\d+)b)?")


def access_bytes(mnemonic: str) -> int:
    """Bytes per lane of a memory instruction, from its mnemonic (``global_load_dwordx4`` → 16; a gfx950 transposing
    read ``ds_read_b64_tr_b16`` moves its b64, the suffix names the element width)."""
    mnemonic = _TR_SUFFIX_RE.sub("", mnemonic)
    m = _DS2_RE.match(mnemonic)
    if m:
        return 2 * int(m.group(3)) // 8
    best = 0
    for m in _WIDTH_RE.finditer(mnemonic):
        word = m.group(1)
        if m.group(2):
            best = 4 * int(m.group(2))
        elif word == "dword":
            best = best or 4
        elif m.group(3):
            best = int(m.group(3)) // 8
        elif word in ("ubyte", "sbyte", "byte", "u8", "i8"):
            best = best or 1
        else:
            best = best or 2
    return best or 4


def inst_cost(inst: Instruction, m: Machine) -> InstCost:
    c = inst.category
    lanes = m.value("wave_size")
    valu = m.value("valu_cycles")
    if c == "mfma":
        cyc = cost(inst, m).issue  # the device file's mfma class: its mfma_cycles by shape
        shape = _MFMA_SHAPE_RE.search(inst.mnemonic)
        flops = 0
        if shape:
            m_, n_, k_, blocks = shape.groups()
            flops = int(m_) * int(n_) * int(k_) * int(blocks or 1)
        return InstCost(matrix=cyc, chain=cyc, matrix_flops=flops)
    if c in ("valu", "cndmask", "accvgpr_move"):
        return InstCost(valu=valu, chain=valu)
    if c in ("lds_read", "lds_write", "lds_other"):
        return InstCost(lds_bytes=access_bytes(inst.mnemonic) * lanes, chain=valu)
    if c in ("vmem_load", "vmem_load_lds"):
        return InstCost(load_bytes=access_bytes(inst.mnemonic) * lanes, chain=valu)
    if c in ("vmem_store", "vmem_atomic"):
        return InstCost(store_bytes=access_bytes(inst.mnemonic) * lanes, chain=valu)
    if c == "nop":
        n = re.search(r"\d+", inst.modifiers or "")
        return InstCost(chain=int(n.group()) + 1 if n else 1)
    return InstCost()


def _in_flight(insts: list[Instruction], members: list[int], loop: bool, arch: str, m: Machine) -> tuple[float, bool]:
    """Bytes of vector loads a wave has outstanding when it first waits on one (walking the body twice, so loads
    issued in one iteration and waited for in the next count); pipelined (the loop runs ahead of its loads) when that
    wait retires a load issued in the previous iteration. A wait that retires only loads of its own iteration is
    not pipelined, whatever later loads of that iteration it leaves in flight (load A, load B, vmcnt(1)): the
    iteration still waits for its own data, and its issue cycles add to the latency."""
    lanes = m.value("wave_size")
    queue: list[tuple[float, bool, int]] = []  # (bytes, is load, pass)
    for rep in (0, 1) if loop else (1,):
        for i in members:
            inst = insts[i]
            if counts_in_vmcnt(inst, arch):
                is_load = inst.category in ("vmem_load", "vmem_load_lds", "scratch_load")
                queue.append((access_bytes(inst.mnemonic) * lanes if is_load else 0.0, is_load, rep))
                continue
            want = vmcnt_of(inst)
            if want is None or want >= len(queue):
                continue
            retired, queue = queue[: len(queue) - want], queue[len(queue) - want :]
            if rep == 1 and any(load for _, load, _ in retired):
                flight = sum(b for b, _, _ in retired) + sum(b for b, _, _ in queue)
                pipelined = any(load and p == 0 for _, load, p in retired)
                return flight, pipelined
    loads = sum(access_bytes(insts[i].mnemonic) * lanes for i in members if insts[i].category.startswith("vmem_load"))
    return float(loads), False


_SADD_RE = re.compile(r"^(s_add_i32|s_add_u32|s_sub_i32|s_sub_u32|v_add_u32(?:_e32|_e64)?|v_add_nc_u32(?:_e32)?)$")


def counter_step(insts: list[Instruction], members: frozenset[int]) -> int | None:
    """|immediate| a loop adds to a register its compares read (``s_add_i32 s1, s1, -8`` → 8)."""
    compared = set()
    for i in members:
        inst = insts[i]
        if inst.mnemonic.startswith(("s_cmp", "v_cmp")):
            compared |= {o.text for o in inst.operands if o.is_reg}
    for i in sorted(members):
        inst = insts[i]
        if not _SADD_RE.match(inst.mnemonic) or len(inst.operands) < 3:
            continue
        dst, a, b = (o.text for o in inst.operands[:3])
        imm = b if a == dst else a if b == dst else None
        if imm and dst in compared and re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", imm):
            return abs(int(imm, 0))
    return None


def _is_memory_load(inst: Instruction) -> bool:
    """A load from global memory: vector (global_/buffer_/flat_) or scalar (s_load, s_buffer_load)."""
    return inst.category in ("vmem_load", "vmem_load_lds") or (inst.category == "smem" and "_load" in inst.mnemonic)


def _mask_bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def dependent_loads(insts: list[Instruction], order: list[int]) -> tuple[int, list[int]]:
    """(loads one iteration of a loop body waits for in series beyond the first, the loads behind another).

    A series: global loads in which each load's address, scalar base or buffer resource comes, through registers,
    from the result of the load before it, issued in the same iteration (``order``: the body from its header, once).
    A value the iteration has not written yet comes from an earlier iteration (a prefetch, loop-carried): it starts
    no series. The loads behind another are those whose address came from a load of the same iteration."""
    depth: dict[int | str, int] = {}  # register bit or special register → loads in series behind its value
    longest, behind = 0, []
    for i in order:
        inst = insts[i]
        d = max((depth.get(b, 0) for b in _mask_bits(inst.uses)), default=0)
        d = max([d, *(depth.get(n, 0) for n in inst.special_uses)])
        if _is_memory_load(inst):
            if d:
                behind.append(i)
            d += 1
            longest = max(longest, d)
        for b in _mask_bits(inst.defs):
            depth[b] = d
        for n in inst.special_defs:
            depth[n] = d
    return max(0, longest - 1), behind


def amd_wave_work(
    isa_text: str, kernel: str, arch: str, m: Machine, plan: list | None, default_trips: float, waves_per_block: int
) -> tuple[WaveWork, float, float]:
    k = find_kernel(parse_isa(isa_text, kernel), kernel)
    cfg = build_cfg(k)
    loops = []
    header_start: dict[frozenset[int], int] = {}
    for lp in cfg.loops:
        header = cfg.blocks[lp.header].label or f"block {lp.header}"
        members = frozenset(lp.instruction_indices(cfg))
        header_start[members] = cfg.blocks[lp.header].start
        loops.append(IsaLoop(header, lp.depth, members, counter_step=counter_step(k.instructions, members)))
    for i, lp in enumerate(loops):
        parents = [j for j, o in enumerate(loops) if j != i and lp.members < o.members]
        lp.parent = min(parents, key=lambda j: len(loops[j].members)) if parents else None
    costs = [inst_cost(i, m) for i in k.instructions]

    def dependent_waits(members: list[int]) -> tuple[int, float]:
        start = header_start.get(frozenset(members), min(members))  # a rotated loop's body runs from its header
        order = [i for i in members if i >= start] + [i for i in members if i < start]
        waits, behind = dependent_loads(k.instructions, order)
        return waits, sum(costs[i].load_bytes for i in behind)

    return wave_work(
        costs,
        loops,
        plan,
        default_trips,
        waves_per_block,
        lambda members, loop: _in_flight(k.instructions, members, loop, arch, m),
        dependent_waits,
    )
