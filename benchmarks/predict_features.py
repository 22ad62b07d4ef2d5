"""The speed model's own figures for every measured variant of the H200 data packs, one JSON row each (issue 31:
the inputs of a learned correction that stays bounded by the analytical terms). Each variant is re-predicted by this
checkout from the artifacts the GPU machine compiled (its Triton's SASS, as predict_validate.py does); the row keeps
the measured time, the prediction, its bound and band, and each modelled launch's LaunchFigures. Nothing is fitted
here; benchmarks/predict_learned.py reads the rows.

    python benchmarks/predict_features.py OUT.json PACK.tgz|DIR [PACK ...] [--workers 2]

A folder without manifest.json is read as ``predict_freeze.py --keep``'s: variants compiled on this CPU, not measured
(the rows of a corpus whose corrected predictions are to be frozen).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

import predict_validate as pv  # noqa: E402


def features(folder: str, device: str, arch: str) -> dict:
    """One variant's row: what predict_validate's row says, and every modelled launch's figures."""
    from tools.errors import KernelpilotError
    from tools.predict import sum_band, total_of

    folder = Path(folder)
    meta = json.loads((folder / "meta.json").read_text())
    row = {k: meta.get(k) for k in ("name", "family", "problem", "design", "measured_us", "correct", "corpus")}
    row["corpus"] = row["corpus"] or row["name"].split(".", 1)[0]
    try:
        launches = pv._predict_launches(folder, meta, device, arch)
    except KernelpilotError as exc:
        return row | {"reason": exc.message}
    except Exception as exc:  # a predictor crash on one variant is that variant's finding
        return row | {"reason": f"predictor raised {type(exc).__name__}: {exc}"}
    total, bound = total_of(launches)
    if total is None:
        return row | {"reason": "undetermined"}
    from tools.isa.machines import device_for

    band = sum_band(device_for(arch, device), launches)
    row |= {"predicted_us": total, "bound": bound, "band_status": band.status, "band_low": band.low,
            "band_high": band.high, "band_kind": getattr(band, "kind", None)}  # fmt: skip
    row["launches"] = [
        {
            "kernel": p.name,
            "predicted_us": p.predicted_us,
            "bound": p.bound,
            "trips": p.trips.source,
            "programs": p.programs,
            "block_threads": p.block_threads,
            "figures": p.figures.model_dump(),
        }  # fmt: skip
        for p in launches
        if not p.not_modelled
    ]
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="JSON file to write the rows to")
    ap.add_argument("packs", nargs="+", help="predict_collect.py data packs (.tgz) or their folders")
    ap.add_argument("--device", default="h200")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    from tools.isa.machines import machine

    m = machine(args.device)
    with contextlib.ExitStack() as stack:
        kept = [Path(p) for p in args.packs if Path(p).is_dir() and not (Path(p) / "manifest.json").is_file()]
        datas = [stack.enter_context(pv.open_data(p)) for p in args.packs if Path(p) not in kept]
        folders, _, headers, _ = pv.merged(datas) if datas else ({}, [], [], [])
        for k in kept:  # predict_freeze.py --keep: compiled here, nothing measured, no manifest
            folders |= {f.parent.name: f.parent for f in sorted(k.glob("*/meta.json"))}
            headers.append({"folder": str(k), "variants": len(list(k.glob("*/meta.json")))})
        names = [n for n, f in folders.items() if (f / "meta.json").is_file()]
        with ProcessPoolExecutor(args.workers) as pool:
            rows = list(pool.map(features, [str(folders[n]) for n in names], [m.name] * len(names),
                                 [m.arch] * len(names), chunksize=8))  # fmt: skip
    Path(args.out).write_text(json.dumps({"device": m.name, "datasets": headers, "rows": rows}))
    done = sum(1 for r in rows if r.get("predicted_us") is not None)
    print(f"{len(rows)} variants, {done} predicted -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
