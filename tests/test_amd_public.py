"""benchmarks/amd_public.py and its data: published AMD timings, each with a source and a unit,
set against ``kernelpilot predict`` of our own kernel at the published shape. The prediction test runs the real CLI
on the entry with the smallest published time; AMD bands must stay ``unvalidated``."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import yaml

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "amd_public.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("amd_public", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def data(bench):
    return bench.load()


def test_every_entry_has_a_source_and_a_unit(bench, data):
    assert len(data["compare"]) >= 9
    for e in data["compare"]:
        src = e["source"]
        assert src.get("url") or (src.get("repo") and src.get("path")), e["id"]
        if src.get("repo"):
            assert re.fullmatch(r"[0-9a-f]{40}", src["commit"]), e["id"]
        assert src["where"], e["id"]
        assert e["published"]["unit"] in bench.TIME_UNITS and e["published"]["value"] > 0, e["id"]
        assert e["arch"] in ("gfx942", "gfx950") and e["device"] in ("mi300x", "mi355x"), e["id"]
        fn = e["call"].split("(", 1)[0]
        assert f"def {fn}(" in (bench.DATA_DIR / e["kernel_file"]).read_text(), e["id"]
    for e in data["not_compared"]:
        assert e["why"] and e["what"] and e["source"], e["id"]
    assert "pa-decode-flydsl-prefetch-playbook" in {e["id"] for e in data["not_compared"]}


def test_published_units_convert_to_microseconds(bench, data):
    by_id = {e["id"]: e for e in data["compare"]}
    assert bench.published_us(by_id["rmsnorm-liger-bf16"]) == pytest.approx(59.8)  # 0.0598 ms
    assert bench.published_us(by_id["softmax-bwd-flydsl-2048x65536"]) == pytest.approx(261.8)


@pytest.mark.parametrize(
    ("drop", "message"),
    [("unit", "published.unit None is not one of"), ("source", "missing source"), ("commit", "needs the commit")],
)
def test_malformed_data_is_a_clear_error(bench, data, tmp_path, drop, message):
    entry = yaml.safe_load(yaml.safe_dump(data["compare"][0]))
    if drop == "unit":
        del entry["published"]["unit"]
    elif drop == "source":
        del entry["source"]
    else:
        del entry["source"]["commit"]
    bad = tmp_path / "published.yaml"
    bad.write_text(yaml.safe_dump({"compare": [entry]}))
    with pytest.raises(bench.DataError, match=re.escape(message)) as err:
        bench.load(bad)
    assert entry["id"] in str(err.value)


def test_unknown_id_exits_2(bench, capsys):
    assert bench.main(["--only", "no-such-kernel"]) == 2
    assert "unknown id(s): no-such-kernel" in capsys.readouterr().err


def test_smallest_entry_predicts_and_stays_unvalidated(bench, data):
    smallest = min(data["compare"], key=bench.published_us)
    (row,) = bench.rows(data, only=[smallest["id"]])
    assert row["predicted_us"] > 0 and row["bound"]
    assert row["band_status"] == "unvalidated"
    pub = bench.published_us(smallest)
    assert row["error_pct"] == pytest.approx(100 * (row["predicted_us"] - pub) / pub, abs=0.1)
    assert row["unique_bytes"] > 0
