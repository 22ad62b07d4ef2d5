"""Per-kind bands from validation residuals, and their leave-one-family-out test (issue 31 items 1 and 3).

    python benchmarks/predict_bands.py REPORT.json [REPORT.json ...] [--device h200] [--write] [--json OUT]

REPORT is what ``benchmarks/predict_validate.py DATA ... --device D --json REPORT`` wrote: one row per variant with
its measured and predicted time, its band's kind (``band_kind``, tools.predict.kinds) and the factors its
assumptions widened the band by (``band_widened``), and the pairs. The residual of a variant is measured /
predicted time; the residuals of a kind are those of its predictions that assume nothing that widens the band
(``band_widened`` [1, 1], not undetermined): the band of a prediction with assumptions is its kind's band times its
own factors, so its residual must not widen the kind's band a second time.

Per kind: the 10th and 90th percentiles of the residuals (``validated``) when there are at least
``--min-residuals`` (8) of them, else ``too_few`` (the prediction then gets the device-wide band, the quantiles of
every kind's residuals together, printed ``assumed`` with why). Pairs whose two sides are of one kind: the same
quantiles of measured / predicted speedup (``same_kind``); other pairs compose their sides' time bands
(tools.predict.kinds.pair_band).

Printed, each figure labelled: **in-sample** (bands from all the data, judged on the same data) and
**leave-one-family-out** (for each family f, the bands from every other family's residuals, judged on f: coverage of
the printed band, median and 90th percentile |error|, abstentions; pairs: band coverage, Spearman rho, direction).
A variant's family is its row's ``family`` field when it has one (a generated corpus), else read from its name:
``gen.<family>.<problem>.<design>``, ``pair.<pair>.<role>`` (the pair), ``task.<id>.<role>`` (the task).

``--one-band`` judges the method the kinds replace the same way (one device-wide band for every prediction, one
band for every pair), for comparison.

``--write`` replaces the ``kind_bands`` block of tools/isa/machines/<device>.yaml (the in-sample bands, with their
source: data sets, counts, date, predictor commit); an unvalidated device (AMD) is refused. Exit 2 with
``error:``/``hint:`` on unreadable input.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for p in (str(REPO), str(HERE)):
    if p not in sys.path:
        sys.path.insert(0, p)

from predict_validate import percentile, spearman  # noqa: E402

from tools.errors import InputError, KernelpilotError  # noqa: E402
from tools.models.predict import Band  # noqa: E402

MIN_RESIDUALS = 8
QUANTILES = (10, 90)
MARKER = "# Per-kind bands (issue 31): written by benchmarks/predict_bands.py --write from the data named in source;"


# ---- rows -----------------------------------------------------------------------------------------------------


def family_of(row: dict) -> str:
    """The family a variant belongs to: its ``family`` field, else read from its name (gen.F.*, hold.F.*, pair.P.*,
    task.T.*)."""
    if row.get("family"):
        return str(row["family"])
    parts = row["variant"].split(".")
    return parts[1] if len(parts) >= 3 and parts[0] in ("gen", "hold", "pair", "task") else row["variant"]


def scored(report_rows: list[dict]) -> list[dict]:
    """The rows with a measured and a predicted time and a band kind, each with its family and residual."""
    out = []
    for r in report_rows:
        if r.get("predicted_us") and r.get("measured_us") and r.get("band_kind"):
            out.append(r | {"family": family_of(r), "residual": r["measured_us"] / r["predicted_us"]})
    return out


def calibrating(r: dict) -> bool:
    """Whether a row's residual belongs to its kind's: a band that its assumptions did not widen or open."""
    return r.get("band_status") in ("validated", "assumed") and list(r.get("band_widened") or []) == [1.0, 1.0]


def _entry(values: list[float], least: int, names: tuple[str, str]) -> dict:
    if len(values) < least:
        return {"status": "too_few", "n": len(values)}
    lo, hi = (round(percentile(values, q), 4) for q in QUANTILES)
    return {"status": "validated", "n": len(values), names[0]: lo, names[1]: hi,
            "median": round(statistics.median(values), 4)}  # fmt: skip


def bands_table(rows: list[dict], pairs: list[dict], least: int = MIN_RESIDUALS, kinds_of=None) -> dict:
    """The kind_bands data (without its source fields) from ``rows`` and ``pairs`` (with ``before_row``/``after_row``);
    ``kinds_of``: the kinds to tabulate (default every PredictionKind)."""
    from tools.predict.kinds import KINDS

    cal = [r for r in rows if calibrating(r)]
    KINDS = kinds_of or KINDS  # noqa: N806
    kinds = {k: _entry([r["residual"] for r in cal if r["band_kind"] == k], least, ("low", "high")) for k in KINDS}
    same = [
        p["measured_speedup"] / p["predicted_speedup"]
        for p in pairs
        if calibrating(p["before_row"]) and calibrating(p["after_row"])
        and p["before_row"]["band_kind"] == p["after_row"]["band_kind"]
    ]  # fmt: skip
    return {
        "min_residuals": least,
        "quantiles": list(QUANTILES),
        "device_wide": _entry([r["residual"] for r in cal], least, ("low", "high")),
        "kinds": kinds,
        "pairs": {"same_kind": _entry(same, least, ("speedup_low", "speedup_high"))},
    }


def row_band(r: dict, table: dict, device: Band) -> Band:
    """The band ``table`` gives a row: its kind's (``kinds.kind_band``) times its own assumptions' factors."""
    from tools.predict.kinds import kind_band

    if r.get("band_status") == "undetermined":
        return Band(status="undetermined", source="its assumptions", kind=r["band_kind"], widened=(None, None))
    if r["band_kind"] == "all":  # --one-band: the device-wide band for every prediction (kind None on both sides)
        e = table["kinds"]["all"]
        base = device.model_copy(update={"low": e["low"], "high": e["high"]}) if e["status"] == "validated" else device
    else:
        base = kind_band(device, table, r["band_kind"])
    w_lo, w_hi = r.get("band_widened") or [1.0, 1.0]
    widened = [list(r.get("band_widened") or [1.0, 1.0]) != [1.0, 1.0]]
    return base.model_copy(
        update={
            "low": base.low * w_lo if base.low is not None and w_lo is not None else None,
            "high": base.high * w_hi if base.high is not None and w_hi is not None else None,
            "widened": (w_lo, w_hi),
            "status": "assumed" if widened[0] or r.get("band_status") == "assumed" else base.status,
        }
    )


def inside(band: Band, ratio: float) -> bool | None:
    """Whether ``ratio`` lies in the band (an open end holds); None where the band abstains (undetermined)."""
    if band.status in ("undetermined", "unvalidated"):
        return None
    return (band.low is None or ratio >= band.low) and (band.high is None or ratio <= band.high)


def paired(report_pairs: list[dict], rows: list[dict]) -> list[dict]:
    """The pairs whose two sides are scored rows, each with ``before_row``/``after_row`` and the before's family."""
    by_name = {r["variant"]: r for r in rows}
    out = []
    for p in report_pairs:
        b, a = by_name.get(p["before"]), by_name.get(p["after"])
        if b and a and p.get("measured_speedup") and p.get("predicted_speedup"):
            out.append(p | {"before_row": b, "after_row": a, "family": b["family"]})
    return out


