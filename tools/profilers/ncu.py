"""Nsight Compute CSV exports (``--page details|source|raw --csv``) and the ncu command lines that make them.

ncu prints numbers as locale strings ("1,215,000,000.00"), "n/a" for missing values, may precede the CSV with
``==PROF==`` lines, and its column sets differ by version and page: everything is read by column name.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from pathlib import Path

from tools.errors import InputError
from tools.models.trace import Dispatch, Instruction, NcuMetric, NcuRule, Trace
from tools.profilers.reading import guarded, read_text

# Units of gpu__time_duration and "Duration" rows, to nanoseconds.
TIME_UNITS_NS = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}
SOURCE_SECTIONS = ("SourceCounters", "SpeedOfLight", "LaunchStats", "Occupancy", "WarpStateStats")


def parse_number(text: str | None) -> float | None:
    """ncu's printed number: thousands separators dropped, 'n/a' and empty -> None."""
    if text is None:
        return None
    t = text.strip().replace(",", "").replace("%", "")
    if not t or t.lower() in ("n/a", "nan", "-"):
        return None
    try:
        value = float(t)
    except ValueError:
        return None
    return value if math.isfinite(value) else None  # '1e999' is not a measurement


def _csv_rows(path: Path) -> list[list[str]]:
    """Rows of an ncu CSV with any ``==PROF==``/``==WARNING==`` preamble and trailing noise skipped."""
    text = read_text(path, "ncu CSV export")
    if not text.strip():
        raise InputError(f"{path} is empty", hint="ncu wrote nothing: did it profile any kernel (check -k / -c)?")
    lines = [ln for ln in text.splitlines() if not ln.startswith("==")]
    try:
        rows = [r for r in csv.reader(io.StringIO("\n".join(lines))) if r]
    except csv.Error as exc:
        raise InputError(
            f"{path}: not a readable CSV ({exc})", hint="use ncu --csv --page details|source|raw"
        ) from None
    if not rows:
        raise InputError(f"{path} holds only ncu log lines, no CSV", hint="did ncu profile any kernel (check -k / -c)?")
    return rows


def sniff_ncu_page(path: Path) -> str | None:
    """'details' | 'raw' | 'source' when the file looks like that ncu CSV page, else None."""
    try:
        head = path.read_text(errors="replace")[:20000]
    except OSError:
        return None
    lines = [ln for ln in head.splitlines() if ln.strip() and not ln.startswith("==")]
    for ln in lines[:6]:
        cells = next(csv.reader([ln]), [])
        if "Metric Name" in cells and "Section Name" in cells:
            return "details"
        if "ID" in cells and "Kernel Name" in cells and any("__" in c for c in cells):
            return "raw"
        if "Address" in cells and "Source" in cells:
            return "source"
    return None


def _kernel_key(row: dict[str, str]) -> str:
    return f"{row.get('ID', '?')}: {row.get('Kernel Name', '?')}"


def _dim3(text: str | None) -> tuple[int, int, int] | None:
    nums = [int(n) for n in re.findall(r"\d+", text or "")]
    return (nums[0], nums[1], nums[2]) if len(nums) == 3 else None


