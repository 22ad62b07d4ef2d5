"""prefetch-data-load on NVIDIA SASS (nvdisasm text): loops from backward branches, global loads (LDG) to first use,
cp.async (LDGSTS) to the ``DEPBAR.LE SB0, N`` that retires its ``LDGDEPBAR`` group.

nvdisasm prints no scoreboard control bits by default, so an LDG's wait is its first use (where the warp stalls on
the scoreboard). Registers: ``R4`` is one register; a ``.64``/``.128`` access or an ``R4.64`` operand spans 2 or 4.
"""

from __future__ import annotations

import re

from tools.isa.sass import SassFunction, SassInst, find_loops, parse_sass
from tools.models.dump import Resources
from tools.models.prefetch import BarrierRegion, LoadSite, LoopReport
from tools.prefetch_amd import MAX_LOADS, WALK_ITERATIONS, classify_loop

LOADS = ("LDG", "LDGSTS", "LD", "LDS128")
COMPUTE_PREFIXES = ("FFMA", "FMUL", "FADD", "HFMA", "HMMA", "IMMA", "DFMA", "HADD", "HMUL", "FMNMX", "MUFU")
# Issue cycles (estimates): tensor-core MMA occupies its pipe for ~16 cycles, everything else issues in ~2.
MMA_CYCLES = 16
DEFAULT_CYCLES = 2


def _cycles(i: SassInst) -> int:
    return MMA_CYCLES if i.opcode.startswith(("HMMA", "IMMA", "HGMMA", "WGMMA")) else DEFAULT_CYCLES


def _is_load(i: SassInst) -> bool:
    root = i.opcode.split(".")[0]
    return root in ("LDG", "LDGSTS") or (root == "LD" and ".E" in i.opcode)


def _analyze_loop(f: SassFunction, start: int, end: int, is_hot: bool, depth: int) -> LoopReport:
    n = end - start + 1
    seq = f.insts[start : end + 1] * WALK_ITERATIONS  # a 3-stage cp.async ring retires a group 2 iterations on
    loads: list[LoadSite] = []
    for p in range(n):
        inst = seq[p]
        if not _is_load(inst):
            continue
        wait_p = use_p = None
        if inst.opcode.startswith("LDGSTS"):
            commits = 0
            for q in range(p + 1, WALK_ITERATIONS * n):  # its group is retired by a later iteration's DEPBAR
                o = seq[q]
                if o.opcode.startswith("LDGDEPBAR"):
                    commits += 1
                m = re.search(r"SB0,\s*(0x[0-9a-fA-F]+|\d+)", o.operands) if o.opcode.startswith("DEPBAR") else None
                if m and commits and int(m.group(1), 0) <= commits - 1:  # groups committed after ours may stay
                    wait_p = use_p = q
                    break
        else:
            regs = set(inst.defs)
            for q in range(p + 1, p + n + 1):
                if q >= 2 * n:
                    break
                o = seq[q]
                if o.uses & regs:
                    use_p = wait_p = q
                    break
                regs -= o.defs
                if not regs:
                    break
        consumed = ("same-iteration" if use_p < n else "next-iteration") if use_p is not None else "after-loop"
        cycles = sum(_cycles(seq[q]) for q in range(p + 1, wait_p)) if wait_p is not None else None
        loads.append(
            LoadSite(
                index=inst.index,
                text=inst.text.split("*/", 1)[-1].strip(),
                source=inst.source,
                bytes_per_lane=len(inst.defs) * 4,
                wait_index=seq[wait_p].index if wait_p is not None else None,
                wait_text=seq[wait_p].text.split("*/", 1)[-1].strip() if wait_p is not None else None,
                first_use_index=seq[use_p].index if use_p is not None else None,
                first_use_text=seq[use_p].text.split("*/", 1)[-1].strip() if use_p is not None else None,
                consumed=consumed,
                load_to_wait_instructions=(wait_p - p - 1) if wait_p is not None else None,
                load_to_wait_cycles=cycles,
                load_to_use_distance=(use_p - p - 1) if use_p is not None else None,
            )
        )
    body = seq[:n]
    mma = sum(1 for i in body if i.opcode.startswith(("HMMA", "IMMA", "HGMMA", "WGMMA")))
    compute = [i for i in body if i.opcode.startswith(COMPUTE_PREFIXES)]
    load_defs: set[int] = set()
    for i in body:
        if _is_load(i):
            load_defs |= i.defs
    copies = sum(1 for i in body if i.opcode.split(".")[0] == "MOV" and i.uses & load_defs)
    barriers = []
    for p, i in enumerate(body):
        if i.opcode.startswith("BAR"):
            after = sum(1 for j in body[p + 1 :] if _is_load(j))
            barriers.append(
                BarrierRegion(
                    index=i.index,
                    text=i.text.split("*/", 1)[-1].strip(),
                    source=i.source,
                    loads_after=after,
                    note=f"{after} load(s) issue after this barrier; issue them before it if their addresses allow"
                    if after
                    else "no load issues after this barrier",
                )
            )
    verdict, reason = classify_loop(loads, mma, len(compute), 0)
    return LoopReport(
        header=f.insts[start].labels[0] if f.insts[start].labels else f"/*{f.insts[start].addr:04x}*/",
        first_instruction=start,
        last_instruction=end,
        instruction_count=n,
        depth=depth,
        is_hot=is_hot,
        verdict=verdict,
        reason=reason,
        loads=loads[:MAX_LOADS],
        loads_total=len(loads),
        bytes_per_lane_per_iteration=sum(ld.bytes_per_lane for ld in loads),
        compute_cycles=sum(_cycles(i) for i in compute),
        mfma_count=mma,
        valu_count=len(compute),
        barriers=barriers[:8],
        head_copies=copies,
    )


def analyze_sass(text: str, arch: str | None, kernel: str | None, res: Resources | None):
    """Same tuple shape as the AMD path: [(name, loops, prologue loads, has_lines, resources, arch)]."""
    out = []
    funcs = parse_sass(text)
    for f in funcs:
        if kernel and kernel != f.name and kernel not in f.name:
            continue
        found = find_loops(f)
        inner = [(lp.first, lp.last) for lp in found if lp.innermost]

        def weight(s, f=f):
            body = f.insts[s[0] : s[1] + 1]
            return sum(1 for i in body if _is_load(i) or i.opcode.startswith(("HMMA", "HGMMA", "WGMMA")))

        hot = max(inner, key=weight) if inner else None
        loops = []
        for lp in found:
            loops.append(_analyze_loop(f, lp.first, lp.last, (lp.first, lp.last) == hot, lp.depth))
        loops.sort(key=lambda r: (not r.is_hot, r.first_instruction))
        prologue = sum(1 for i in f.insts[: hot[0]] if _is_load(i)) if hot else 0
        has_lines = any(i.source for i in f.insts)
        out.append((f.name, loops, prologue, has_lines, res if len(funcs) == 1 else None, arch))
    return out