def _figures(rows: list[dict], bands: list[Band], pairs: list[dict], pair_bands: list) -> dict:
    errors = [abs(r["predicted_us"] - r["measured_us"]) / r["measured_us"] * 100 for r in rows]
    verdicts = [inside(b, r["residual"]) for r, b in zip(rows, bands, strict=True)]
    judged = [v for v in verdicts if v is not None]
    pin = [
        (lo is None or p["measured_speedup"] >= lo) and (hi is None or p["measured_speedup"] <= hi)
        for p, pb in zip(pairs, pair_bands, strict=True)
        if pb
        for lo, hi in [pb]
    ]
    widths = [b.high / b.low for b in bands if b.low and b.high]  # how sharp the bands are (x high / low)
    return {
        "variants": len(rows),
        "median_band_width": statistics.median(widths) if widths else None,
        "median_abs_error_pct": statistics.median(errors) if errors else None,
        "p90_abs_error_pct": percentile(errors, 90),
        "abstained": len(verdicts) - len(judged),
        "banded": len(judged),
        "inside": sum(judged),
        "coverage": sum(judged) / len(judged) if judged else None,
        "pairs": len(pairs),
        "pairs_banded": len(pin),
        "pairs_inside": sum(pin),
    }


def judge(rows: list[dict], pairs: list[dict], table_for, device: Band) -> dict:
    """Each family's figures with the bands ``table_for(family)`` gives, and all families pooled."""
    from tools.predict.kinds import pair_band

    per, pooled = {}, ([], [], [], [])
    for fam in sorted({r["family"] for r in rows}):
        table = table_for(fam)
        fr = [r for r in rows if r["family"] == fam]
        fp = [p for p in pairs if p["family"] == fam]
        bands = [row_band(r, table, device) for r in fr]
        pbs = [
            pair_band(p["predicted_speedup"], row_band(p["before_row"], table, device),
                      row_band(p["after_row"], table, device), device, table)
            for p in fp
        ]  # fmt: skip
        per[fam] = _figures(fr, bands, fp, pbs)
        for acc, part in zip(pooled, (fr, bands, fp, pbs), strict=True):
            acc += part
    by_kind = {}
    for kind in sorted({r["band_kind"] for r in pooled[0]}):
        idx = [i for i, r in enumerate(pooled[0]) if r["band_kind"] == kind]
        by_kind[kind] = _figures([pooled[0][i] for i in idx], [pooled[1][i] for i in idx], [], [])
    return {"families": per, "overall": _figures(*pooled), "by_kind": by_kind}


