"""Device files (tools/isa/machines/*.yaml) are validated when read: an edited copy with a broken figure is an error
naming the file and the figure (exit 2), and $KERNELPILOT_MACHINES_DIR points predict at such a copy."""

from __future__ import annotations

import re

import pytest

from tools.cli import main
from tools.errors import InputError
from tools.isa.machines import MACHINE_DIR, MACHINES_ENV, machine, machine_names

H100 = (MACHINE_DIR / "h100.yaml").read_text()
COMPUTE_UNITS = "compute_units: {value: 132,"


def _figure(name: str, value: str):
    return lambda text: re.sub(rf"(  {name}: {{value: )[^,]+,", rf"\g<1>{value},", text, count=1)


# (what is edited, the edit of h100.yaml's text, what the error says after the file's path)
EDITS = [
    ("a syntax error", lambda t: t.replace("figures:\n", "figures: [\n", 1), "is not valid YAML at line"),
    ("a string figure", _figure("compute_units", '"many"'), "figures.compute_units.value: Input should be a valid number"),
    ("a zero figure", _figure("valu_cycles", "0"), "figures.valu_cycles.value: Input should be greater than 0"),
    ("a negative count", _figure("compute_units", "-132"), "figures.compute_units.value: Input should be greater than 0"),
    ("a fractional count", _figure("compute_units", "131.5"), "compute_units is 131.5: a count, so a whole number"),
    ("a missing source", lambda t: re.sub(r'(  compute_units: \{value: 132), source: "[^"]*"', r"\1", t),
     "figures.compute_units.source: Field required"),
    (".nan", _figure("hbm_peak_gbs", ".nan"), "figures.hbm_peak_gbs.value: Input should be a finite number"),
    ("1e400 (a string to YAML)", _figure("hbm_peak_gbs", "1e400"), "figures.hbm_peak_gbs.value: Input should be a valid number"),
    ("1.0e+400 (infinite)", _figure("hbm_peak_gbs", "1.0e+400"), "figures.hbm_peak_gbs.value: Input should be a finite number"),
    ("an empty file", lambda t: "", "is empty"),
    ("a table entry of zero", lambda t: t.replace("fp16: 4096", "fp16: 0", 1),
     "tensor_flops_per_cycle.value.fp16: Input should be greater than 0"),
    # the per-kind bands (benchmarks/predict_bands.py): a kind outside PredictionKind, a validated kind without ends
    ("an unknown kind", lambda t: t.replace("    bandwidth: {", "    bandwith: {", 1), "kind_bands.kinds.bandwith"),
    ("a validated kind without its ends", lambda t: re.sub(r'(    latency: \{"status": "validated", "n": \d+), "low": [\d.]+', r"\1", t),
     "latency is validated, so it needs low <= high"),
]  # fmt: skip


@pytest.fixture
def edited_h100(tmp_path, monkeypatch):
    """A copy of h100.yaml in a folder $KERNELPILOT_MACHINES_DIR names: the copy is the H100 predict uses."""
    monkeypatch.setenv(MACHINES_ENV, str(tmp_path))
    return tmp_path / "h100.yaml"


@pytest.mark.parametrize(("edit", "change", "expected"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edited_device_file_is_an_error_naming_the_file_and_figure(edited_h100, edit, change, expected):
    edited_h100.write_text(change(H100))
    assert edited_h100.read_text() != H100 or edit == "an empty file"
    with pytest.raises(InputError) as exc:
        machine("h100")
    assert exc.value.message.startswith(f"{edited_h100}") and expected in exc.value.message, exc.value.message
    assert str(MACHINE_DIR / "h100.yaml") in exc.value.hint  # the shipped file to compare with


def test_predict_with_a_negative_compute_unit_count_exits_2_before_predicting(edited_h100, recorded_variant, capsys):
    edited_h100.write_text(_figure("compute_units", "-132")(H100))
    code = main(["predict", str(recorded_variant)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"error: {edited_h100}: figures.compute_units.value: Input should be greater than 0"), err
    assert "\nhint: each figure is {value: <a positive number>" in err and "Traceback" not in err


def test_the_folder_in_the_environment_overrides_a_shipped_device_and_adds_new_ones(edited_h100):
    edited_h100.write_text(_figure("compute_units", "114")(H100))  # an H100 PCIe's 114 SMs
    (edited_h100.parent / "h100pcie.yaml").write_text(_figure("compute_units", "114")(H100))
    assert machine("h100").value("compute_units") == 114 and "h100pcie" in machine_names()
    edited_h100.write_text(H100)  # read again once the file changes
    assert machine("h100").value("compute_units") == 132


def test_every_shipped_device_file_is_valid():
    # each has the required figures with a source; the H100's compute units are its whitepaper's 132 SMs
    assert {"a100", "h100", "h200", "mi250x", "mi300x", "mi355x"} <= set(machine_names())
    assert all(machine(n).figures for n in machine_names()) and machine("h100").value("compute_units") == 132
