"""ATT readers and instruction analyses on the three real ATT directories and the stats CSV.

Expected figures were computed in a scratch shell with json/csv (not kernelpilot): the row with max Stall in each
code.json, sum of Stall over instruction rows, wave files' timeline state sums, and for the CK back edge
``s_cbranch_scc1 65009`` at Vaddr 29300: simm16 65009 = -527 -> target 29300 + 4 - 4*527 = 27196 = LineNumber 1804
(``s_waitcnt lgkmcnt(0)``); 309 instruction rows lie in [27196, 29300].
"""

from __future__ import annotations

import json

import pytest

from tools.errors import InputError
from tools.kernel_trace import load_trace, summarize_trace
from tools.models.trace import Instruction
from tools.profilers.analysis import amd_stall_class, branch_target

from .trace_fixtures import ATT_STATS_CSV, extract_att


@pytest.fixture(scope="module")
def att_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("att")
    return {name: extract_att(name, root / name) for name in ("ck_bmm", "rmsnorm", "softmax")}


def test_ck_bmm_att_directory(att_dirs):
    trace = load_trace(att_dirs["ck_bmm"])
    assert trace.format == "att" and trace.generation == "ATT code.json 3.0.0 (thread trace)"
    assert len(trace.instructions) == 3256 and len(trace.kernels) == 1
    assert trace.kernels[0].startswith("_ZN7ck_tile6kentryILi1ENS_17BatchedGemmKernel")
    assert trace.waves == 4
    assert trace.wave_states == {"IDLE": 2508, "EXEC": 38092, "WAIT": 36744, "STALL": 61488}
    assert sum(i.stall for i in trace.instructions) == 97792
    assert any("no Source column values" in n for n in trace.notes)


def test_ck_bmm_hotspot_and_stall_classes(att_dirs):
    report = summarize_trace(att_dirs["ck_bmm"], top_k=3)
    hot = report.hotspots[0]
    assert (hot.index, hot.address, hot.isa, hot.stall, hot.hit) == (426, 17924, "s_barrier", 6788, 4)
    assert hot.stall_class == "barrier" and round(hot.stall_share, 4) == round(6788 / 97792, 4)
    assert report.hotspots[1].isa == "s_waitcnt vmcnt(6)" and report.hotspots[1].stall == 4856
    assert len(report.hotspots) == 6 and report.hotspots_total == 1750 and report.hotspots_truncated
    classes = {s.stall_class: s.stall for s in report.stall_breakdown}
    assert sum(classes.values()) == 97792
    assert report.stall_breakdown[0].stall_class == "mfma" and classes["mfma"] == 26432
    assert classes["barrier"] == 8480 and classes["vmem_wait (s_waitcnt vmcnt)"] == 16532


def test_ck_bmm_loop_from_back_edge(att_dirs):
    (loop,) = summarize_trace(att_dirs["ck_bmm"]).loops
    assert (loop.header_index, loop.branch_index, loop.header_address, loop.branch_address) == (
        1804,
        2112,
        27196,
        29300,
    )
    assert loop.instructions == 309
    assert loop.stall == 0  # this dispatch never entered the tail loop: its rows have Hit 0


def test_rmsnorm_att_source_lines(att_dirs):
    report = summarize_trace(att_dirs["rmsnorm"])
    hot = report.hotspots[0]
    assert (hot.index, hot.isa, hot.stall, hot.source) == (
        270,
        "s_waitcnt vmcnt(0)",
        25428,
        "/sgl-workspace/FlyDSL-lab/kernels/rmsnorm_kernel.py:115",
    )
    assert hot.stall_class == "vmem_wait (s_waitcnt vmcnt)"
    top_line = report.source_lines[0]
    assert top_line.source.endswith("rmsnorm_kernel.py:115") and top_line.dominant_stall_class.startswith("vmem_wait")
    assert sum(s.stall for s in report.stall_breakdown) == 239392
    assert report.loops == [] and report.wave_states == {}
    assert load_trace(att_dirs["rmsnorm"]).arch == "gfx9 family (vega)"


def test_softmax_att_hottest_load(att_dirs):
    report = summarize_trace(att_dirs["softmax"])
    hot = report.hotspots[0]
    assert (hot.index, hot.stall, hot.latency, hot.hit) == (10, 8472828, 8481192, 2056)
    assert hot.isa == "buffer_load_ushort v2, v1, s[12:15], 0 offen" and hot.stall_class == "vmem_load"
    assert report.source_lines[0].source.endswith("softmax_kernel.py:186")
    assert sum(s.stall for s in report.stall_breakdown) == 31799432


def test_att_stats_csv_matches_code_json():
    report = summarize_trace(ATT_STATS_CSV)
    assert report.format == "att-stats-csv"
    hot = report.hotspots[0]
    assert (hot.address, hot.isa, hot.stall) == (17924, "s_barrier", 6788)
    assert sum(s.stall for s in report.stall_breakdown) == 97792
    assert len(report.loops) == 1 and report.loops[0].header_address == 27196


def test_code_json_path_and_pc_sampling_header(tmp_path, att_dirs):
    # PC-sampling code.json: header is a JSON list and rows carry PC_Issued, PC_Stalled and a reason histogram.
    doc = json.loads((att_dirs["rmsnorm"] / "code.json").read_text())
    doc["header"] = [h.strip() for h in doc["header"].split(",")] + ["PC_Issued", "PC_Stalled", "Stall_Reasons"]
    doc["code"] = [row + [1, 2, [0, 3, 0, 0, 0, 0, 0, 0, 0, 1]] for row in doc["code"]]
    d = tmp_path / "ui_output_agent_1_dispatch_1"
    d.mkdir()
    (d / "code.json").write_text(json.dumps(doc))
    trace = load_trace(d / "code.json")
    assert trace.generation.endswith("(PC sampling)")
    assert trace.instructions[0].stall_reasons == {"reason_1": 3.0, "reason_9": 1.0}
    assert summarize_trace(d).hotspots[0].stall == 25428


def test_not_an_att_directory(tmp_path):
    (tmp_path / "se0_0.att").write_text("x")
    with pytest.raises(InputError, match="not an ATT output directory") as exc:
        load_trace(tmp_path)
    assert "se0_0.att" in exc.value.hint


def test_branch_targets_and_classes():
    back = Instruction(index=1, address=29300, isa="s_cbranch_scc1 65009")
    assert branch_target(back) == 27196
    assert branch_target(Instruction(index=1, address=6696, isa="s_cbranch_execz 7")) == 6728
    assert amd_stall_class("s_waitcnt vmcnt(0) lgkmcnt(0)") == "vmem_wait (s_waitcnt vmcnt)"
    assert amd_stall_class("s_waitcnt lgkmcnt(0)") == "lds_smem_wait (s_waitcnt lgkmcnt)"
    assert amd_stall_class("v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]") == "mfma"
    assert amd_stall_class("global_store_dwordx4 v[0:1], v[2:5], off") == "vmem_store"
    assert amd_stall_class("ds_read_b128 v[0:3], v4") == "lds"