def ranking(pairs: list[dict]) -> dict:
    """Spearman rho of predicted vs measured speedup and the faster side called right, over the non-noop pairs
    (the model is not refitted per family: the same in-sample and held out)."""
    ok = [p for p in pairs if p.get("kind") != "baseline->noop"]
    right = [(p["predicted_speedup"] > 1) == (p["measured_speedup"] > 1) for p in ok]
    return {
        "pairs": len(ok),
        "spearman": spearman([p["predicted_speedup"] for p in ok], [p["measured_speedup"] for p in ok]),
        "direction_right": sum(right),
    }


def calibrate(reports: list[dict], device_name: str, least: int = MIN_RESIDUALS, one_band: bool = False) -> dict:
    """In-sample table and figures, leave-one-family-out figures, the ranking: everything the script prints.
    ``one_band``: every prediction of one kind ("all": the device-wide band, and every pair's band from all pairs),
    the method the kinds replace, for comparison."""
    from tools.isa.machines import machine
    from tools.predict import band_of

    device = band_of(machine(device_name))
    rows = scored([v for rep in reports for v in rep["variants"]])
    if one_band:
        rows = [r | {"band_kind": "all"} for r in rows]
    kinds_of = ("all",) if one_band else None
    pairs = paired([p for rep in reports for p in rep["pairs"]], rows)
    table = bands_table(rows, pairs, least, kinds_of)
    held = {}

    def held_out(fam: str) -> dict:
        if fam not in held:
            keep = [r for r in rows if r["family"] != fam]
            held[fam] = bands_table(keep, [p for p in pairs if p["family"] != fam], least, kinds_of)
        return held[fam]

    return {
        "device": device_name,
        "table": table,
        "in_sample": judge(rows, pairs, lambda fam: table, device),
        "leave_one_family_out": judge(rows, pairs, held_out, device),
        "ranking": ranking(pairs),
        "families": len({r["family"] for r in rows}),
        "calibrating_residuals": sum(1 for r in rows if calibrating(r)),
    }


# ---- output ---------------------------------------------------------------------------------------------------


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f} %"


def _line(label: str, f: dict) -> str:
    cov = f"{f['inside']}/{f['banded']} inside ({_pct(f['coverage'] * 100 if f['coverage'] is not None else None)})"
    pairs = f"; pairs {f['pairs_inside']}/{f['pairs_banded']} inside the speedup band" if f["pairs"] else ""
    return (
        f"{label}: {f['variants']} variants, median |error| {_pct(f['median_abs_error_pct'])}, p90 "
        f"{_pct(f['p90_abs_error_pct'])}, {cov}, {f['abstained']} abstained{pairs}"
        + (f"; median band width x{f['median_band_width']:.3f}" if f["median_band_width"] else "")
    )


def render(c: dict) -> str:
    t = c["table"]
    lines = [f"device {c['device']}: {c['families']} families, {c['calibrating_residuals']} calibrating residuals "
             f"(min {t['min_residuals']} per kind, quantiles {t['quantiles']})", "", "in-sample bands (all data):"]  # fmt: skip
    for kind, e in [
        ("device_wide", t["device_wide"]),
        *t["kinds"].items(),
        ("pairs same_kind", t["pairs"]["same_kind"]),
    ]:
        ends = [e.get(k) for k in ("low", "high", "speedup_low", "speedup_high") if e.get(k) is not None]
        lines.append(f"  {kind:<16} {e['status']:<9} n={e['n']:<4}" + (f" x{ends[0]:g}-x{ends[1]:g}" if ends else ""))
    for label, key in (("in-sample", "in_sample"), ("leave-one-family-out", "leave_one_family_out")):
        j = c[key]
        lines += ["", f"{label}, per family:"]
        lines += [_line(f"  {fam}", f) for fam, f in j["families"].items()]
        lines += [f"{label}, per kind:"] + [_line(f"  {k}", f) for k, f in j["by_kind"].items()]
        lines.append(_line(f"{label}, overall", j["overall"]))
    r = c["ranking"]
    rho = "-" if r["spearman"] is None else f"{r['spearman']:.3f}"
    lines.append(f"ranking (not refitted, same in-sample and held out): Spearman rho {rho} over {r['pairs']} pairs "
                 f"without noops, faster side right in {r['direction_right']}")  # fmt: skip
    return "\n".join(lines)


