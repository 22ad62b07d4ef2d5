"""rocprofv3 advanced thread trace (ATT): the decoded ``ui_output_agent_<handle>_dispatch_<n>/`` directory and the
per-instruction ``stats_<dir>.csv`` beside it.

code.json rows are ``[isa, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle(, PC_Issued, PC_Stalled,
Stall_Reasons)]``; ``header`` is a string in trace mode and a list in PC-sampling mode. A row whose ISA starts with
``; `` names the kernel whose code follows (the listing spans the whole code object, neighbours and padding too).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tools.errors import InputError
from tools.models.trace import Instruction, Trace
from tools.profilers.analysis import branch_target
from tools.profilers.reading import as_dict, as_int, as_list, guarded, json_type, read_text
from tools.profilers.rocprofv3 import read_csv_rows

WAVE_FILE_RE = re.compile(r"^se(\d+)_sm(\d+)_sl(\d+)_wv(\d+)\.json$")
TIMELINE_STATES = {0: "EMPTY", 1: "IDLE", 2: "EXEC", 3: "WAIT", 4: "STALL"}
TRACE_COLUMNS = ["ISA", "_", "LineNumber", "Source", "Codeobj", "Vaddr", "Hit", "Latency", "Stall", "Idle"]


def is_att_dir(path: Path) -> bool:
    return path.is_dir() and (path / "code.json").is_file()


def _load_json(path: Path) -> object:
    try:
        return json.loads(read_text(path, "ATT JSON file"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})",
            hint="the ATT decoder may have been interrupted; decode the .att files again",
        ) from exc


def _columns(header: object) -> list[str]:
    if isinstance(header, list):
        return [str(h).strip() for h in header]
    if isinstance(header, str):
        return [h.strip() for h in header.split(",")]
    return TRACE_COLUMNS


def _att_arch(filenames: Path) -> str | None:
    """The GPU family ATT's filenames.json names (``gfxip``), None without one."""
    if not filenames.is_file():
        return None
    meta = _load_json(filenames)
    if isinstance(meta, dict):
        gfxip = meta.get("gfxip")
        if gfxip is not None:
            return f"gfx{gfxip} family ({meta.get('gfxv', '?')})"
    return None


def _wave_states(wave_files: list[Path]) -> dict[str, int]:
    """Cycles per wave state (``TIMELINE_STATES``), summed over every wave file's timeline."""
    states: dict[str, int] = {}
    for wf in wave_files:
        wave = as_dict(as_dict(_load_json(wf), str(wf)).get("wave"), f"{wf}: wave")
        for n, entry in enumerate(as_list(wave.get("timeline"), f"{wf}: wave.timeline")):
            pair = as_list(entry, f"{wf}: wave.timeline[{n}]")
            if len(pair) < 2:
                raise InputError(f"{wf}: wave.timeline[{n}] is not a [state, cycles] pair", hint="decode again")
            state = as_int(pair[0], f"{wf}: wave.timeline[{n}]", "state")
            name = TIMELINE_STATES.get(state, str(state))
            states[name] = states.get(name, 0) + (as_int(pair[1], f"{wf}: wave.timeline[{n}]", "cycles") or 0)
    return states


