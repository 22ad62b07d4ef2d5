"""benchmarks/predict_frozen_score.py scores the frozen predictions of the second generated corpus against the H200's
measurements taken after they were committed: every frozen variant is joined to its measured time and the GPU's check
(read from the variant's own meta.json), nothing is re-predicted, and the variants the GPU found wrong are left out."""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

import predict_frozen_score as fs  # noqa: E402
import predict_validate as pv  # noqa: E402

FROZEN = REPO / "benchmarks" / "predict_data" / "h200-2026-12-02-hold-frozen.json"
MEASURED = REPO / "benchmarks" / "predict_data" / "h200-2026-12-02-hold.tgz"


def test_the_frozen_predictions_are_scored_against_the_gpus_measurements_unchanged():
    frozen = json.loads(FROZEN.read_text())
    with pv.open_data(MEASURED) as data:
        folders, _, _, _ = pv.merged([data])
        rows = fs.frozen_rows(frozen, folders)
        metas = {n: json.loads((f / "meta.json").read_text()) for n, f in folders.items()}
    assert [r.variant for r in rows] == [f["variant"] for f in frozen["rows"]]
    assert all(r.measured_us == metas[r.variant]["measured_us"] for r in rows)  # every frozen variant was measured
    # the frozen figure, not a re-prediction
    assert all(r.predicted_us == f["predicted_us"] for r, f in zip(rows, frozen["rows"], strict=True))
    wrong = sorted(n for n, m in metas.items() if m.get("correct") is False)
    g = pv.gen_summary(rows)
    assert sorted(g["incorrect"]) == wrong and g["scored"] == len(rows) - len(wrong)
    errors = [abs(r.predicted_us - r.measured_us) / r.measured_us * 100 for r in rows if r.variant not in wrong]
    assert g["overall"]["median_abs_error_pct"] == statistics.median(errors)
