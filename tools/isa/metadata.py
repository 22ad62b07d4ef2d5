"""Kernel resources from AMDGCN assembly text: the ``.amdgpu_metadata`` YAML, ``.amdhsa_*`` directives and the
``.set <kernel>.num_vgpr`` style symbols (present on every AMDGPU target, also where no YAML is emitted).

Pure text functions: no compiler is needed to read a dump.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from tools.errors import InputError
from tools.isa import arch as archmod
from tools.models.dump import Resources

_METADATA_RE = re.compile(r"^\s*\.amdgpu_metadata\s*$(.*?)^\s*\.end_amdgpu_metadata\s*$", re.M | re.S)
# "amdgcn-amd-amdhsa--gfx942" (LLVM ≤ 20) and "amdgpu9.42-amd-amdhsa-unknown-gfx942" (newer LLVM, Triton 3.9).
_TARGET_RE = re.compile(r"(?:amdgcn|amdgpu[\d.]*)-amd-amdhsa-\w*-(gfx[0-9a-f]+)")
_AMDHSA_BLOCK_RE = re.compile(r"^\s*\.amdhsa_kernel\s+(\S+)\s*$(.*?)^\s*\.end_amdhsa_kernel", re.M | re.S)
_AMDHSA_DIRECTIVE_RE = re.compile(r"^\s*\.amdhsa_(\w+)\s+(\S+)", re.M)
# LLVM's per-kernel "; Kernel info:" comment block follows the kernel's ".size NAME, ..." line.
_SIZE_RE = re.compile(r"^\s*\.size\s+([^\s,]+)\s*,", re.M)
_KERNEL_INFO_RE = re.compile(r"^; Kernel info:\s*$((?:\n;[^\n]*)*)", re.M)
_INFO_LINE_RE = re.compile(r"^;\s*(\w+):\s*(\d+)\s*$", re.M)
_SET_RE = re.compile(
    r"^\s*\.set\s+(\.L)?([^\s,]+)\.(num_vgpr|num_agpr|numbered_sgpr|private_seg_size),\s*(.+?)\s*$", re.M
)


@dataclass
class KernelMetadata:
    """Everything the assembler text says about one kernel's resources, by source."""

    name: str
    yaml: dict = field(default_factory=dict)
    amdhsa: dict[str, int] = field(default_factory=dict)
    symbols: dict[str, int] = field(default_factory=dict)
    comment: dict[str, int] = field(default_factory=dict)  # "; Kernel info:" figures: Occupancy, NumVGPRsForWavesPerEU
    notes: list[str] = field(default_factory=list)


def detect_arch(text: str) -> str | None:
    """The gfx target named by ``amdhsa.target`` or ``.amdgcn_target``; None when the text names none."""
    m = _TARGET_RE.search(text)
    return m.group(1) if m else None


def _int(value: str) -> int | None:
    try:
        return int(value, 0)
    except ValueError:
        return None


def _eval_symbol(expr: str, known: dict[str, int]) -> int | None:
    """Evaluate an integer, a known symbol, or max(...)/+ of those, as newer LLVM writes for kernels with calls."""
    expr = expr.strip()
    direct = _int(expr)
    if direct is not None:
        return direct
    if expr in known:
        return known[expr]
    m = re.fullmatch(r"max\((.*)\)", expr)
    if m:
        parts = [_eval_symbol(p, known) for p in _split_args(m.group(1))]
        return max(parts) if parts and all(p is not None for p in parts) else None
    if "+" in expr:
        parts = [_eval_symbol(p, known) for p in _split_args(expr, sep="+")]
        return sum(parts) if all(p is not None for p in parts) else None
    return None


def _split_args(text: str, sep: str = ",") -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [p.strip() for p in out if p.strip()]


def read_kernel_metadata(text: str) -> dict[str, KernelMetadata]:
    """Metadata of every kernel in the file, keyed by kernel symbol name (without ``.kd``), in file order."""
    kernels: dict[str, KernelMetadata] = {}

    def get(name: str) -> KernelMetadata:
        name = name.removesuffix(".kd")
        return kernels.setdefault(name, KernelMetadata(name=name))

    for m in _AMDHSA_BLOCK_RE.finditer(text):
        meta = get(m.group(1))
        for d in _AMDHSA_DIRECTIVE_RE.finditer(m.group(2)):
            value = _int(d.group(2))
            if value is not None:
                meta.amdhsa[d.group(1)] = value

    raw_symbols: dict[str, str] = {}
    for m in _SET_RE.finditer(text):
        raw_symbols[f"{m.group(2)}.{m.group(3)}"] = m.group(4)
        if m.group(1):
            raw_symbols[f".L{m.group(2)}.{m.group(3)}"] = m.group(4)
    known: dict[str, int] = {}
    for _ in range(3):  # symbols may refer to symbols defined later (callees)
        for key, expr in raw_symbols.items():
            if key not in known:
                value = _eval_symbol(expr, known)
                if value is not None:
                    known[key] = value
    for m in _SET_RE.finditer(text):
        key = f"{m.group(2)}.{m.group(3)}"
        if key in known and (m.group(2) in kernels or m.group(2).removesuffix(".kd") in kernels):
            get(m.group(2)).symbols[m.group(3)] = known[key]

    sizes = [(m.start(), m.group(1)) for m in _SIZE_RE.finditer(text)]
    for m in _KERNEL_INFO_RE.finditer(text):
        owner = next((name for pos, name in reversed(sizes) if pos < m.start()), None)
        owner = owner.removesuffix(".kd") if owner else None
        if owner in kernels:
            kernels[owner].comment = {k: int(v) for k, v in _INFO_LINE_RE.findall(m.group(1))}

    block = _METADATA_RE.search(text)
    if block:
        try:
            doc = yaml.safe_load(block.group(1))
        except yaml.YAMLError as exc:
            raise InputError(
                f"the .amdgpu_metadata block is not valid YAML ({exc.__class__.__name__})",
                hint="the assembly may be truncated; dump the ISA again",
            ) from exc
        for entry in (doc or {}).get("amdhsa.kernels", []) or []:
            name = str(entry.get(".name") or entry.get(".symbol", "")).removesuffix(".kd")
            if name:
                get(name).yaml = entry
    return kernels


