"""Reading any supported profiler output into one Trace model, the format detected from the name and content."""

from __future__ import annotations

import csv
from pathlib import Path

from tools import paths
from tools.errors import InputError
from tools.models.trace import Trace
from tools.profilers import att, ncu, rocprofv3
from tools.profilers.reading import guarded, regular_file

FORMATS_EXPECTED = (
    "rocprofv3 kernel_trace.csv / kernel_stats.csv, <pid>_results.json, a rocpd .db, an ATT "
    "ui_output_agent_<N>_dispatch_<M>/ directory (or its stats_*.csv), an ncu --csv --page details|source|raw export, "
    "or a kernel-trace --profiler ncu output directory (ncu_details.csv, ncu_source.csv, ncu_raw.csv)"
)
NCU_EXPORT_NAMES = {"details": "ncu_details.csv", "source": "ncu_source.csv", "raw": "ncu_raw.csv"}


def ncu_exports(directory: Path) -> dict[str, Path]:
    """The ncu CSV exports ``kernel-trace --profiler ncu`` wrote into ``directory`` (page → file), those present."""
    return {page: directory / name for page, name in NCU_EXPORT_NAMES.items() if (directory / name).is_file()}


def read_ncu_exports(files: dict[str, Path]) -> Trace:
    """The details page (kernels, durations, metrics, rules) with the source page's per-instruction samples."""
    details = ncu.read_details(paths.guard(files["details"], "ncu export"))
    if "source" not in files:
        return details
    source = ncu.read_source(paths.guard(files["source"], "ncu export"))
    return details.model_copy(
        update={"instructions": source.instructions, "kernels": source.kernels, "notes": details.notes + source.notes}
    )


def _csv_header(path: Path) -> list[str]:
    with path.open(errors="replace") as f:
        for line in f:
            if line.strip() and not line.startswith("=="):
                return next(csv.reader([line]), [])
    return []


def find_outputs(directory: Path) -> list[Path]:
    """Profiler outputs inside a rocprofv3 -d directory, best first (trace files before stats, then ATT)."""
    found: list[Path] = []
    for pattern in ("*kernel_trace.csv", "*results.db", "*results.json", "*kernel_stats.csv"):
        found += sorted(directory.rglob(pattern))
    found += sorted(p for p in directory.rglob("ui_output_agent_*") if att.is_att_dir(p))
    return found


def load_trace(path: str | Path) -> Trace:
    """Read any supported profiler output, detecting its format from the name and content.

    Any problem with the input (unreadable, wrong shape, a cell that is not a number) is an InputError naming the
    file and, where it can, the line and field; never another exception.
    """
    return _load_trace(paths.guard(path, "trace"))


@guarded("profiler output")
def _load_trace(p: Path) -> Trace:
    if not p.exists():
        raise InputError(f"{p} does not exist", hint=f"expected {FORMATS_EXPECTED}")
    if p.is_dir():
        if att.is_att_dir(p):
            return att.read_att_dir(paths.guard_tree(p, "ATT directory"))
        exports = ncu_exports(p)
        if "details" in exports:
            return read_ncu_exports(exports)
        outputs = find_outputs(p)
        if outputs:
            return _load_trace(paths.guard(outputs[0], "trace"))
        return att.read_att_dir(p)  # raises the "not an ATT directory" error with what was found
    suffix = p.suffix.lower()
    regular_file(p, "profiler output")
    if p.stat().st_size == 0:
        raise InputError(f"{p} is empty", hint=f"expected {FORMATS_EXPECTED}; did the profiler finish?")
    if suffix in (".db", ".sqlite", ".sqlite3", ".rpd"):
        return rocprofv3.read_rocpd(p)
    if suffix == ".json":
        if p.name == "code.json":
            return att.read_att_dir(paths.guard_tree(p.parent, "ATT directory"))
        return rocprofv3.read_results_json(p)
    if suffix == ".ncu-rep":
        raise InputError(
            f"{p} is a binary Nsight Compute report",
            hint=f"export it first: {' '.join(ncu.ncu_export_command(str(p), 'source'))} > source.csv "
            "(and --page details / raw)",
        )
    if suffix not in (".gz", ".tar", ".zip", ".pftrace", ".otf2"):
        header = set(_csv_header(p))
        if {"Kernel_Name", "Start_Timestamp"} <= header:
            return rocprofv3.read_kernel_trace_csv(p)
        if {"Name", "Calls", "TotalDurationNs"} <= header:
            return rocprofv3.read_kernel_stats_csv(p)
        if {"CodeObj", "Vaddr", "Instruction"} <= header:
            return att.read_att_stats_csv(p)
        page = ncu.sniff_ncu_page(p)
        if page == "details":
            return ncu.read_details(p)
        if page == "raw":
            return ncu.read_raw(p)
        if page == "source":
            return ncu.read_source(p)
        if suffix == ".csv":
            shown = ",".join(sorted(header)[:10])
            raise InputError(f"{p}: CSV header not recognised ({shown})", hint=f"expected {FORMATS_EXPECTED}")
    raise InputError(f"{p}: unrecognised profiler output", hint=f"expected {FORMATS_EXPECTED}")
