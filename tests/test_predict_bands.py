"""benchmarks/predict_bands.py: per-kind bands from validation residuals, written into the machine file, and their
leave-one-family-out test.

The method on rows whose figures are worked out by hand (two families of residuals that disagree: in-sample every
one is inside, held out none is), the machine file block it writes (read back by the loader), and the whole script
on the committed H200 data through the real predictor."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tools.isa.machines import MACHINE_DIR, MACHINES_ENV, machine

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "benchmarks" / "predict_data"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


pb = _load("predict_bands")


def _row(name: str, measured: float, kind: str = "bandwidth", widened=(1.0, 1.0), status: str = "validated") -> dict:
    return {"variant": name, "measured_us": measured, "predicted_us": 10.0, "band_kind": kind,
            "band_status": status, "band_widened": list(widened)}  # fmt: skip


def _report(rows: list[dict], pairs: list[dict] | None = None) -> dict:
    return {"model_device": "h200", "variants": rows, "pairs": pairs or [], "datasets": [], "predictor": {}}


def test_families_come_from_the_row_or_the_variant_name():
    assert pb.family_of({"variant": "gen.softmax.rows4096.w4", "family": "softmax"}) == "softmax"
    assert pb.family_of({"variant": "gen.softmax.rows4096.w4"}) == "softmax"
    assert pb.family_of({"variant": "pair.gemm_tile.before"}) == "gemm_tile"
    assert pb.family_of({"variant": "task.softmax-fusion.noop"}) == "softmax-fusion"


def test_held_out_bands_come_only_from_the_other_families():
    # family a: 8 variants measured at 1.0x their prediction; family b: 8 at 2.0x. In-sample the bandwidth band
    # is the 10th-90th percentile of all 16 (x1.0-x2.0): every one inside. Held out, a's band comes from b's
    # residuals alone (x2.0-x2.0) and b's from a's (x1.0-x1.0): none inside
    rows = [_row(f"gen.a.p.d{i}", 10.0) for i in range(8)] + [_row(f"gen.b.p.d{i}", 20.0) for i in range(8)]
    c = pb.calibrate([_report(rows)], "h200")
    assert c["table"]["kinds"]["bandwidth"] == {"status": "validated", "n": 16, "low": 1.0, "high": 2.0, "median": 1.5}
    ins, lofo = c["in_sample"]["overall"], c["leave_one_family_out"]["overall"]
    assert (ins["inside"], ins["banded"]) == (16, 16)
    assert (lofo["inside"], lofo["banded"]) == (0, 16)
    assert c["leave_one_family_out"]["families"]["a"]["inside"] == 0 and c["families"] == 2


def test_a_widened_or_undetermined_row_is_not_a_residual_of_its_kind_and_abstains_when_undetermined():
    rows = [_row(f"gen.a.p.d{i}", 10.0 + i) for i in range(8)]
    rows.append(_row("gen.b.p.open", 900.0, widened=(1.0, None), status="assumed"))  # atomics: open above
    rows.append(_row("gen.b.p.guess", 900.0, widened=(None, None), status="undetermined"))
    c = pb.calibrate([_report(rows)], "h200")
    assert c["calibrating_residuals"] == 8 and c["table"]["kinds"]["bandwidth"]["n"] == 8
    b = c["in_sample"]["families"]["b"]
    # the open-above one holds its 90x miss inside; the undetermined one abstains
    assert (b["inside"], b["banded"], b["abstained"]) == (1, 1, 1)
    # a kind with fewer than 8 residuals: too few, and its rows get the device-wide band
    assert c["table"]["kinds"]["latency"] == {"status": "too_few", "n": 0}


def test_the_block_written_into_a_machine_file_replaces_the_last_one_and_reads_back(tmp_path, monkeypatch):
    monkeypatch.setenv(MACHINES_ENV, str(tmp_path))
    path = tmp_path / "h200.yaml"
    path.write_text((MACHINE_DIR / "h200.yaml").read_text())
    rows = [_row(f"gen.a.p.d{i}", 10.0 + i) for i in range(8)]
    c = pb.calibrate([_report(rows)], "h200")
    block = pb.kind_bands_block(c, [_report(rows)])
    pb.write_block(path, block)
    pb.write_block(path, block)  # again: replaced, not appended
    assert path.read_text().count("kind_bands:") == 1
    kb = machine("h200").kind_bands
    assert kb["kinds"]["bandwidth"] == {"status": "validated", "n": 8, "low": 1.07, "high": 1.63, "median": 1.35}
    assert kb["source"].startswith("benchmarks/predict_bands.py over benchmarks/predict_validate.py --device h200")


def test_an_unreadable_report_is_an_error_not_a_traceback(tmp_path, capsys):
    bad = tmp_path / "r.json"
    bad.write_text("{")
    assert pb.main([str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {bad}: unreadable")


@pytest.mark.slow
def test_the_committed_h200_data_give_labelled_in_sample_and_held_out_figures(tmp_path, capsys):
    pv = _load("predict_validate")
    out = tmp_path / "h200.json"
    sets = ["h200-2026-11-26-tasks.tgz", "h200-2026-11-26-pairs.tgz", "h200-2026-12-01-stages-loadedlen.tgz"]
    assert pv.main([str(DATA / s) for s in sets] + ["--device", "h200", "--json", str(out)]) == 0
    capsys.readouterr()
    assert pb.main([str(out), "--device", "h200", "--json", str(tmp_path / "bands.json")]) == 0
    text = capsys.readouterr().out
    for label in ("in-sample, per family:", "leave-one-family-out, per family:", "in-sample, overall: 121 variants",
                  "leave-one-family-out, overall: 121 variants"):  # fmt: skip
        assert label in text
    c = json.loads((tmp_path / "bands.json").read_text())
    # every variant of the data is of one of the kinds, and the file's table was computed on the same data sets
    assert c["families"] == 47 and set(c["table"]["kinds"]) == set(machine("h200").kind_bands["kinds"])
    assert [d.split(" ")[0] for d in machine("h200").kind_bands["datasets"]] == sets
    lofo = c["leave_one_family_out"]["overall"]
    assert lofo["banded"] + lofo["abstained"] == 121