def resources_from_metadata(
    meta: KernelMetadata,
    arch: str | None,
    dynamic_lds_bytes: int = 0,
    workgroup_size: int | None = None,
    waves_per_eu: int | None = None,
) -> Resources:
    """Combine the three sources; YAML wins, the others fill gaps, and a disagreement is written to ``notes``.

    Launch facts the ISA cannot know: ``dynamic_lds_bytes`` (LDS the launch allocates on top of the static group
    segment, e.g. Triton's ``metadata.shared``), ``workgroup_size`` (threads per workgroup of the launch) and
    ``waves_per_eu`` (the upper bound of ``amdgpu-waves-per-eu``) enter the occupancy."""
    y, h, s = meta.yaml, meta.amdhsa, meta.symbols
    notes: list[str] = list(meta.notes)
    agpr = y.get(".agpr_count", s.get("num_agpr"))
    arch_vgpr = s.get("num_vgpr")
    accum_offset = h.get("accum_offset")
    vgpr = y.get(".vgpr_count")
    if vgpr is None and h.get("next_free_vgpr") is not None:
        vgpr = h["next_free_vgpr"]
        notes.append("vgpr_count from .amdhsa_next_free_vgpr (no YAML metadata)")
    if vgpr is None and arch_vgpr is not None:
        vgpr = arch_vgpr if not agpr else (accum_offset or arch_vgpr) + agpr
        notes.append("vgpr_count derived from .set symbols")
    sgpr = y.get(".sgpr_count")
    if sgpr is None and h.get("next_free_sgpr") is not None:
        sgpr = h["next_free_sgpr"]
        notes.append("sgpr_count from .amdhsa_next_free_sgpr (excludes VCC/flat-scratch extras)")
    scratch = y.get(".private_segment_fixed_size", h.get("private_segment_fixed_size", s.get("private_seg_size")))
    lds = y.get(".group_segment_fixed_size", h.get("group_segment_fixed_size"))
    wave = y.get(".wavefront_size")
    if wave is None and "wavefront_size32" in h:
        wave = 32 if h["wavefront_size32"] else 64
    if wave is None and arch and arch in archmod.AMD_ARCHS:
        wave = archmod.AMD_ARCHS[arch].wavefront_size
    wg = y.get(".max_flat_workgroup_size")
    if y and arch_vgpr is not None and agpr is not None and vgpr is not None and agpr and accum_offset:
        if accum_offset + agpr != vgpr and not (vgpr % 8 == 0 and vgpr >= accum_offset + agpr):
            notes.append(f"metadata .vgpr_count {vgpr} != accum_offset {accum_offset} + agpr_count {agpr}")
    # the allocation the descriptor reserves: LLVM pads it (e.g. to honour amdgpu-waves-per-eu) beyond .vgpr_count
    reserved = meta.comment.get("NumVGPRsForWavesPerEU", h.get("next_free_vgpr"))
    if vgpr is not None:
        reserved = max(vgpr, reserved or 0)
    static_lds = lds
    if dynamic_lds_bytes:
        lds = (lds or 0) + dynamic_lds_bytes
    sgpr_for_waves = meta.comment.get("NumSGPRsForWavesPerEU", sgpr)
    waves = limiter = reason = None
    if arch in archmod.AMD_ARCHS and reserved is not None:
        occ = archmod.amd_occupancy(arch, reserved, sgpr_for_waves, lds, workgroup_size or wg, waves_per_eu)
        waves, limiter, reason = occ.value, occ.limiter, occ.reason
    return Resources(
        vgpr_count=vgpr,
        agpr_count=agpr,
        accum_offset=accum_offset,
        arch_vgpr_count=arch_vgpr,
        sgpr_count=sgpr,
        vgpr_spill_count=y.get(".vgpr_spill_count"),
        sgpr_spill_count=y.get(".sgpr_spill_count"),
        scratch_bytes=scratch,
        lds_bytes=lds,
        wavefront_size=wave,
        max_flat_workgroup_size=wg,
        waves_per_simd=waves,
        occupancy_limiter=limiter,
        occupancy_reason=reason,
        vgpr_reserved=reserved,
        static_lds_bytes=static_lds,
        compiler_occupancy=meta.comment.get("Occupancy"),
        notes=notes,
    )


def read_resources(text: str, arch: str | None = None) -> dict[str, Resources]:
    """Resources of every kernel in an AMDGCN assembly text, keyed by kernel name."""
    arch = arch or detect_arch(text)
    return {name: resources_from_metadata(meta, arch) for name, meta in read_kernel_metadata(text).items()}
