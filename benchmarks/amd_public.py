"""Published AMD kernel timings against ``kernelpilot predict`` (issue 31 item 4; CPU only, no AMD GPU here).

``benchmarks/amd_public/published.yaml`` holds timings other people published for MI300X / gfx950 kernels, each with
its source (repository, path, commit or URL, and where in it) and unit. For each ``compare`` entry this script
predicts our own kernel for the same operation at the published shape (``benchmarks/amd_public/<kernel_file>``, its
host function called as ``call``) with the real CLI, ``kernelpilot predict FILE --arch A --device D --call C --json``,
and prints predicted against published. Nothing predicted is stored: every run recompiles and predicts.

The published kernels are not ours (liger, apex, FlyDSL's prebuilt kernels): the same operation and shape, a
different implementation, compiler and timer. This is therefore no validation of the AMD bands, which stay
``unvalidated``; see benchmarks/RESULTS.md, "Public AMD timings against predict".

Usage: ``python benchmarks/amd_public.py [--only ID ...] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "benchmarks" / "amd_public"
DATA = DATA_DIR / "published.yaml"
TO_US = {"us": 1.0, "ms": 1000.0, "s": 1e6}
TIME_UNITS = set(TO_US)
OTHER_UNITS = {"TB/s", "GB/s", "TFLOPS"}
COMPARE_KEYS = ("id", "op", "implementation", "shape", "dtype", "device", "arch", "published", "kernel_file", "call",
                "source", "measurement")  # fmt: skip


class DataError(ValueError):
    """published.yaml is malformed: the message names the entry and the field."""


def _check_source(where: str, src) -> None:
    if not isinstance(src, dict) or not (src.get("url") or (src.get("repo") and src.get("path"))):
        raise DataError(f"{where}: source needs a url, or a repo and a path")
    if src.get("repo") and not src.get("commit"):
        raise DataError(f"{where}: source.repo {src['repo']} needs the commit it was read at")
    if not src.get("where"):
        raise DataError(f"{where}: source.where must say where in the source the figure is")


def _check_published(where: str, pub, units: set[str]) -> None:
    if not isinstance(pub, dict) or not isinstance(pub.get("value"), (int, float)) or pub["value"] <= 0:
        raise DataError(f"{where}: published.value must be a positive number")
    if pub.get("unit") not in units:
        raise DataError(f"{where}: published.unit {pub.get('unit')!r} is not one of {sorted(units)}")


def load(path: Path = DATA) -> dict:
    """Read and check the data file: every entry has a source and a unit; compare entries name an existing kernel
    file and a time unit."""
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise DataError(f"{path}: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("compare"), list):
        raise DataError(f"{path}: needs a 'compare' list")
    seen: set[str] = set()
    for i, e in enumerate(data["compare"]):
        where = f"{path.name}: compare[{i}] {e.get('id') if isinstance(e, dict) else ''}"
        if not isinstance(e, dict):
            raise DataError(f"{where}: not a mapping")
        missing = [k for k in COMPARE_KEYS if k not in e]
        if missing:
            raise DataError(f"{where}: missing {', '.join(missing)}")
        if e["id"] in seen:
            raise DataError(f"{where}: duplicate id")
        seen.add(e["id"])
        _check_source(where, e["source"])
        _check_published(where, e["published"], TIME_UNITS)
        if not (DATA_DIR / e["kernel_file"]).is_file():
            raise DataError(f"{where}: kernel_file {e['kernel_file']} is not in {DATA_DIR}")
    for i, e in enumerate(data.get("not_compared") or []):
        where = f"{path.name}: not_compared[{i}] {e.get('id') if isinstance(e, dict) else ''}"
        if not isinstance(e, dict) or not e.get("id") or not e.get("why") or not e.get("what"):
            raise DataError(f"{where}: needs id, what and why")
        _check_source(where, e.get("source"))
        if "published" in e:
            _check_published(where, e["published"], TIME_UNITS | OTHER_UNITS)
    return data


def published_us(entry: dict) -> float:
    return entry["published"]["value"] * TO_US[entry["published"]["unit"]]


def predict_entry(entry: dict, timeout: int = 600) -> dict:
    """Run the CLI on the entry's kernel and call; return the JSON report (predicted_us, bound, band, ...)."""
    cmd = [sys.executable, "-m", "tools.cli", "predict", str(DATA_DIR / entry["kernel_file"]), "--arch",
           entry["arch"], "--device", entry["device"], "--call", entry["call"], "--json"]  # fmt: skip
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{entry['id']}: predict exit {r.returncode}: {(r.stderr or r.stdout).strip()[-400:]}")
    return json.loads(r.stdout)


def rows(data: dict, only: list[str] | None = None) -> list[dict]:
    cache: dict[tuple, dict] = {}
    out = []
    for e in data["compare"]:
        if only and e["id"] not in only:
            continue
        key = (e["kernel_file"], e["arch"], e["device"], e["call"])
        if key not in cache:
            cache[key] = predict_entry(e)
        rep = cache[key]
        pub = published_us(e)
        pred = rep.get("predicted_us")
        unique = sum((ln.get("figures") or {}).get("unique_tensor_bytes") or 0 for ln in rep.get("launches") or [])
        out.append({"id": e["id"], "op": e["op"], "implementation": e["implementation"],
                    "shape": "x".join(map(str, e["shape"])), "dtype": e["dtype"], "device": e["device"],
                    "published_us": round(pub, 2), "predicted_us": None if pred is None else round(pred, 2),
                    "bound": rep.get("bound"), "unique_bytes": unique or None,
                    "published_tbs": round(unique / pub / 1e6, 2) if unique else None, "band_status": (rep.get("band") or {}).get("status"),
                    "error_pct": None if pred is None else round(100 * (pred - pub) / pub, 1),
                    "source": e["source"].get("url") or f"{e['source']['repo']}:{e['source']['path']}"})  # fmt: skip
    return out


def summary(table: list[dict]) -> dict:
    errs = [r["error_pct"] for r in table if r["error_pct"] is not None]
    if not errs:
        return {"n": 0}
    return {"n": len(errs), "median_abs_error_pct": round(statistics.median(abs(x) for x in errs), 1),
            "min_error_pct": min(errs), "max_error_pct": max(errs),
            "under_predicted": sum(x < 0 for x in errs)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="entry ids to predict (default: all)")
    ap.add_argument("--json", action="store_true", help="print the rows and summary as JSON")
    args = ap.parse_args(argv)
    try:
        data = load()
    except DataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    unknown = sorted(set(args.only or []) - {e["id"] for e in data["compare"]})
    if unknown:
        print(f"error: unknown id(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    table = rows(data, args.only)
    s = summary(table)
    if args.json:
        print(json.dumps({"rows": table, "summary": s}, indent=2))
        return 0
    print(
        "| id | op | shape | dtype | device | published us | published TB/s (unique bytes) | predicted us | error | bound "
        "| band |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in table:
        err = "-" if r["error_pct"] is None else f"{r['error_pct']:+.1f} %"
        print(f"| {r['id']} | {r['op']} | {r['shape']} | {r['dtype']} | {r['device']} | {r['published_us']} | "
              f"{r['published_tbs']} | "
              f"{r['predicted_us']} | {err} | {r['bound']} | {r['band_status']} |")  # fmt: skip
    print(f"\n{s}")
    for e in data.get("not_compared") or []:
        print(f"not compared: {e['id']}: {e['why']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
