"""Score FROZEN predictions against the GPU's measurements taken after they were committed (issue 31: validation
held out by construction). The predictions are the frozen file's own (``benchmarks/predict_freeze.py`` wrote them from
this CPU's compiles before any run); nothing is re-predicted here. The measured times and the GPU's correctness check
come from the device's data pack(s) (``benchmarks/predict_device.sh``); the figures are predict_validate's generated-
corpus ones (per family and overall: median / p90 |error|, band coverage, > 2x misses, Spearman rho over design
pairs, the faster design called right):

    python benchmarks/predict_frozen_score.py benchmarks/predict_data/h200-2026-12-02-hold-frozen.json \\
        benchmarks/predict_data/h200-2026-12-02-hold.tgz [--json out.json]

Also printed: the same data re-predicted from the device's own artifacts (its Triton's SASS) by the current
checkout's predictor, with ``--repredict``, so the frozen and the current model can be told apart.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

import predict_validate as pv  # noqa: E402


def frozen_rows(frozen: dict, folders: dict[str, Path]) -> list[pv.Row]:
    """One Row per frozen variant: its frozen prediction and band, the measured time and check from the GPU's data
    (a variant the GPU did not record has no measured time and is left out of the figures)."""
    rows = []
    for f in frozen["rows"]:
        folder = folders.get(f["variant"])
        meta = json.loads((folder / "meta.json").read_text()) if folder and (folder / "meta.json").is_file() else {}
        band = f.get("band") or {}
        row = pv.Row(variant=f["variant"], language="triton", measured_us=meta.get("measured_us"))
        row.family, row.problem, row.design = f.get("family"), f.get("problem"), f.get("design")
        row.correct = meta.get("correct")
        row.predicted_us, row.bound, row.trips = f.get("predicted_us"), f.get("bound"), f.get("trips")
        row.band_status, row.band_low, row.band_high = band.get("status"), band.get("low"), band.get("high")
        row.band_kind, row.rests_on, row.evidence = f.get("band_kind"), f.get("rests_on") or [], f.get("evidence") or []
        if row.predicted_us is not None and row.measured_us:
            row.error_pct = (row.predicted_us - row.measured_us) / row.measured_us * 100
        else:
            row.reason = f.get("reason") or ("not measured on the GPU" if not row.measured_us else "not predicted")
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("frozen", type=Path, help="the frozen predictions (predict_freeze.py's JSON)")
    ap.add_argument("data", nargs="+", help="the GPU's data pack(s) or unpacked folder(s)")
    ap.add_argument("--repredict", action="store_true", help="also re-predict the GPU's artifacts with this checkout")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    frozen = json.loads(args.frozen.read_text())
    with contextlib.ExitStack() as stack:
        datas = [stack.enter_context(pv.open_data(d)) for d in args.data]
        folders, _, headers, failed = pv.merged(datas)
        rows = frozen_rows(frozen, folders)
        g = pv.gen_summary(rows)
        head = frozen.get("predictor") or {}
        print(f"frozen predictions: {args.frozen} ({len(frozen['rows'])} variants, {frozen.get('date')}, predictor "
              f"{str(head.get('head', '?'))[:12]}, compiled with {frozen.get('compiled_with')})")  # fmt: skip
        for h in headers:
            print(f"measured: {h}")
        print(f"incorrect on the GPU (left out): {g['incorrect']}; not measured: {failed}")
        print("\n".join(pv.render_gen(g)))
        out = {"frozen": str(args.frozen), "datasets": headers, "frozen_figures": g}
        if args.repredict:
            report = pv.validate(datas, frozen.get("device", "h200"))
            print("\nre-predicted from the GPU's own artifacts by this checkout:")
            print("\n".join(pv.render_gen(report["gen"])))
            out["repredicted_figures"] = report["gen"]
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
