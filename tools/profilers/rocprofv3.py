"""rocprofv3: read its kernel_trace / kernel_stats CSV, JSON and rocpd SQLite outputs, and build its command lines.

Columns are read by NAME: rocprofv3 inserted Stream_Id/Thread_Id/Dispatch_Id mid-row and renamed
Private_Segment_Size/Group_Segment_Size to Scratch_Size/LDS_Block_Size across releases; the generation seen is
reported in ``Trace.generation``.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from tools.errors import InputError
from tools.models.trace import Dispatch, KernelStat, Trace
from tools.profilers.reading import as_dict, as_float, as_int, as_list, guarded, read_text, regular_file

KERNEL_TRACE_REQUIRED = ("Kernel_Name", "Start_Timestamp", "End_Timestamp")
KERNEL_STATS_REQUIRED = ("Name", "Calls", "TotalDurationNs")


class CsvRow(dict):
    """One CSV row by column name, knowing where it came from (``file:line``) so a bad cell names itself."""

    where: str = ""

    def int(self, column: str) -> int | None:
        return as_int(self.get(column), self.where, f"column {column}")

    def float(self, column: str) -> float | None:
        return as_float(self.get(column), self.where, f"column {column}")


def read_csv_rows(path: Path, required: Sequence[str], what: str) -> tuple[list[str], list[CsvRow]]:
    """Header and rows of a CSV, with an InputError naming the file and line when it is empty or cut short."""
    text = read_text(path, what)
    if not text.strip():
        raise InputError(f"{path} is empty", hint=f"expected a {what} with a header row; did the profiler finish?")
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise InputError(f"{path}: not a readable CSV ({exc})", hint=f"expected a {what}") from None
    header = [h.strip() for h in rows[0]]
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(
            f"{path} is not a {what}: header lacks {', '.join(missing)}",
            hint=f"header seen: {','.join(header[:12])}{'...' if len(header) > 12 else ''}",
        )
    out = []
    for lineno, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise InputError(
                f"{path}:{lineno}: {len(row)} fields where the header has {len(header)}; the file looks truncated",
                hint="re-run the profiler and let it exit normally (it writes the CSV at process exit)",
            )
        r = CsvRow(zip(header, row, strict=True))
        r.where = f"{path}:{lineno}"
        out.append(r)
    if not out:
        raise InputError(
            f"{path} has a header but no rows", hint="no kernel ran, or rocprofv3's --kernel-include-regex matched none"
        )
    return header, out


def _triple(row: CsvRow, prefix: str) -> tuple[int, int, int] | None:
    vals = [row.int(f"{prefix}_{axis}") for axis in "XYZ"]
    return None if any(v is None for v in vals) else (vals[0], vals[1], vals[2])  # type: ignore[return-value]


def kernel_trace_generation(header: Sequence[str]) -> str:
    """Name the rocprofv3 kernel_trace.csv header generation from its column names."""
    cols = set(header)
    if "Scratch_Size" in cols or "VGPR_Count" in cols:
        return "ROCm>=7.0 (Scratch_Size/LDS_Block_Size, VGPR/Accum/SGPR columns)"
    if "Dispatch_Id" in cols and "Stream_Id" in cols:
        return "ROCm 6.4 (Stream_Id, Thread_Id, Dispatch_Id; Private/Group_Segment_Size)"
    if "Dispatch_Id" in cols:
        return "ROCm 6.3 (Thread_Id, Dispatch_Id; Private/Group_Segment_Size)"
    return "ROCm<=6.2 (16 columns, no Dispatch_Id)"


@guarded("rocprofv3 kernel_trace.csv")
def read_kernel_trace_csv(path: Path) -> Trace:
    header, rows = read_csv_rows(path, KERNEL_TRACE_REQUIRED, "rocprofv3 kernel_trace.csv")
    dispatches = []
    for row in rows:
        start, end = row.int("Start_Timestamp"), row.int("End_Timestamp")
        agent = row.get("Agent_Id")
        dispatches.append(
            Dispatch(
                name=row["Kernel_Name"],
                start_ns=start,
                end_ns=end,
                duration_ns=(end or 0) - (start or 0),
                dispatch_id=row.int("Dispatch_Id"),
                kernel_id=row.int("Kernel_Id"),
                correlation_id=row.int("Correlation_Id"),
                agent=(agent if agent and not agent.isdigit() else f"Agent {agent}") if agent else None,
                queue_id=row.int("Queue_Id"),
                stream_id=row.int("Stream_Id"),
                thread_id=row.int("Thread_Id"),
                grid=_triple(row, "Grid_Size"),
                workgroup=_triple(row, "Workgroup_Size"),
                lds_bytes=row.int("LDS_Block_Size" if "LDS_Block_Size" in row else "Group_Segment_Size"),
                scratch_bytes=row.int("Scratch_Size" if "Scratch_Size" in row else "Private_Segment_Size"),
                vgpr_count=row.int("VGPR_Count"),
                accum_vgpr_count=row.int("Accum_VGPR_Count"),
                sgpr_count=row.int("SGPR_Count"),
            )
        )
    return Trace(
        path=str(path),
        format="rocprofv3-kernel-trace-csv",
        generation=kernel_trace_generation(header),
        dispatches=dispatches,
    )


@guarded("rocprofv3 kernel_stats.csv")
def read_kernel_stats_csv(path: Path) -> Trace:
    header, rows = read_csv_rows(path, KERNEL_STATS_REQUIRED, "rocprofv3 kernel_stats.csv")
    stats = []
    for row in rows:
        calls, total = row.int("Calls") or 0, row.int("TotalDurationNs") or 0
        avg, pct = row.float("AverageNs"), row.float("Percentage")
        stats.append(
            KernelStat(
                name=row["Name"],
                calls=calls,
                total_ns=total,
                avg_ns=avg if avg is not None else (total / calls if calls else 0.0),
                min_ns=row.int("MinNs") or 0,
                max_ns=row.int("MaxNs") or 0,
                stddev_ns=row.float("StdDev"),
                share=pct / 100 if pct is not None else 0.0,
            )
        )
    generation = "8 columns (Min/Max/StdDev)" if "StdDev" in header else f"{len(header)} columns"
    return Trace(path=str(path), format="rocprofv3-kernel-stats-csv", generation=generation, stats=stats)


# --- JSON (-f json) ---------------------------------------------------------------------------------------------


@guarded("rocprofv3 results.json")
def read_results_json(path: Path) -> Trace:
    """``<pid>_results.json``: kernel_dispatch buffer records joined with kernel_symbols on kernel_id."""
    try:
        doc = json.loads(read_text(path, "rocprofv3 results.json"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})", hint="the file may be truncated"
        ) from exc
    tool = doc.get("rocprofiler-sdk-tool") if isinstance(doc, dict) else None
    if not tool:
        raise InputError(
            f"{path} is JSON but not rocprofv3 output (no 'rocprofiler-sdk-tool' key)",
            hint="expected the <pid>_results.json written by rocprofv3 -f json",
        )
    dispatches: list[Dispatch] = []
    arch = None
    runs = tool if isinstance(tool, list) else [tool]
    for r, run in enumerate(runs):
        at = f"{path}: rocprofiler-sdk-tool[{r}]"
        run = as_dict(run, at)
        symbols = {}
        for i, sym in enumerate(as_list(run.get("kernel_symbols"), f"{at}.kernel_symbols")):
            sym = as_dict(sym, f"{at}.kernel_symbols[{i}]")
            symbols[as_int(sym.get("kernel_id"), f"{at}.kernel_symbols[{i}]", "kernel_id")] = sym
        agents = {}
        for i, agent in enumerate(as_list(run.get("agents"), f"{at}.agents")):
            agent = as_dict(agent, f"{at}.agents[{i}]")
            handle = as_int(
                as_dict(agent.get("id"), f"{at}.agents[{i}].id").get("handle"), f"{at}.agents[{i}].id", "handle"
            )
            agents[handle] = agent
            if agent.get("type") == 2 or str(agent.get("name", "")).startswith("gfx"):
                arch = arch or _text(agent.get("name"))
        records = as_list(
            as_dict(run.get("buffer_records"), f"{at}.buffer_records").get("kernel_dispatch"),
            f"{at}.buffer_records.kernel_dispatch",
        )
        for i, rec in enumerate(records):
            where = f"{at}.buffer_records.kernel_dispatch[{i}]"
            rec = as_dict(rec, where)
            info = as_dict(rec.get("dispatch_info"), f"{where}.dispatch_info")

            def num(obj: dict, key: str, where: str = f"{where}.dispatch_info") -> int | None:
                return as_int(obj.get(key), where, key)

            kernel_id = num(info, "kernel_id")
            sym = symbols.get(kernel_id, {})
            start, end = num(rec, "start_timestamp", where), num(rec, "end_timestamp", where)
            agent = agents.get(num(as_dict(info.get("agent_id"), f"{where}.dispatch_info.agent_id"), "handle"), {})
            name = sym.get("formatted_kernel_name") or sym.get("demangled_kernel_name") or sym.get("kernel_name")
            dispatches.append(
                Dispatch(
                    name=_text(name) or f"kernel_id {kernel_id}",
                    symbol=(_text(sym.get("kernel_name")) or "").removesuffix(".kd") or None,
                    start_ns=start,
                    end_ns=end,
                    duration_ns=(end or 0) - (start or 0),
                    dispatch_id=num(info, "dispatch_id"),
                    kernel_id=kernel_id,
                    correlation_id=num(as_dict(rec.get("correlation_id"), f"{where}.correlation_id"), "internal"),
                    agent=f"Agent {as_int(agent['node_id'], where, 'agent node_id')}" if "node_id" in agent else None,
                    queue_id=num(as_dict(info.get("queue_id"), f"{where}.dispatch_info.queue_id"), "handle"),
                    thread_id=num(rec, "thread_id", where),
                    grid=_xyz(info.get("grid_size"), f"{where}.dispatch_info.grid_size"),
                    workgroup=_xyz(info.get("workgroup_size"), f"{where}.dispatch_info.workgroup_size"),
                    lds_bytes=num(info, "group_segment_size"),
                    scratch_bytes=num(info, "private_segment_size"),
                    vgpr_count=as_int(sym.get("arch_vgpr_count"), f"{at}.kernel_symbols", "arch_vgpr_count"),
                    accum_vgpr_count=as_int(sym.get("accum_vgpr_count"), f"{at}.kernel_symbols", "accum_vgpr_count"),
                    sgpr_count=as_int(sym.get("sgpr_count"), f"{at}.kernel_symbols", "sgpr_count"),
                )
            )
    if not dispatches:
        raise InputError(
            f"{path} holds no kernel_dispatch records",
            hint="run rocprofv3 with --kernel-trace (or --sys-trace) and -f json",
        )
    return Trace(
        path=str(path),
        format="rocprofv3-json",
        generation="rocprofiler-sdk-tool JSON",
        arch=arch,
        dispatches=dispatches,
    )


def _text(value: object) -> str | None:
    """A JSON name: strings as they are, numbers as text, anything else (lists, objects) None."""
    return value if isinstance(value, str) else str(value) if isinstance(value, int | float) else None


def _xyz(value: object, where: str) -> tuple[int, int, int] | None:
    d = as_dict(value, where)
    if not d:
        return None
    vals = [as_int(d.get(axis), where, axis) for axis in "xyz"]
    if any(v is None for v in vals):
        raise InputError(f"{where} lacks one of x, y, z", hint="the file may be damaged or edited")
    return (vals[0], vals[1], vals[2])  # type: ignore[return-value]


# --- rocpd SQLite (-f rocpd) ------------------------------------------------------------------------------------


def _names(db: sqlite3.Connection, kind: str) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,))}


@guarded("rocpd database")
def read_rocpd(path: Path) -> Trace:
    """A rocpd database: the ``kernels`` view when present, else the uuid-suffixed tables joined by hand."""
    regular_file(path, "rocpd database")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        views, tables = _names(db, "view"), _names(db, "table")
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path} is not an SQLite database ({exc})", hint="expected a rocpd <pid>_results.db") from exc
    try:
        schema = ""
        if "rocpd_metadata" in views | tables:
            meta = dict(db.execute("SELECT tag, value FROM rocpd_metadata").fetchall())
            schema = f"rocpd schema_version {meta.get('schema_version', '?')}"
        dispatch_tables = sorted(t for t in tables if t.startswith("rocpd_kernel_dispatch"))
        symbol_tables = sorted(t for t in tables if t.startswith("rocpd_info_kernel_symbol"))
        if "kernels" in views:
            sql = (
                "SELECT k.name, s.kernel_name, k.start, k.end, k.dispatch_id, k.kernel_id, k.corr_id, "
                "k.agent_abs_index, k.queue_id, k.stream_id, k.tid, k.grid_x, k.grid_y, k.grid_z, k.workgroup_x, "
                "k.workgroup_y, k.workgroup_z, k.lds_size, k.scratch_size, k.vgpr_count, k.accum_vgpr_count, "
                "k.sgpr_count FROM kernels k LEFT JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id "
                "ORDER BY k.start"
            )
            how = "view kernels"
        elif dispatch_tables and symbol_tables:
            d, s = dispatch_tables[0], symbol_tables[0]
            sql = (
                f"SELECT s.display_name, s.kernel_name, d.start, d.end, d.dispatch_id, d.kernel_id, d.event_id, "
                f"d.agent_id, d.queue_id, d.stream_id, d.tid, d.grid_size_x, d.grid_size_y, d.grid_size_z, "
                f"d.workgroup_size_x, d.workgroup_size_y, d.workgroup_size_z, d.group_segment_size, "
                f"d.private_segment_size, s.arch_vgpr_count, s.accum_vgpr_count, s.sgpr_count "
                f'FROM "{d}" d JOIN "{s}" s ON s.id = d.kernel_id ORDER BY d.start'
            )
            how = f"tables {d}, {s}"
        else:
            raise InputError(
                f"{path} is an SQLite database without rocpd kernel tables",
                hint="expected a 'kernels' view or rocpd_kernel_dispatch_<uuid> tables; was rocprofv3 run with "
                "--kernel-trace? (tables seen: " + ", ".join(sorted(tables)[:8]) + ")",
            )
        rows = db.execute(sql).fetchall()
        arch, device = None, None
        if "rocpd_info_agent" in views | tables:
            gpus = db.execute(
                "SELECT DISTINCT name, product_name FROM rocpd_info_agent WHERE type = 'GPU' ORDER BY absolute_index"
            ).fetchall()
            if gpus:
                arch, device = gpus[0]
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path}: cannot read rocpd tables ({exc})", hint="the database may be truncated") from exc
    finally:
        db.close()
    if not rows:
        raise InputError(f"{path} has rocpd kernel tables but no dispatches", hint="no kernel ran while profiling")
    dispatches = [_rocpd_dispatch(r, f"{path}: dispatch row {n}") for n, r in enumerate(rows, start=1)]
    return Trace(
        path=str(path),
        format="rocpd",
        generation=f"{schema} ({how})".strip(),
        arch=arch,
        device=device,
        dispatches=dispatches,
    )


def _rocpd_dispatch(r: tuple, where: str) -> Dispatch:
    """One row of the dispatch query (columns in the SELECT's order), every number checked."""
    names = ("start", "end", "dispatch_id", "kernel_id", "correlation_id", "agent", "queue_id", "stream_id", "tid")
    nums = [as_int(v, where, name) for v, name in zip(r[2:11], names, strict=True)]
    dim_names = ("grid_x", "grid_y", "grid_z", "workgroup_x", "workgroup_y", "workgroup_z", "lds_size")
    dim_names += ("scratch_size", "vgpr_count", "accum_vgpr_count", "sgpr_count")
    dims = [as_int(v, where, name) for v, name in zip(r[11:22], dim_names, strict=True)]
    start, end = nums[0], nums[1]
    name, symbol = (r[0] if isinstance(r[0], str) else None), (r[1] if isinstance(r[1], str) else "")
    return Dispatch(
        name=name or symbol.removesuffix(".kd") or "?",
        symbol=symbol.removesuffix(".kd") or None,
        start_ns=start,
        end_ns=end,
        duration_ns=(end or 0) - (start or 0),
        dispatch_id=nums[2],
        kernel_id=nums[3],
        correlation_id=nums[4],
        agent=f"Agent {nums[5]}",
        queue_id=nums[6],
        stream_id=nums[7],
        thread_id=nums[8],
        grid=None if None in dims[0:3] else (dims[0], dims[1], dims[2]),
        workgroup=None if None in dims[3:6] else (dims[3], dims[4], dims[5]),
        lds_bytes=dims[6],
        scratch_bytes=dims[7],
        vgpr_count=dims[8],
        accum_vgpr_count=dims[9],
        sgpr_count=dims[10],
    )


# --- command lines ------------------------------------------------------------------------------------------------


def rocprofv3_command(
    command: Sequence[str],
    output_dir: str,
    *,
    output_format: str = "csv",
    kernel_regex: str | None = None,
    iterations: tuple[int, int] | None = None,
    att: bool = False,
    att_target_cu: int | None = None,
    att_shader_engine_mask: str | None = None,
    att_buffer_size: str | None = None,
    att_perfcounters: str | None = None,
    input_file: str | None = None,
    rocprofv3: str = "rocprofv3",
) -> list[str]:
    """The rocprofv3 argument list that traces ``command``: kernel trace + stats, or ATT.

    ``iterations`` = (first, count) selects dispatch iterations of the matched kernels (``--kernel-iteration-range``,
    1-based, inclusive). With ``input_file`` (an input.yaml/json) the options come from that file instead.
    """
    if output_format not in ("csv", "rocpd", "json"):
        raise InputError(f"unknown rocprofv3 output format '{output_format}'", hint="use csv, rocpd or json")
    if not command:
        raise InputError("no command to profile", hint="put the command after --, e.g. -- python3 bench.py")
    argv = [rocprofv3]
    if input_file:
        argv += ["-i", input_file]
    else:
        argv += ["--kernel-trace", "--stats"]
        if att:
            argv += ["--att"]
            if att_target_cu is not None:
                argv += ["--att-target-cu", str(att_target_cu)]
            if att_shader_engine_mask:
                argv += ["--att-shader-engine-mask", att_shader_engine_mask]
            if att_buffer_size:
                argv += ["--att-buffer-size", att_buffer_size]
            if att_perfcounters:
                argv += ["--att-perfcounters", att_perfcounters]
        if kernel_regex:
            argv += ["--kernel-include-regex", kernel_regex]
        if iterations:
            first, count = iterations
            argv += ["--kernel-iteration-range", f"[{first}-{first + count - 1}]"]
    argv += ["-d", output_dir, "-o", "kp", "-f", output_format, "--", *command]
    return argv


def att_input_yaml(kernel_regex: str | None, *, target_cu: int = 1, buffer_size: str = "0x6000000") -> str:
    """An input.yaml asking for ATT of the matched kernels (for rocprofv3 -i); compile the kernel with -g first."""
    job = {
        "kernel_trace": True,
        "advanced_thread_trace": True,
        "att_target_cu": target_cu,
        "att_buffer_size": buffer_size,
        "output_format": ["csv"],
    }
    if kernel_regex:
        job["kernel_include_regex"] = kernel_regex
    lines = ["jobs:", "  -"]
    for key, value in job.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, list):
            value = "[" + ", ".join(value) + "]"
        elif isinstance(value, str) and not re.fullmatch(r"0x[0-9a-fA-F]+", value):
            value = json.dumps(value)
        lines.append(f"    {key}: {value}")
    return "\n".join(lines) + "\n"


# Environment that keeps debug info in the kernels, so ATT can map instructions to source lines.
DEBUG_INFO_ENV = {"FLYDSL_DEBUG_ENABLE_DEBUG_INFO": "1", "HIPCC_COMPILE_FLAGS_APPEND": "-g"}
