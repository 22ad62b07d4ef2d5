"""The ATT side of ``schedule --trace``: the kernel's code from ``code.json`` as AMDGCN text (branch offsets turned into
labels, so the one ISA parser reads it), and the measured cycles and stall classes of each cluster from the wave
files (``se*_sm*_sl*_wv*.json``: ``[time, category, stall, duration, line]`` per executed instruction).

A cluster's cycles in one wave are the stamps' differences summed over its instructions (the next executed
instruction's stamp minus this one's; the last instruction of the wave its duration), divided by how often the wave
entered it; the report takes the median over waves.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

from tools.errors import InputError
from tools.isa.amdgcn import Kernel
from tools.models.trace import Instruction as TraceInstruction
from tools.profilers.analysis import amd_stall_class
from tools.profilers.att import WAVE_FILE_RE, att_isa_text, is_att_dir, read_att_dir
from tools.profilers.reading import as_dict, as_list


@dataclass
class AttCode:
    """One kernel's rows of an ATT listing as ISA text; ``lines[k]`` is the code.json LineNumber of instruction k."""

    kernel: str
    text: str
    lines: list[int]

    def instructions(self) -> list[str]:
        """The instruction lines of ``text``, in order (index k is instruction k)."""
        return [ln.strip() for ln in self.text.splitlines() if ln.startswith("\t") and not ln.startswith("\t.")]


def _pick_kernel(rows: list[TraceInstruction], names: list[str], want: str | None, path: Path) -> str:
    if not names:
        raise InputError(f"{path}/code.json names no kernel", hint="expected rows '; <kernel>' before each kernel")
    if want is None:
        return names[0]
    hits = [n for n in names if n == want] or [n for n in names if want in n]
    if len(hits) != 1:
        shown = ", ".join(n[:60] for n in names[:6])
        raise InputError(f"{path}: no single kernel matches '{want}'", hint=f"kernels in the trace: {shown}")
    return hits[0]


def code_from_att(path: Path, kernel: str | None = None) -> AttCode:
    """The ISA of one kernel of an ATT directory (the first one, or the one ``kernel`` names)."""
    trace = read_att_dir(path)
    name = _pick_kernel(trace.instructions, trace.kernels, kernel, path)
    text, rows = att_isa_text(trace, name)
    return AttCode(name, text, [r.index for r in rows])


def is_trace_dir(path: str | Path) -> bool:
    return isinstance(path, str | Path) and "\n" not in str(path) and is_att_dir(Path(path))


@dataclass
class Measured:
    cycles: dict[int, float] = field(default_factory=dict)  # cluster id -> median cycles per visit
    visits: dict[int, float] = field(default_factory=dict)
    waves: dict[int, int] = field(default_factory=dict)
    coverage: dict[int, float] = field(default_factory=dict)  # executed instructions / (visits x cluster size)
    stalls: dict[int, dict[str, float]] = field(default_factory=dict)
    wave_count: int = 0


def _wave_rows(wf: Path) -> list[list]:
    try:
        doc = json.loads(wf.read_text(errors="replace"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{wf}: cannot read the wave file ({exc})", hint="decode the .att files again") from exc
    wave = as_dict(as_dict(doc, str(wf)).get("wave"), f"{wf}: wave")
    rows = as_list(wave.get("instructions"), f"{wf}: wave.instructions")
    for n, row in enumerate(rows):
        if not isinstance(row, list) or len(row) < 5 or not all(isinstance(x, int | float) for x in row[:5]):
            raise InputError(f"{wf}: wave.instructions[{n}] is not [time, category, stall, duration, line]",
                             hint="decode the .att files again")  # fmt: skip
    return rows


def measure(path: Path, code: AttCode, cluster_of: dict[int, int], first_of: dict[int, int]) -> Measured:
    """Per cluster (``cluster_of``: instruction index -> cluster id; ``first_of``: cluster id -> its first
    instruction, whose executions count the visits) the median over waves of cycles per visit, of stall cycles per
    stall class, and of the share of the cluster's instructions a visit executed (a branch may skip some)."""
    size = Counter(cluster_of.values())
    index_of_line = {line: k for k, line in enumerate(code.lines)}
    insts = code.instructions()
    runs: dict[int, list[float]] = {}
    per_wave: list[tuple[dict[int, float], dict[int, int], dict[int, dict[str, float]]]] = []
    for wf in sorted(p for p in path.iterdir() if WAVE_FILE_RE.match(p.name)):
        rows = _wave_rows(wf)
        cycles: dict[int, float] = {}
        visits: dict[int, int] = {}
        stalls: dict[int, dict[str, float]] = {}
        ran: Counter[int] = Counter()
        for n, row in enumerate(rows):
            k = index_of_line.get(int(row[4]))
            c = cluster_of.get(k) if k is not None else None
            if c is None:
                continue
            span = rows[n + 1][0] - row[0] if n + 1 < len(rows) else row[3]
            cycles[c] = cycles.get(c, 0) + span
            ran[c] += 1
            if first_of.get(c) == k:
                visits[c] = visits.get(c, 0) + 1
            if row[2]:
                cls = amd_stall_class(insts[k])
                stalls.setdefault(c, {})[cls] = stalls.setdefault(c, {}).get(cls, 0) + row[2]
        per_wave.append((cycles, visits, stalls))
        for c, k in ran.items():
            runs.setdefault(c, []).append(k / (max(visits.get(c, 0), 1) * size[c]))
    out = Measured(wave_count=len(per_wave))
    for c in set(cluster_of.values()):
        seen = [(cy[c], vi.get(c, 1) or 1, st.get(c, {})) for cy, vi, st in per_wave if c in cy]
        if not seen:
            continue
        out.cycles[c] = round(median(cy / v for cy, v, _ in seen), 1)
        out.visits[c] = median(v for _, v, _ in seen)
        out.waves[c] = len(seen)
        out.coverage[c] = round(median(runs[c]), 3)
        classes = {name for _, _, st in seen for name in st}
        out.stalls[c] = {name: median(st.get(name, 0) / v for _, v, st in seen) for name in classes}
    return out


def align(kernel: Kernel, code: AttCode, trace_path: Path) -> AttCode:
    """The trace's code mapped onto ``kernel``'s instructions: the same mnemonics in the same order, else an error."""
    mine = [i.mnemonic for i in kernel.instructions]
    theirs = [text.split()[0] for text in code.instructions()]
    if mine == theirs:
        return code
    k = next((n for n, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b), min(len(mine), len(theirs)))
    raise InputError(
        f"{trace_path}: the trace's code is not this kernel's ({len(theirs)} instructions against {len(mine)}; "
        f"first difference at instruction {k})",
        hint="trace the binary compiled from this ISA, or pass the ATT directory alone (its code.json is the ISA)",
    )
