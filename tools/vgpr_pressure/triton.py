"""vgpr-pressure's Triton part: what the TTGIR and LLVM IR stages beside the ISA say about registers.

- the launch-option suggestion (``raise_num_warps``): per-lane values from the tile shape and ``num_warps``, the tile
  values live at once (``tools.isa.ttgir.tile_peak``), the VGPR budget ``amdgpu-waves-per-eu`` sets;
- layout conversions through LDS and loads that stayed narrower than their layout allows, with the reason.

Pure functions over stage texts; ``tools.vgpr_pressure`` calls them when a dump directory (or a compiled kernel file)
holds the stages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tools import inputs, paths
from tools.errors import InputError
from tools.isa import arch as archmod
from tools.isa import ttgir as tg
from tools.isa.amdgcn import Kernel, SourceLoc
from tools.isa.source_attr import attribute_loc, source_lines
from tools.models.vgpr import Suggestion

_WPE_RE = re.compile(r'"amdgpu-waves-per-eu"="(\d+),(\d+)"')
_FWGS_RE = re.compile(r'"amdgpu-flat-work-group-size"="(\d+),(\d+)"')
BUDGET_SHARE = 0.75  # tile values above this share of the VGPR budget leave too little for addresses and temporaries
MAX_NUM_WARPS = 16  # 1024 threads per workgroup on AMD GPUs
ADDRESSABLE_SGPRS = 102  # GCN/CDNA: s0..s101


@dataclass
class Stages:
    """The compiler stages found beside an ISA file (dump-ir's ``NN_ttgir.mlir``, ``NN_llir.ll``)."""

    ttgir_path: Path | None = None
    llir_path: Path | None = None
    ttgir: tg.TtgirModule | None = None
    llir: str | None = None
    shared_bytes: int | None = None  # Triton's metadata.json "shared": LDS the launch allocates

    @property
    def waves_per_eu(self) -> tuple[int, int] | None:
        """``amdgpu-waves-per-eu``="min,max" from the LLVM IR (Triton's ``waves_per_eu``), or None if unset."""
        m = _WPE_RE.search(self.llir or "")
        return (int(m.group(1)), int(m.group(2))) if m else None

    @property
    def flat_workgroup_size(self) -> tuple[int, int] | None:
        m = _FWGS_RE.search(self.llir or "")
        return (int(m.group(1)), int(m.group(2))) if m else None


def stages_beside(isa_path: str | Path | None) -> Stages:
    """Stages in the ISA file's directory, when it is one kernel's dump directory (one ttgir, one llir)."""
    if not isa_path:
        return Stages()
    d = Path(isa_path).parent
    ttgirs = sorted(d.glob("*ttgir*.mlir"))
    llirs = sorted(d.glob("*llir*.ll")) or sorted(d.glob("*.ll"))
    out = Stages()
    if len(ttgirs) == 1 and (text := _read_sibling(ttgirs[0])) is not None:
        out.ttgir_path = ttgirs[0]
        try:
            out.ttgir = tg.parse_ttgir(text)
        except (ValueError, AttributeError):
            out.ttgir = None
    if len(llirs) == 1 and (text := _read_sibling(llirs[0])) is not None:
        out.llir_path, out.llir = llirs[0], text
    launch = inputs.launch_lds_beside(isa_path)
    out.shared_bytes = launch.bytes if launch else None
    return out


def _read_sibling(path: Path) -> str | None:
    """A stage beside the ISA, read only where the caller may read (``tools.paths.guard``); None when it may not
    or cannot be read — the report then goes without it."""
    try:
        return paths.guard(path, "stage beside the ISA").read_text(errors="replace")
    except (InputError, OSError):
        return None


def vgpr_budget(arch: str | None, stages: Stages, vgpr_count: int | None, spills: int) -> tuple[int, str] | None:
    """The VGPRs per wave the compiler had to fit in, and why: ``amdgpu-waves-per-eu``'s minimum sets it
    (512 / min on CDNA3, rounded to the granule); otherwise a spilling kernel's own count is the ceiling it hit."""
    if arch is None or not archmod.is_amd(arch):
        return None
    info = archmod.amd_arch(arch)
    wpe = stages.waves_per_eu
    if wpe and wpe[0] > 0:
        budget = info.vgprs_per_lane // wpe[0] // info.vgpr_granule * info.vgpr_granule
        budget = min(budget, info.max_vgprs_per_wave)
        return budget, (
            f'amdgpu-waves-per-eu="{wpe[0]},{wpe[1]}" (waves_per_eu={wpe[0]}): {info.vgprs_per_lane} / {wpe[0]}'
        )
    if spills and vgpr_count:
        return vgpr_count, f"the {vgpr_count} VGPRs the allocator stopped at (it spilled)"
    return info.max_vgprs_per_wave, f"the {info.max_vgprs_per_wave}-VGPR limit per wave on {arch}"


def warp_suggestion(
    stages: Stages, arch: str | None, vgpr_count: int | None, spills: int
) -> tuple[Suggestion | None, list[str]]:
    """Raise ``num_warps`` when the tile values live at once fill the VGPR budget: the same tile over more lanes.

    Returns the suggestion (or None) and evidence/notes lines either way (the per-lane arithmetic is always shown)."""
    mod = stages.ttgir
    if mod is None:
        return None, []
    peak = tg.tile_peak(mod)
    budget = vgpr_budget(arch, stages, vgpr_count, spills)
    if peak is None or budget is None:
        return None, []
    limit, why = budget
    cur = mod.num_warps
    lanes = mod.threads_per_warp
    est = peak.registers(mod)
    big = max((v.op.result_type for v in peak.values if v.op.result_type), key=lambda t: t.numel)
    per_lane = tg.elements_per_lane(mod, big)
    shape = "×".join(map(str, big.shape))
    block = _block_name(mod, big)
    if block:
        shape = f"{block} ({shape})"
    held = "; ".join(_held_text(mod, v) for v in sorted(peak.values, key=lambda v: v.role != "input"))
    at = peak.at
    at_text = tg.describe_use(at)
    index_regs = peak.registers(mod, index=True)
    split = f" ({est - index_regs} data + {index_regs} index)" if index_regs else ""
    evidence = (
        f"values per lane = {shape} / ({lanes} lanes × {cur} warp{'s' if cur > 1 else ''}) = {per_lane} per tile "
        f"tensor; at {at_text} these tile values are live at once: {held} — est. {est} VGPRs of tile values"
        f"{split} against a budget of {limit} ({why})"
    )
    masks = tg.mask_sgprs(mod, peak.values)
    if masks:
        evidence += (
            f"; the masks held take est. {masks} SGPRs (a lane mask per element, an SGPR pair each on wave64) of "
            f"the {ADDRESSABLE_SGPRS} addressable"
        )
    notes = [f"tile values (TTGIR, num_warps={cur}): {evidence}"]  # shown when no suggestion carries them
    if est <= BUDGET_SHARE * limit and masks <= BUDGET_SHARE * ADDRESSABLE_SGPRS:
        return None, notes  # the tile values leave room: spills (if any) have another cause
    options = []
    for w in (2, 4, 8, 16):
        if w <= cur or w > MAX_NUM_WARPS or big.numel < lanes * w:
            continue
        options.append((w, tg.elements_per_lane(mod, big, w), peak.registers(mod, w)))
    if not options:
        return None, notes
    fit = next((o for o in options if o[2] <= BUDGET_SHARE * limit), options[-1])
    w, lane_vals, est_w = fit
    masks_w = tg.mask_sgprs(mod, peak.values, w)
    others = ", ".join(f"num_warps={o[0]}: {o[1]} per lane, est. {o[2]}" for o in options if o[0] != w)
    action = (
        f"launch with num_warps={w} (kernel[grid](..., num_warps={w}) or the kernel's options): {lane_vals} values "
        f"per lane, est. {est_w} VGPRs of tile values, within {int(BUDGET_SHARE * 100)}% of {limit}"
        + (f", and est. {masks_w} SGPRs of masks" if masks else "")
        + ". The tile and "
        f"the work per program stay the same; more lanes share it (reductions then combine across warps through "
        f"LDS). Other counts: {others or 'none'}. Check with `kernelpilot vgpr-pressure <file> --baseline HEAD:<file>`"
    )
    wpe = stages.waves_per_eu
    if wpe and wpe[0] > 1 and arch and archmod.is_amd(arch):
        info = archmod.amd_arch(arch)
        lower = next((n for n in range(wpe[0] - 1, 0, -1) if est <= BUDGET_SHARE * info.vgprs_per_lane // n), None)
        if lower is not None:
            action += (
                f". The other launch option, waves_per_eu={lower}, raises the budget to "
                f"{min(info.vgprs_per_lane // lower, info.max_vgprs_per_wave)} VGPRs for the same tile, and a kernel that "
                f"uses them runs {lower} waves/SIMD instead of {wpe[0]}"
            )
    return (
        Suggestion(
            id="raise_num_warps",
            title=f"spread the tile over more warps: num_warps {cur} → {w}",
            estimated_vgpr_savings=est - est_w,
            evidence=evidence,
            action=action,
        ),
        [],
    )


def _block_name(mod: tg.TtgirModule, t: tg.TensorType) -> str | None:
    """The constexpr a 1-D tile's length comes from (``BLOCK`` in ``tl.arange(0, BLOCK)``), read from the user's
    source line of the matching ``tt.make_range``."""
    if len(t.shape) != 1:
        return None
    for o in mod.ops:
        if o.name != "tt.make_range" or f"end = {t.shape[0]} " not in o.text:
            continue
        f = o.user_frame
        if f is None:
            continue
        lines = source_lines(SourceLoc(f.file, f.line, f.column, f.directory).path)
        if lines and 0 < f.line <= len(lines):
            m = re.search(r"\barange\(\s*0\s*,\s*([A-Za-z_]\w*)\s*\)", lines[f.line - 1])
            if m:
                return m.group(1)
    return None


def _held_text(mod: tg.TtgirModule, v: tg.HeldValue) -> str:
    t = v.op.result_type
    regs = tg.registers_per_lane(mod, t) if t else 0
    kind = t.element if t else "?"
    what = f"{v.op.label} {kind}" + (" index" if tg.is_index(mod, v.op) else "")
    if v.role == "input":
        n = regs or tg.elements_per_lane(mod, t) if t else 0
        return f"{what} ({n}/lane{'' if regs else ' as lane masks'}, consumed here)"
    why = f"held for {tg.describe_use(v.next_use)}" if v.next_use else "held"
    if regs:
        return f"{what} ({regs}/lane, {why})"
    return f"{what} ({tg.elements_per_lane(mod, t)}/lane as lane masks in SGPRs, no VGPRs; {why})"


# --- layout conversions through LDS and narrow loads -----------------------------------------------------------

_LDS_ACCESS_RE = re.compile(r"(?:store|load)\s[^\n]*addrspace\(3\)[^\n]*!dbg\s+!(\d+)")
_DILOC_RE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!DILocation\(line:\s*(\d+)", re.M)


def lds_conversions(stages: Stages) -> list[str]:
    """Report lines for each ``ttg.convert_layout``: from which layout to which, and whether the LLVM IR moves it
    through LDS (loads/stores in address space 3 carrying the conversion's line)."""
    mod = stages.ttgir
    if mod is None:
        return []
    convs = [o for o in mod.ops if o.name == "ttg.convert_layout"]
    if not convs:
        return []
    lds_lines: set[int] = set()
    if stages.llir:
        lines = {m.group(1): int(m.group(2)) for m in _DILOC_RE.finditer(stages.llir)}
        lds_lines = {lines[m.group(1)] for m in _LDS_ACCESS_RE.finditer(stages.llir) if m.group(1) in lines}
    out = []
    shared = mod.shared_bytes if mod.shared_bytes is not None else stages.shared_bytes
    for o in convs:
        head = o.text.splitlines()[-1].split("->")[0]
        src = tg.parse_tensor_type(head[head.rfind(" : ") :]) if " : " in head else None
        t = o.result_type
        size = f"{t}, {t.numel * max(t.bits, 8) // 8} B" if t else "?"
        f = o.user_frame
        if stages.llir is None:
            how = "LDS use unknown (no LLVM IR stage beside the ISA)"
        elif f is not None and f.line in lds_lines:
            how = "through LDS" + (f" (the launch allocates {shared} B of shared memory)" if shared else "")
        else:
            how = "in registers (no LDS access on its line in the LLVM IR)"
        layouts = f"{_short_layout(src.encoding if src else None)} → {_short_layout(t.encoding if t else None)}"
        out.append(f"layout conversion at {o.where}: {layouts} ({size}) {how}")
    return out


def _short_layout(enc: str | None) -> str:
    if not enc:
        return "?"
    m = re.match(r"#ttg\.slice<\{dim\s*=\s*(\d+),\s*parent\s*=\s*(#[\w.]+)\}>", enc)
    return f"slice(dim {m.group(1)} of {m.group(2)})" if m else enc


def narrow_loads(stages: Stages, kernel: Kernel) -> list[str]:
    """Loads whose ISA width is below 16 bytes per lane, with the reason in the TTGIR: the layout's contiguous
    elements per lane (``sizePerThread`` along ``order[0]``), kernel arguments without ``tt.divisibility`` in the
    address (alignment unknown) or in the mask (mask not constant over a vector)."""
    mod = stages.ttgir
    if mod is None:
        return []
    by_line: dict[int, list[int]] = {}
    for i in kernel.instructions:
        if i.category != "vmem_load" or i.loc is None:
            continue
        a = attribute_loc(i.loc)
        if a.user is None:
            continue
        by_line.setdefault(a.user.line, []).append(_load_bytes(i.mnemonic))
    out = []
    for o in mod.ops:
        if o.name not in tg.LOAD_OPS or o.result_type is None:
            continue
        t = o.result_type
        f = o.user_frame
        widths = sorted(set(by_line.get(f.line, []))) if f else []
        contig = tg.contiguous_elements(mod, t)
        if not widths or contig is None:
            continue
        layout_bytes = contig * t.bits // 8
        isa_bytes = max(widths)
        if isa_bytes >= 16 or isa_bytes >= layout_bytes and layout_bytes >= 16:
            continue
        ptr_ops = o.operands[:2] if o.name == "amdg.buffer_load" else o.operands[:1]
        mask_ops = o.operands[2:3] if o.name == "amdg.buffer_load" else o.operands[1:2]
        addr_args = set().union(*(tg.arguments_feeding(mod, v) for v in ptr_ops)) if ptr_ops else set()
        mask_args = set().union(*(tg.arguments_feeding(mod, v) for v in mask_ops)) if mask_ops else set()
        unaligned = sorted(a for a in addr_args if not mod.args[a][1])
        unmasked = sorted(a for a in mask_args if not mod.args[a][1] and "ptr" not in mod.args[a][0])
        reasons = []
        if tg.elements_per_lane(mod, t) <= contig:
            reasons.append(f"each lane holds only {tg.elements_per_lane(mod, t)} element(s) of this tile")
        if unaligned:
            reasons.append(
                f"alignment unknown: {', '.join(a.lstrip('%') for a in unaligned)} carr"
                f"{'ies' if len(unaligned) == 1 else 'y'} no tt.divisibility=16 (Triton's JIT adds it for 16-byte "
                "aligned pointers and integers divisible by 16)"
            )
        if unmasked:
            reasons.append(
                f"mask not constant over a vector: it depends on {', '.join(a.lstrip('%') for a in unmasked)}, "
                "not known divisible by 16"
            )
        reason = "; ".join(reasons) or "undetermined: the address and mask arguments are all marked divisible"
        out.append(
            f"load {o.label}: {isa_bytes} B per lane per instruction in the ISA; the layout gives each lane "
            f"{contig} contiguous {t.element} (sizePerThread along the fastest dim) = {layout_bytes} B — {reason}"
        )
    return out


def _load_bytes(mnemonic: str) -> int:
    m = re.search(r"dwordx(\d)$", mnemonic)
    if m:
        return 4 * int(m.group(1))
    if mnemonic.endswith("dword"):
        return 4
    m = re.search(r"_b(\d+)$", mnemonic)
    if m:
        return int(m.group(1)) // 8
    if re.search(r"(short|_b16|_u16|_i16|d16)", mnemonic):
        return 2
    if re.search(r"(byte|_u8|_i8)", mnemonic):
        return 1
    return 4
