"""rocprofv3 readers: kernel_trace.csv (every header generation), kernel_stats.csv, results.json, rocpd .db.

Expected figures were computed independently of kernelpilot with Python's csv/sqlite3 modules in a scratch shell:
  kernel_trace.csv: 45 rows; per Kernel_Name sum(End-Start): flash_attn_func_kernel_0 9 calls 839765 ns
  (min 90481, max 103560), attn_fwd 766766 ns; all kernels 1995814 ns.
  results.db: SELECT name, count(*), sum(end-start), min(..), max(..) FROM kernels GROUP BY name ->
  CK kentry 150 / 2580371 / 15917 / 26340, __amd_rocclr_fillBufferAligned 1 / 24175; 151 dispatches.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from tools.errors import InputError
from tools.kernel_trace import load_trace, summarize_trace
from tools.profilers.analysis import timeline_events

from .trace_fixtures import KERNEL_STATS_CSV, KERNEL_TRACE_CSV, ROCPD_DB, results_json_doc


def test_kernel_trace_csv_rocm7_top_kernel():
    report = summarize_trace(KERNEL_TRACE_CSV, top_k=2)
    assert report.format == "rocprofv3-kernel-trace-csv"
    assert report.generation.startswith("ROCm>=7.0")
    assert report.dispatch_count == 45 and report.kernel_count == 19 and report.total_gpu_ns == 1995814
    top = report.top_kernels[0]
    assert (top.name, top.calls, top.total_ns, top.min_ns, top.max_ns) == (
        "flash_attn_func_kernel_0",
        9,
        839765,
        90481,
        103560,
    )
    assert round(100 * top.share, 2) == 42.08  # kernel_stats.csv's Percentage column says 42.08
    assert report.top_kernels[1].name == "attn_fwd" and report.top_kernels[1].total_ns == 766766
    assert report.top_kernels_truncated and report.top_kernels_total == 19


def test_kernel_trace_csv_keeps_ids_and_trace_registers():
    trace = load_trace(KERNEL_TRACE_CSV)
    first = trace.dispatches[0]
    assert (first.dispatch_id, first.agent, first.start_ns, first.end_ns) == (
        1,
        "Agent 2",
        2016988682735847,
        2016988682753807,
    )
    fa = next(d for d in trace.dispatches if d.name == "flash_attn_func_kernel_0")
    # rocprofv3 halves gfx950 VGPRs (the doc's pitfall 2): 124 here, kept only to be checked against the ISA.
    assert (fa.vgpr_count, fa.accum_vgpr_count, fa.sgpr_count, fa.lds_bytes) == (124, 0, 112, 49152)


def _rewrite_header(tmp_path, renames: dict[str, str | None]):
    """The real CSV with columns renamed/dropped as older rocprofv3 releases wrote them."""
    import csv

    rows = list(csv.reader(KERNEL_TRACE_CSV.open()))
    keep = [i for i, h in enumerate(rows[0]) if renames.get(h, h) is not None]
    out = tmp_path / "kernel_trace.csv"
    with out.open("w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow([renames.get(rows[0][i], rows[0][i]) for i in keep])
        for r in rows[1:]:
            w.writerow([r[i] for i in keep])
    return out


OLD_SIZES = {
    "LDS_Block_Size": "Group_Segment_Size",
    "Scratch_Size": "Private_Segment_Size",
    "VGPR_Count": None,
    "Accum_VGPR_Count": None,
    "SGPR_Count": None,
}


@pytest.mark.parametrize(
    ("dropped", "generation"),
    [
        ({}, "ROCm 6.4"),
        ({"Stream_Id": None}, "ROCm 6.3"),
        ({"Stream_Id": None, "Thread_Id": None, "Dispatch_Id": None}, "ROCm<=6.2"),
    ],
)
def test_older_header_generations_read_by_name(tmp_path, dropped, generation):
    trace = load_trace(_rewrite_header(tmp_path, {**OLD_SIZES, **dropped}))
    assert trace.generation.startswith(generation)
    assert len(trace.dispatches) == 45
    fa = next(d for d in trace.dispatches if d.name == "flash_attn_func_kernel_0")
    assert fa.lds_bytes == 49152 and fa.vgpr_count is None  # Group_Segment_Size read by name
    assert summarize_trace(trace.path).top_kernels[0].total_ns == 839765


def test_kernel_stats_csv():
    report = summarize_trace(KERNEL_STATS_CSV, top_k=1)
    assert report.format == "rocprofv3-kernel-stats-csv"
    assert report.kernel_count == 19 and report.dispatch_count == 45
    top = report.top_kernels[0]
    assert (top.name, top.calls, top.total_ns, top.avg_ns, top.stddev_ns) == (
        "flash_attn_func_kernel_0",
        9,
        839765,
        93307.222222,
        3982.388347,
    )
    assert load_trace(KERNEL_STATS_CSV).stats[1].stddev_ns == 0.0  # "0.00000000e+00" in the file


def test_rocpd_db_kernels_view():
    report = summarize_trace(ROCPD_DB)
    assert report.format == "rocpd" and "schema_version 3" in report.generation and "view kernels" in report.generation
    assert (report.arch, report.device) == ("gfx942", "AMD Instinct MI300X")
    assert report.dispatch_count == 151
    ck, fill = report.top_kernels
    assert ck.name.startswith("void ck_tile::kentry<1, ck_tile::BatchedGemmKernel")
    assert (ck.calls, ck.total_ns, ck.min_ns, ck.max_ns) == (150, 2580371, 15917, 26340)
    assert (fill.name, fill.calls, fill.total_ns) == ("__amd_rocclr_fillBufferAligned", 1, 24175)
    ck_dispatch = next(d for d in load_trace(ROCPD_DB).dispatches if d.name == ck.name)
    assert ck_dispatch.symbol.startswith("_ZN7ck_tile6kentryILi1E") and not ck_dispatch.symbol.endswith(".kd")
    assert (ck_dispatch.vgpr_count, ck_dispatch.accum_vgpr_count) == (128, 384)  # the misreported split


def test_rocpd_without_views_uses_uuid_tables(tmp_path):
    db = tmp_path / "noviews.db"
    shutil.copy(ROCPD_DB, db)
    con = sqlite3.connect(db)
    for (view,) in con.execute("SELECT name FROM sqlite_master WHERE type='view'").fetchall():
        con.execute(f'DROP VIEW "{view}"')
    con.commit()
    con.close()
    trace = load_trace(db)
    assert "rocpd_kernel_dispatch_00003fdc_92cb_72cb_9169_c7e541b1fcdf" in trace.generation
    assert len(trace.dispatches) == 151
    assert summarize_trace(db).top_kernels[0].total_ns == 2580371


def test_db_without_kernel_tables_is_a_clear_error(tmp_path):
    db = tmp_path / "other.db"
    sqlite3.connect(db).execute("CREATE TABLE t(x)").connection.commit()
    with pytest.raises(InputError, match="without rocpd kernel tables"):
        load_trace(db)


def test_results_json(tmp_path):
    # Shape per rocprofv3-schema.json (TOOL_OUTPUT_FORMATS.md §2); no real JSON fixture is available.
    doc = results_json_doc((1, 2, 3))
    path = tmp_path / "123_results.json"
    path.write_text(json.dumps(doc))
    report = summarize_trace(path)
    assert report.format == "rocprofv3-json" and report.arch == "gfx942"
    top = report.top_kernels[0]
    assert (top.name, top.calls, top.total_ns, top.min_ns, top.max_ns) == ("axpy(float*)", 3, 306, 101, 103)
    assert load_trace(path).dispatches[0].symbol == "_Z4axpyPf"


def test_empty_and_truncated_csv(tmp_path):
    empty = tmp_path / "kernel_trace.csv"
    empty.write_text("")
    with pytest.raises(InputError, match="is empty"):
        load_trace(empty)
    lines = KERNEL_TRACE_CSV.read_text().splitlines()
    cut = tmp_path / "cut_kernel_trace.csv"
    cut.write_text("\n".join(lines[:10]) + "\n" + lines[10][:60] + "\n")
    with pytest.raises(InputError, match=r"cut_kernel_trace.csv:11: .* the file looks truncated"):
        load_trace(cut)
    header_only = tmp_path / "h_kernel_trace.csv"
    header_only.write_text(lines[0] + "\n")
    with pytest.raises(InputError, match="no rows"):
        load_trace(header_only)


def test_unknown_inputs_say_what_was_expected(tmp_path):
    other = tmp_path / "x.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="CSV header not recognised") as exc:
        load_trace(other)
    assert "kernel_trace.csv" in exc.value.hint
    with pytest.raises(InputError, match="does not exist"):
        load_trace(tmp_path / "missing.db")


def test_kernel_filter_and_no_match():
    report = summarize_trace(ROCPD_DB, kernel_regex="fillBuffer")
    assert report.dispatch_count == 1 and report.top_kernels[0].total_ns == 24175
    with pytest.raises(InputError, match="no kernel .* matches 'nope'"):
        summarize_trace(ROCPD_DB, kernel_regex="nope")


def test_timeline_events(tmp_path):
    out = tmp_path / "tl.json"
    report = summarize_trace(ROCPD_DB, timeline=out)
    doc = json.loads(out.read_text())
    spans = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert len(spans) == 151 and report.timeline == str(out)
    assert spans[0]["name"] == "__amd_rocclr_fillBufferAligned" and spans[0]["ts"] == 0.0 and spans[0]["dur"] == 24.175
    assert {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M"} == {"Agent 2"}
    assert timeline_events([])["traceEvents"] == []


def test_timeline_needs_timestamps(tmp_path):
    with pytest.raises(InputError, match="no dispatch timestamps"):
        summarize_trace(KERNEL_STATS_CSV, timeline=tmp_path / "t.json")


def test_compare_before_after():
    report = summarize_trace(KERNEL_TRACE_CSV, compare=KERNEL_STATS_CSV)
    cmp = report.comparison
    assert cmp.total_before_ns == cmp.total_after_ns == 1995814
    fa = next(k for k in cmp.kernels if k.name == "flash_attn_func_kernel_0")
    assert fa.speedup == pytest.approx(1.0)