# ---- the machine file -----------------------------------------------------------------------------------------


def kind_bands_block(c: dict, reports: list[dict]) -> dict:
    """The ``kind_bands`` data written into the machine file: the in-sample table and where it comes from."""
    sets = [f"{Path(h.get('source') or '?').name} ({h['variants']} variants, {h.get('date')})"
            for rep in reports for h in rep.get("datasets") or []]  # fmt: skip
    commits = sorted({(rep.get("predictor") or {}).get("predictor") or "?" for rep in reports})
    dirty = any((rep.get("predictor") or {}).get("dirty") for rep in reports)
    o = c["in_sample"]["overall"]
    lofo = c["leave_one_family_out"]["overall"]
    source = (
        f"benchmarks/predict_bands.py over benchmarks/predict_validate.py --device {c['device']} on {', '.join(sets)}: "
        f"{o['variants']} variants of {c['families']} families, {c['calibrating_residuals']} calibrating residuals; "
        f"in-sample coverage {o['inside']}/{o['banded']}, leave-one-family-out {lofo['inside']}/{lofo['banded']} "
        "(benchmarks/RESULTS.md, 'Bands by kind')"
    )
    return {
        "source": source,
        "device": c["device"],
        "datasets": sets,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "predictor": ",".join(commits) + (" + uncommitted changes" if dirty else ""),
        **c["table"],
    }


def write_block(path: Path, block: dict) -> None:
    """Replace the file's ``kind_bands`` block (from MARKER to the end) with ``block``, in flow style per entry."""
    text = path.read_text()
    if MARKER in text:
        text = text[: text.index(MARKER)]
    elif "\nkind_bands:" in text:
        raise InputError(f"{path} has a kind_bands block not written by this script", hint="remove it by hand first")
    flow = json.dumps
    lines = [MARKER, "# the band of a prediction is its kind's (tools/predict/kinds.py); do not edit by hand.",
             "kind_bands:"]  # fmt: skip
    for key in ("source", "device", "datasets", "date", "predictor", "min_residuals", "quantiles", "device_wide"):
        lines.append(f"  {key}: {flow(block[key])}")
    for key in ("kinds", "pairs"):
        lines.append(f"  {key}:")
        lines += [f"    {k}: {flow(v)}" for k, v in block[key].items()]
    path.write_text(text.rstrip("\n") + "\n" + "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", help="predict_validate.py --json outputs (one device)")
    ap.add_argument("--device", default="h200", help="the device the reports were predicted for")
    ap.add_argument("--min-residuals", type=int, default=MIN_RESIDUALS, help="fewer: the kind falls back")
    ap.add_argument("--write", action="store_true", help="write the in-sample bands into the device's machine file")
    ap.add_argument("--one-band", action="store_true",
                    help="for comparison: one device-wide band for every prediction (no kinds); not written")  # fmt: skip
    ap.add_argument("--json", metavar="OUT", help="also write everything printed as JSON")
    args = ap.parse_args(argv)
    try:
        reports = []
        for name in args.reports:
            try:
                reports.append(json.loads(Path(name).read_text()))
            except (OSError, json.JSONDecodeError) as exc:
                raise InputError(
                    f"{name}: unreadable ({exc})", hint="give predict_validate.py --json OUT files"
                ) from exc
            if reports[-1].get("model_device") != args.device:
                raise InputError(f"{name} was predicted for {reports[-1].get('model_device')}, not {args.device}",
                                 hint="give --device the reports' model_device")  # fmt: skip
        c = calibrate(reports, args.device, args.min_residuals, args.one_band)
        if args.write and args.one_band:
            raise InputError("--one-band is a comparison, not a calibration", hint="drop --write or --one-band")
        if args.write:
            from tools.isa.machines import MACHINE_DIR, machine
            from tools.predict import band_of

            if band_of(machine(args.device)).status != "validated":
                raise InputError(f"{args.device} has no validated band: its predictions stay unvalidated",
                                 hint="validate the device first (benchmarks/predict_validate.py)")  # fmt: skip
            path = MACHINE_DIR / f"{machine(args.device).name}.yaml"
            write_block(path, kind_bands_block(c, reports))
            machine(args.device)  # read back: the loader validates what was written
    except KernelpilotError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    print(render(c))
    if args.json:
        Path(args.json).write_text(json.dumps(c, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