@guarded("ncu details CSV")
def read_details(path: Path) -> Trace:
    """``--page details --csv``: one metric per row, grouped by kernel launch (``ID: name``); rule rows kept apart."""
    rows = _csv_rows(path)
    header = rows[0]
    for need in ("Kernel Name", "Section Name", "Metric Name", "Metric Value"):
        if need not in header:
            raise InputError(
                f"{path} is not an ncu details page: no '{need}' column", hint="use ncu --csv --page details"
            )
    metrics: dict[str, list[NcuMetric]] = {}
    rules: dict[str, list[NcuRule]] = {}
    launches: dict[str, dict[str, str]] = {}
    for lineno, cells in enumerate(rows[1:], start=2):
        if len(cells) < len(header) - 5:  # the 5 rule columns may be absent on metric rows
            raise InputError(
                f"{path}:{lineno}: {len(cells)} fields, header has {len(header)}; the file looks truncated",
                hint="export the page again (ncu --import R.ncu-rep --csv --page ...) and let it finish",
            )
        row = dict(zip(header, cells, strict=False))
        key = _kernel_key(row)
        launches.setdefault(key, row)
        if row.get("Metric Name"):
            metrics.setdefault(key, []).append(
                NcuMetric(
                    section=row["Section Name"],
                    name=row["Metric Name"],
                    unit=row.get("Metric Unit", ""),
                    value=parse_number(row.get("Metric Value")),
                    text=row.get("Metric Value", ""),
                )
            )
        elif row.get("Rule Name"):
            rules.setdefault(key, []).append(
                NcuRule(
                    section=row["Section Name"],
                    rule=row["Rule Name"],
                    type=row.get("Rule Type", ""),
                    description=row.get("Rule Description", ""),
                    estimated_speedup=parse_number(row.get("Estimated Speedup")),
                )
            )
    dispatches = []
    for key, row in launches.items():
        duration = next((m for m in metrics.get(key, []) if m.name == "Duration" and m.value is not None), None)
        regs = next((m for m in metrics.get(key, []) if m.name == "Registers Per Thread"), None)
        dispatches.append(
            Dispatch(
                name=row.get("Kernel Name", "?"),
                duration_ns=round(duration.value * TIME_UNITS_NS.get(duration.unit, 1)) if duration else 0,
                dispatch_id=int(row["ID"]) if row.get("ID", "").isdigit() else None,
                agent=f"device {row['Device']}" if row.get("Device") else None,
                stream_id=int(row["Stream"]) if row.get("Stream", "").isdigit() else None,
                grid=_dim3(row.get("Grid Size")),
                workgroup=_dim3(row.get("Block Size")),
                registers_per_thread=int(regs.value) if regs and regs.value is not None else None,
            )
        )
    cc = next((r.get("CC") for r in launches.values() if r.get("CC")), None)
    notes = [] if any(d.duration_ns for d in dispatches) else ["no Duration metric: add --section SpeedOfLight"]
    return Trace(
        path=str(path),
        format="ncu-details",
        generation=f"ncu details CSV, {len(header)} columns"
        + (" (with rule columns)" if "Rule Name" in header else ""),
        arch=f"sm_{cc.replace('.', '')}" if cc else None,
        dispatches=dispatches,
        metrics=metrics,
        rules=rules,
        notes=notes,
    )


@guarded("ncu raw CSV")
def read_raw(path: Path) -> Trace:
    """``--page raw --csv``: one row per launch, one column per metric; the second row may hold the units."""
    rows = _csv_rows(path)
    header = rows[0]
    if "Kernel Name" not in header or "ID" not in header:
        raise InputError(
            f"{path} is not an ncu raw page: no 'ID'/'Kernel Name' columns", hint="use ncu --csv --page raw"
        )
    units: dict[str, str] = {}
    data = rows[1:]
    if data and not data[0][header.index("ID")].strip().isdigit():
        units = dict(zip(header, data[0], strict=False))
        data = data[1:]
    metrics: dict[str, list[NcuMetric]] = {}
    dispatches = []
    for lineno, cells in enumerate(data, start=3 if units else 2):
        if len(cells) != len(header):
            raise InputError(
                f"{path}:{lineno}: {len(cells)} fields, header has {len(header)}; the file looks truncated",
                hint="export the page again (ncu --import R.ncu-rep --csv --page ...) and let it finish",
            )
        row = dict(zip(header, cells, strict=True))
        key = _kernel_key(row)
        metrics[key] = [
            NcuMetric(section="raw", name=name, unit=units.get(name, ""), value=parse_number(row[name]), text=row[name])
            for name in header
            if "__" in name
        ]
        dur = parse_number(row.get("gpu__time_duration.sum"))
        unit = units.get("gpu__time_duration.sum", "nsecond")
        regs = parse_number(row.get("launch__registers_per_thread"))
        dispatches.append(
            Dispatch(
                name=row["Kernel Name"],
                duration_ns=round(dur * TIME_UNITS_NS.get(unit, 1)) if dur is not None else 0,
                dispatch_id=int(row["ID"]) if row["ID"].isdigit() else None,
                agent=f"device {row['Device']}" if row.get("Device") else None,
                stream_id=int(row["Stream"]) if row.get("Stream", "").isdigit() else None,
                grid=_dim3(row.get("Grid Size")),
                workgroup=_dim3(row.get("Block Size")),
                registers_per_thread=int(regs) if regs is not None else None,
            )
        )
    cc = next((r for r in (d.get("CC") for d in [dict(zip(header, c, strict=False)) for c in data]) if r), None)
    return Trace(
        path=str(path),
        format="ncu-raw",
        generation=f"ncu raw CSV, {len(header)} columns" + (", units row" if units else ""),
        arch=f"sm_{cc.replace('.', '')}" if cc else None,
        dispatches=dispatches,
        metrics=metrics,
    )


def _stall_columns(header: Sequence[str]) -> dict[int, str]:
    """Column index -> reason for the per-reason stall sample columns (all samples, not the '(Not Issued)' ones)."""
    return {
        i: col.removeprefix("stall_") for i, col in enumerate(header) if col.startswith("stall_") and "(" not in col
    }