@guarded("ATT output directory")
def read_att_dir(path: Path) -> Trace:
    """Instructions (with the kernel they belong to), wave count and wave-state cycles of one decoded dispatch."""
    if not path.is_dir():
        raise InputError(f"{path} is not a directory", hint="pass the ui_output_agent_<N>_dispatch_<M>/ directory")
    code_path = path / "code.json"
    if not code_path.is_file():
        found = ", ".join(sorted(p.name for p in path.iterdir())[:8]) or "nothing"
        raise InputError(
            f"{path} is not an ATT output directory: no code.json",
            hint=f"expected ui_output_agent_<N>_dispatch_<M>/ with code.json, filenames.json and se*_sm*_sl*_wv*.json "
            f"(found: {found}); raw *.att files must be decoded first (rocprofv3 --att decodes them at exit)",
        )
    doc = _load_json(code_path)
    if not isinstance(doc, dict) or not isinstance(doc.get("code"), list):
        raise InputError(f"{code_path} has no 'code' list", hint="expected ATT code.json (version 3.x)")
    cols = _columns(doc.get("header"))
    idx = {name: i for i, name in enumerate(cols)}
    pc_sampling = "PC_Issued" in idx
    instructions: list[Instruction] = []
    kernels: list[str] = []
    kernel = ""
    width = max((i for n, i in idx.items() if n in TRACE_COLUMNS), default=9) + 1
    for n, row in enumerate(doc["code"]):
        where = f"{code_path}: code[{n}]"
        if not isinstance(row, list):
            raise InputError(
                f"{where} is a JSON {json_type(row)}, expected a list of {width} fields",
                hint="the ATT decoder output is damaged; decode the .att files again",
            )
        isa = str(row[idx.get("ISA", 0)]) if row else ""
        if isa.startswith("; "):
            kernel = isa[2:].strip()
            kernels.append(kernel)
            continue
        if len(row) < width:
            raise InputError(
                f"{where} has {len(row)} fields, expected {width} ({', '.join(cols[:width])})",
                hint="the ATT decoder output is damaged or cut short; decode the .att files again",
            )

        def field(name: str, default: int, row: list = row, where: str = where) -> int:
            return as_int(row[idx.get(name, default)], where, name) or 0

        reasons: dict[str, float] = {}
        if pc_sampling and "Stall_Reasons" in idx and len(row) > idx["Stall_Reasons"]:
            values = row[idx["Stall_Reasons"]]
            if isinstance(values, list):
                reasons = {f"reason_{i}": float(v) for i, v in enumerate(values) if as_int(v, where, "Stall_Reasons")}
        source = row[idx.get("Source", 3)]
        instructions.append(
            Instruction(
                index=field("LineNumber", 2),
                address=field("Vaddr", 5),
                codeobj=field("Codeobj", 4),
                isa=isa,
                source=source if isinstance(source, str) else "",
                hit=field("Hit", 6),
                latency=field("Latency", 7),
                stall=field("Stall", 8),
                idle=field("Idle", 9),
                kernel=kernel,
                stall_reasons=reasons,
            )
        )
    notes = []
    arch = _att_arch(path / "filenames.json")
    wave_files = sorted(p for p in path.iterdir() if WAVE_FILE_RE.match(p.name))
    states = _wave_states(wave_files)
    if not wave_files:
        notes.append("no wave files (se*_sm*_sl*_wv*.json) in the directory: per-wave timelines unavailable")
    if instructions and not any(i.source for i in instructions):
        notes.append(
            "code.json has no Source column values: compile with -g (FLYDSL_DEBUG_ENABLE_DEBUG_INFO=1) for lines"
        )
    if (path / "snapshots.json").is_file():
        notes.append("snapshots.json present: source files were copied next to the trace")
    siblings = sorted(path.parent.glob(f"stats_{path.name}.csv"))
    if siblings:
        notes.append(f"per-instruction CSV beside it: {siblings[0].name}")
    generation = f"ATT code.json {doc.get('version', '?')}" + (" (PC sampling)" if pc_sampling else " (thread trace)")
    return Trace(
        path=str(path),
        format="att",
        generation=generation,
        arch=arch,
        instructions=instructions,
        kernels=kernels,
        waves=len(wave_files),
        wave_states=states,
        notes=notes,
    )


@guarded("ATT stats CSV")
def read_att_stats_csv(path: Path) -> Trace:
    """``stats_ui_output_agent_<N>_dispatch_<M>.csv``: the same per-instruction figures, sorted by (codeobj, vaddr)."""
    _, rows = read_csv_rows(path, ("CodeObj", "Vaddr", "Instruction", "Stall"), "ATT stats CSV")
    instructions, kernels, kernel = [], [], ""
    for n, row in enumerate(rows):
        isa = row["Instruction"]
        if isa.startswith("; "):
            kernel = isa[2:].strip()
            kernels.append(kernel)
            continue
        instructions.append(
            Instruction(
                index=n,
                address=row.int("Vaddr"),
                codeobj=row.int("CodeObj"),
                isa=isa,
                source=row.get("Source", ""),
                hit=row.int("Hitcount") or 0,
                latency=row.int("Latency") or 0,
                stall=row.int("Stall") or 0,
                idle=row.int("Idle") or 0,
                kernel=kernel,
            )
        )
    return Trace(
        path=str(path), format="att-stats-csv", generation="ATT stats CSV", instructions=instructions, kernels=kernels
    )


def att_isa_text(trace: Trace, kernel: str) -> tuple[str, list[Instruction]]:
    """A ``.s`` listing of ``kernel``'s code.json rows (up to its last s_endpgm) that tools.isa parses: branch
    offsets become labels at their target addresses. Returns (text, the rows in instruction order)."""
    rows = [i for i in trace.instructions if i.kernel == kernel]
    last_end = max((n for n, r in enumerate(rows) if r.isa.strip().startswith("s_endpgm")), default=len(rows) - 1)
    rows = rows[: last_end + 1]
    targets = {t for r in rows if (t := branch_target(r)) is not None}
    lines = ["\t.text", f"\t.globl\t{kernel}", f"\t.type\t{kernel},@function", f"{kernel}:"]
    for r in rows:
        if r.address in targets:
            lines.append(f".Latt_{r.address}:")
        t = branch_target(r)
        text = r.isa.strip()
        if t is not None:
            text = f"{text.split()[0]} .Latt_{t}"
        lines.append(f"\t{text}")
    return "\n".join(lines) + "\n", rows
