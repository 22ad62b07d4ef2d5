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
from tools.profilers.rocprofv3 import read_csv_rows

WAVE_FILE_RE = re.compile(r"^se(\d+)_sm(\d+)_sl(\d+)_wv(\d+)\.json$")
TIMELINE_STATES = {0: "EMPTY", 1: "IDLE", 2: "EXEC", 3: "WAIT", 4: "STALL"}
TRACE_COLUMNS = ["ISA", "_", "LineNumber", "Source", "Codeobj", "Vaddr", "Hit", "Latency", "Stall", "Idle"]


def is_att_dir(path: Path) -> bool:
    return path.is_dir() and (path / "code.json").is_file()


def _load_json(path: Path) -> object:
    try:
        return json.loads(path.read_text())
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
    for row in doc["code"]:
        isa = str(row[idx.get("ISA", 0)])
        if isa.startswith("; "):
            kernel = isa[2:].strip()
            kernels.append(kernel)
            continue
        reasons: dict[str, float] = {}
        if pc_sampling and "Stall_Reasons" in idx and isinstance(row[idx["Stall_Reasons"]], list):
            reasons = {f"reason_{i}": float(v) for i, v in enumerate(row[idx["Stall_Reasons"]]) if v}
        instructions.append(
            Instruction(
                index=int(row[idx.get("LineNumber", 2)]),
                address=int(row[idx.get("Vaddr", 5)]),
                codeobj=int(row[idx.get("Codeobj", 4)]),
                isa=isa,
                source=str(row[idx.get("Source", 3)] or ""),
                hit=int(row[idx.get("Hit", 6)]),
                latency=int(row[idx.get("Latency", 7)]),
                stall=int(row[idx.get("Stall", 8)]),
                idle=int(row[idx.get("Idle", 9)]),
                kernel=kernel,
                stall_reasons=reasons,
            )
        )
    notes = []
    arch = None
    filenames = path / "filenames.json"
    if filenames.is_file():
        meta = _load_json(filenames)
        if isinstance(meta, dict):
            gfxip = meta.get("gfxip")
            if gfxip is not None:
                arch = f"gfx{gfxip} family ({meta.get('gfxv', '?')})"
    wave_files = sorted(p for p in path.iterdir() if WAVE_FILE_RE.match(p.name))
    states: dict[str, int] = {}
    for wf in wave_files:
        wave = (_load_json(wf) or {}).get("wave") or {}
        for state, cycles in wave.get("timeline") or []:
            name = TIMELINE_STATES.get(state, str(state))
            states[name] = states.get(name, 0) + int(cycles)
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
                address=int(row["Vaddr"]),
                codeobj=int(row["CodeObj"]),
                isa=isa,
                source=row.get("Source", ""),
                hit=int(row.get("Hitcount") or 0),
                latency=int(row.get("Latency") or 0),
                stall=int(row.get("Stall") or 0),
                idle=int(row.get("Idle") or 0),
                kernel=kernel,
            )
        )
    return Trace(
        path=str(path), format="att-stats-csv", generation="ATT stats CSV", instructions=instructions, kernels=kernels
    )