@guarded("ncu source CSV")
def read_source(path: Path) -> Trace:
    """``--page source --csv``: SASS rows with warp-stall samples, by kernel.

    With ``--print-source sass`` a ``"Kernel Name",<name>`` row precedes the header. With ``cuda,sass`` each
    ``"File Path",<file>`` block holds source rows (``Line No`` set, Address ``-``) each followed by its SASS rows,
    and the header has two ``Source`` columns (CUDA text, then SASS); rows ``...`` elide instructions.
    """
    rows = _csv_rows(path)
    if not any("Address" in r and "Source" in r for r in rows[:50]):
        raise InputError(
            f"{path} is not an ncu source page: no header with 'Address' and 'Source'",
            hint="use ncu --import R.ncu-rep --csv --page source --print-source sass (profile with --section SourceCounters)",
        )
    instructions: list[Instruction] = []
    kernels: list[str] = []
    header: list[str] = []
    kernel = file = line = ""
    addr_at = sass_at = line_at = -1
    stall_cols: dict[int, str] = {}
    for cells in rows:
        if len(cells) >= 2 and cells[0] in ("Kernel Name", "Function Name", "File Path") and "Address" not in cells:
            if cells[0] == "File Path":
                file = cells[1]
            else:
                kernel = cells[1]
                if kernel not in kernels:
                    kernels.append(kernel)
            continue
        if "Address" in cells and "Source" in cells:
            header = cells
            addr_at = header.index("Address")
            sass_at = next(i for i, c in enumerate(header) if c == "Source" and i > addr_at)
            line_at = header.index("Line No") if "Line No" in header else -1
            stall_cols = _stall_columns(header)
            continue
        if not header or len(cells) < len(header):
            continue
        if line_at >= 0 and cells[line_at].strip():
            line = cells[line_at].strip()
            continue
        addr = cells[addr_at].strip()
        if not re.fullmatch(r"(0x)?[0-9a-fA-F]+", addr):
            continue
        row = {name: cells[i] for i, name in enumerate(header)}
        reasons = {name: v for i, name in stall_cols.items() if (v := parse_number(cells[i]))}
        instructions.append(
            Instruction(
                index=len(instructions),
                address=int(addr, 16),
                isa=cells[sass_at].strip(),
                source=f"{file}:{line}" if file and line else "",
                hit=int(parse_number(row.get("Instructions Executed")) or 0),
                latency=int(parse_number(row.get("Warp Stall Sampling (All Samples)")) or 0),
                stall=int(parse_number(row.get("Warp Stall Sampling (Not-issued Samples)")) or 0),
                kernel=kernel,
                stall_reasons=reasons,
            )
        )
    if not instructions:
        raise InputError(
            f"{path}: ncu source page without instruction rows", hint="profile with ncu --section SourceCounters"
        )
    view = "cuda,sass" if line_at >= 0 else "sass"
    return Trace(
        path=str(path),
        format="ncu-source",
        generation=f"ncu source CSV ({view}), {len(header)} columns, {len(stall_cols)} stall-reason columns",
        instructions=instructions,
        kernels=kernels,
        notes=["ncu source page: latency = warp stall samples (all), stall = not-issued samples"],
    )


# --- command lines ------------------------------------------------------------------------------------------------


def ncu_profile_command(
    command: Sequence[str],
    report: str,
    *,
    kernel_regex: str | None = None,
    launch_skip: int = 0,
    launch_count: int = 1,
    sections: Sequence[str] = SOURCE_SECTIONS,
    ncu: str = "ncu",
    clock_control: str = "base",
) -> list[str]:
    """Profile ``command`` once into ``report``.ncu-rep with source counters and the CUDA source imported;
    ``clock_control`` ``none`` leaves the clocks to the GPU (ncu's default, ``base``, locks them)."""
    if not command:
        raise InputError("no command to profile", hint="put the command after --, e.g. -- python3 bench.py")
    argv = [ncu, "-f", "-o", report]
    for section in sections:
        argv += ["--section", section]
    argv += ["--import-source", "yes"]
    if clock_control != "base":
        argv += ["--clock-control", clock_control]
    if kernel_regex:
        argv += ["-k", f"regex:{kernel_regex}"]
    if launch_skip:
        argv += ["-s", str(launch_skip)]
    argv += ["-c", str(launch_count), *command]
    return argv


def ncu_export_command(report: str, page: str, *, ncu: str = "ncu") -> list[str]:
    """Export one page of a report as CSV (source page: SASS with per-instruction stall samples)."""
    argv = [ncu, "--import", report, "--csv", "--page", page]
    if page == "source":
        argv += ["--print-source", "sass"]
    if page == "raw":
        argv += ["--print-units", "base"]
    return argv


LINEINFO_HINT = (
    "for CUDA source lines compile with -lineinfo (nvcc -lineinfo; Triton keeps line info unless "
    "TRITON_DISABLE_LINE_INFO=1)"
)
