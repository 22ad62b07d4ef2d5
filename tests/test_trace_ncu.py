"""Nsight Compute exports: the shared details fixture (ncu 2025.1.1, CC 12.0) and real H100 exports of a Triton
softmax (tests/data/ncu, see its README). Expected figures counted with Python's csv module in a scratch shell:
  details fixture: 48 rows, 44 metric rows, 4 rule rows (3 OPT, 1 INF), Duration "6.75" us.
  H100 details: Duration 11.36 us, Registers Per Thread 23; raw: gpu__time_duration.sum "11,360" ns, CC 9.0.
  H100 source (sass): 184 SASS rows, not-issued samples 528, all samples 870; max not-issued at 0x7f48637aebd0
  'FMNMX R13, R9, R8, !PT' 136 (all 269, stall_long_sb 267); stall_long_sb summed over rows 294.
  cuda,sass: the same 184 SASS rows; most samples at triton/language/standard.py:170 (205 not-issued).
"""

from __future__ import annotations

import pytest

from tools.errors import InputError
from tools.kernel_trace import load_trace, summarize_trace
from tools.profilers.ncu import parse_number

from .trace_fixtures import NCU_DATA, NCU_DETAILS_CC120

H100_DETAILS = NCU_DATA / "h100_triton_softmax_details.csv"
H100_RAW = NCU_DATA / "h100_triton_softmax_raw.csv"
H100_SASS = NCU_DATA / "h100_triton_softmax_source_sass.csv"
H100_CUDA_SASS = NCU_DATA / "h100_triton_softmax_source_cuda_sass.csv"


def test_parse_number_locale_and_na():
    assert parse_number("1,215,000,000.00") == 1215000000.0
    assert parse_number("n/a") is None and parse_number("") is None and parse_number("11,360") == 11360.0


def test_details_fixture_cc120():
    trace = load_trace(NCU_DETAILS_CC120)
    assert trace.format == "ncu-details" and trace.arch == "sm_120" and "with rule columns" in trace.generation
    (key,) = trace.metrics
    assert len(trace.metrics[key]) == 44 and len(trace.rules[key]) == 4
    (d,) = trace.dispatches
    assert d.duration_ns == 6750 and d.workgroup == (32, 4, 1) and d.grid == (224, 1, 1)
    report = summarize_trace(NCU_DETAILS_CC120)
    assert [r.type for r in report.ncu_rules] == ["OPT", "OPT", "OPT"]
    assert report.ncu_rules[0].rule == "SOLBottleneck"


def test_details_h100():
    (d,) = load_trace(H100_DETAILS).dispatches
    assert (d.name, d.duration_ns, d.registers_per_thread, d.grid, d.workgroup) == (
        "softmax_kernel",
        11360,
        23,
        (4096, 1, 1),
        (128, 1, 1),
    )


def test_raw_h100_with_units_row():
    trace = load_trace(H100_RAW)
    assert trace.format == "ncu-raw" and trace.arch == "sm_90" and "units row" in trace.generation
    (d,) = trace.dispatches
    assert (d.duration_ns, d.registers_per_thread) == (11360, 23)
    assert len(next(iter(trace.metrics.values()))) == 645


def test_source_sass_h100():
    trace = load_trace(H100_SASS)
    assert trace.format == "ncu-source" and trace.kernels == ["softmax_kernel"]
    assert len(trace.instructions) == 184
    assert sum(i.stall for i in trace.instructions) == 528 and sum(i.latency for i in trace.instructions) == 870
    report = summarize_trace(H100_SASS)
    hot = report.hotspots[0]
    assert (hot.address, hot.isa, hot.stall, hot.latency) == (0x7F48637AEBD0, "FMNMX R13, R9, R8, !PT", 136, 269)
    assert hot.stall_class == "long_scoreboard (global/local memory wait)"
    top = report.stall_breakdown[0]
    assert (top.stall_class, top.stall) == ("long_scoreboard (global/local memory wait)", 294)
    assert sum(s.stall for s in report.stall_breakdown) == 870


def test_source_cuda_sass_h100_lines():
    trace = load_trace(H100_CUDA_SASS)
    assert "(cuda,sass)" in trace.generation and len(trace.instructions) == 184
    line = summarize_trace(H100_CUDA_SASS).source_lines[0]
    assert line.source.endswith("triton/language/standard.py:170") and line.stall == 205


def test_ncu_rep_needs_export(tmp_path):
    rep = tmp_path / "r.ncu-rep"
    rep.write_bytes(b"\x00binary")
    with pytest.raises(InputError, match="binary Nsight Compute report") as exc:
        load_trace(rep)
    assert "--page source" in exc.value.hint
