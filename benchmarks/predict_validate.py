"""The speed model against the GPU: every recorded variant's predicted time vs its measured time (issue 22).

    python benchmarks/predict_validate.py DATA_DIR_OR_TGZ [--json OUT] [--device h100]

DATA is what ``benchmarks/predict_collect.py`` wrote on the GPU machine (layout: benchmarks/predict_data/FORMAT.md):
the folder holding ``manifest.json``, a folder above it, or the packed ``.tgz`` (unpacked to a temporary folder).
Each variant is predicted from its recorded artifacts only (the SASS, TTIR and launches of the kernels the GPU's own
Triton compiled and ran), through ``tools.predict`` (``read_variant`` → ``predict_kernels`` → ``total_of``).

Printed: one row per variant (measured_us, predicted_us, error %, bound, trip evidence, or why no prediction), then
the median and 90th percentile of |error| over the predicted variants, and Spearman's ρ between the predicted and
the measured speedups over every pair of the manifest whose two sides were predicted (baseline→reference,
baseline→noop, before→after). Exit 0 after a run (whatever the figures); exit 2 with ``error:``/``hint:`` when the
data cannot be read or the predictor is not in this checkout.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
import tarfile
import tempfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tools.errors import InputError, KernelpilotError, ToolchainError  # noqa: E402

WORST = 10


# ---- statistics (our own: ties averaged, linear-interpolated percentiles) -------------------------------------------


def average_ranks(values: list[float]) -> list[float]:
    """1-based ranks; tied values share the mean of the ranks they span ([10, 20, 20, 30] → [1, 2.5, 2.5, 4])."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mean_rank = (i + j) / 2 + 1
        for k in range(i, j + 1):
            ranks[order[k]] = mean_rank
        i = j + 1
    return ranks


def pearson(x: list[float], y: list[float]) -> float | None:
    """Pearson's r; None with fewer than two points or when either side is constant (r is undefined)."""
    if len(x) != len(y):
        raise ValueError("pearson: x and y differ in length")
    if len(x) < 2:
        return None
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def spearman(x: list[float], y: list[float]) -> float | None:
    """Spearman's ρ: Pearson's r of the average ranks (the tie-corrected form)."""
    return pearson(average_ranks(x), average_ranks(y))


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0..100), linear between the closest ranks (numpy's default); None when empty."""
    if not values:
        return None
    s = sorted(values)
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


# ---- data ------------------------------------------------------------------------------------------------------


@contextmanager
def open_data(path: str | Path):
    """The folder holding manifest.json: ``path`` itself, its one subfolder that holds it, or a .tgz unpacked to a
    temporary folder (removed on exit)."""
    path = Path(path)
    if path.is_file() and path.name.endswith((".tgz", ".tar.gz")):
        with tempfile.TemporaryDirectory(prefix="predict_data.") as tmp:
            try:
                with tarfile.open(path, "r:gz") as tar:
                    tar.extractall(tmp, filter="data")
            except (tarfile.TarError, OSError, EOFError) as exc:
                raise InputError(
                    f"{path}: cannot unpack ({exc})", hint="give predict_collect.py's predict_data.tgz, or its folder"
                ) from exc
            yield _manifest_dir(Path(tmp), path)
        return
    if not path.exists():
        raise InputError(f"{path} does not exist", hint="give the predict_data folder or predict_data.tgz")
    yield _manifest_dir(path, path)


def _manifest_dir(root: Path, given: Path) -> Path:
    if (root / "manifest.json").is_file():
        return root
    found = sorted(p.parent for p in root.glob("*/manifest.json"))
    if len(found) == 1:
        return found[0]
    raise InputError(
        f"{given}: no manifest.json" + (f" (several below it: {', '.join(p.name for p in found)})" if found else ""),
        hint="give the folder predict_collect.py wrote (benchmarks/predict_data/FORMAT.md), or its .tgz",
    )


def read_manifest(data: Path) -> dict:
    try:
        manifest = json.loads((data / "manifest.json").read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{data / 'manifest.json'}: unreadable ({exc})", hint="re-unpack predict_data.tgz") from exc
    if not isinstance(manifest, dict) or "variants" not in manifest or "pairs" not in manifest:
        raise InputError(
            f"{data / 'manifest.json'} has no 'variants'/'pairs'", hint="see benchmarks/predict_data/FORMAT.md"
        )
    return manifest


def predictor_missing() -> str | None:
    """Why tools.predict cannot be used from this checkout, or None when it can."""
    for module in ("tools.predict", "tools.predict.artifacts"):
        try:
            if importlib.util.find_spec(module) is None:
                return f"{module} is not in this checkout ({REPO})"
        except ModuleNotFoundError:
            return f"{module} is not in this checkout ({REPO})"
    import tools.predict
    import tools.predict.artifacts

    for module, names in (
        (tools.predict, ("predict_kernels", "total_of")),
        (tools.predict.artifacts, ("read_variant",)),
    ):
        lacking = [n for n in names if not hasattr(module, n)]
        if lacking:
            return f"{module.__name__} lacks {', '.join(lacking)}"
    return None


def predictor_commit() -> dict:
    """Which predictor produced the figures: the checkout's HEAD, the last commit touching tools/predict or the
    machine files, and whether either has uncommitted changes (None fields where git cannot say)."""
    from tools.executors import run_process

    def git(*args: str) -> str | None:
        try:
            r = run_process(["git", "-C", str(REPO), *args], timeout=20)
        except KernelpilotError:
            return None
        return r.stdout.strip() if r.ok else None

    paths = ["tools/predict", "tools/isa/machines", "tools/isa/machines.py"]
    dirty = git("status", "--porcelain", "--", *paths)
    return {
        "head": git("rev-parse", "HEAD"),
        "predictor": git("log", "-1", "--format=%H", "--", *paths),
        "predictor_subject": git("log", "-1", "--format=%s", "--", *paths),
        "dirty": None if dirty is None else bool(dirty),
    }


# ---- prediction ------------------------------------------------------------------------------------------------


@dataclass
class Row:
    variant: str
    language: str | None
    measured_us: float | None
    predicted_us: float | None = None
    error_pct: float | None = None
    bound: str | None = None
    trips: str | None = None
    reason: str | None = None  # why there is no prediction (or no measurement)
    launches: list[dict] = field(default_factory=list)


@dataclass
class PairRow:
    before: str
    after: str
    kind: str
    measured_speedup: float | None
    predicted_speedup: float | None
    reason: str | None = None


def _trips_summary(sources: list[str]) -> str:
    """'loop-bounds×2 no-loop' — each launch's trip evidence, counted, in first-seen order."""
    counts = Counter(sources)
    return " ".join(s if n == 1 else f"{s}×{n}" for s, n in counts.items())


def predict_variant(folder: Path, device: str, arch: str) -> Row:
    """One variant's row: measured time from meta.json, predicted time from its recorded artifacts."""
    from tools.predict import predict_kernels, total_of
    from tools.predict.artifacts import read_variant

    meta = json.loads((folder / "meta.json").read_text())
    row = Row(variant=folder.name, language=meta.get("language"), measured_us=meta.get("measured_us"))
    try:
        kernels = read_variant(folder, arch)
        launches = predict_kernels(kernels, arch=kernels[0].arch, device=device)
    except KernelpilotError as exc:
        row.reason = exc.message
        return row
    except Exception as exc:  # a predictor crash on one variant is that variant's finding, not the run's end
        row.reason = f"predictor raised {type(exc).__name__}: {exc}"
        return row
    recorded = [launch for launch in meta.get("launches") or [] if launch.get("op", "kernel") == "kernel"]
    for i, p in enumerate(launches):
        profiled = recorded[i].get("profiled_us") if i < len(recorded) else None
        row.launches.append(
            {
                "kernel": p.name,
                "predicted_us": p.predicted_us,
                "profiled_us": profiled,
                "bound": p.bound,
                "trips": p.trips.source,
                "trips_detail": p.trips.detail,
                "undetermined": p.undetermined,
            }
        )
    row.trips = _trips_summary([p.trips.source for p in launches])
    total, bound = total_of(launches)
    if total is None:
        row.reason = "; ".join(f"{p.name}: {p.undetermined}" for p in launches if p.undetermined) or "no launch"
        return row
    row.predicted_us, row.bound = total, bound
    if row.measured_us:
        row.error_pct = (total - row.measured_us) / row.measured_us * 100
    else:
        row.reason = "no measured time in meta.json"
    return row


def pair_rows(pairs: list[dict], rows: dict[str, Row]) -> list[PairRow]:
    """Each manifest pair's measured and predicted speedup (before / after); the reason where either is missing."""
    out = []
    for p in pairs:
        b, a = rows.get(p["before"]), rows.get(p["after"])
        measured = predicted = None
        reason = None
        if b is None or a is None:
            reason = "variant not collected: " + ", ".join(n for n, r in ((p["before"], b), (p["after"], a)) if not r)
        else:
            if b.measured_us and a.measured_us:
                measured = b.measured_us / a.measured_us
            if b.predicted_us and a.predicted_us:
                predicted = b.predicted_us / a.predicted_us
            else:
                reason = "not predicted: " + ", ".join(r.variant for r in (b, a) if not r.predicted_us)
        out.append(PairRow(p["before"], p["after"], p.get("kind", "?"), measured, predicted, reason))
    return out


def summarize(rows: list[Row], pairs: list[PairRow]) -> dict:
    errors = [abs(r.error_pct) for r in rows if r.error_pct is not None]
    ok = [p for p in pairs if p.measured_speedup is not None and p.predicted_speedup is not None]
    changes = [p for p in ok if p.kind != "baseline->noop"]
    launch_errors = [
        abs(lp["predicted_us"] - lp["profiled_us"]) / lp["profiled_us"] * 100
        for r in rows
        for lp in r.launches
        if lp["predicted_us"] is not None and lp["profiled_us"]
    ]
    worst = sorted((r for r in rows if r.error_pct is not None), key=lambda r: -abs(r.error_pct))[:WORST]
    return {
        "variants": len(rows),
        "predicted": len(errors),
        "not_predicted": [{"variant": r.variant, "reason": r.reason} for r in rows if r.error_pct is None],
        "median_abs_error_pct": statistics.median(errors) if errors else None,
        "p90_abs_error_pct": percentile(errors, 90),
        "under_predicted": sum(1 for r in rows if r.error_pct is not None and r.error_pct < 0),
        "pairs": len(pairs),
        "pairs_predicted": len(ok),
        "spearman_speedup": spearman([p.predicted_speedup for p in ok], [p.measured_speedup for p in ok]),
        "pairs_without_noop": len(changes),
        "spearman_speedup_without_noop": spearman(
            [p.predicted_speedup for p in changes], [p.measured_speedup for p in changes]
        ),
        "launches_profiled": len(launch_errors),
        "median_abs_launch_error_pct": statistics.median(launch_errors) if launch_errors else None,
        "worst": [{"variant": r.variant, "error_pct": r.error_pct, "bound": r.bound} for r in worst],
        "by_bound": {
            bound: {"variants": len(errs), "median_error_pct": statistics.median(errs)}
            for bound, errs in sorted(_errors_by_bound(rows).items())
        },
    }


def _errors_by_bound(rows: list[Row]) -> dict[str, list[float]]:
    """Signed errors grouped by the predicted bound (which part of the model each error belongs to)."""
    out: dict[str, list[float]] = {}
    for r in rows:
        if r.error_pct is not None:
            out.setdefault(r.bound or "?", []).append(r.error_pct)
    return out


def validate(data: Path, device: str) -> dict:
    """Predict every variant of the unpacked data folder ``data``; the rows, pairs and summary (JSON-ready)."""
    from tools.isa.machines import machine

    m = machine(device)
    manifest = read_manifest(data)
    rows: dict[str, Row] = {}
    for name in manifest["variants"]:
        folder = data / name
        if not (folder / "meta.json").is_file():
            rows[name] = Row(variant=name, language=None, measured_us=None, reason="no meta.json in its folder")
            continue
        rows[name] = predict_variant(folder, m.name, m.arch)
    pairs = pair_rows(manifest["pairs"], rows)
    return {
        "data": {k: manifest.get(k) for k in ("device", "triton", "torch", "cuda", "date", "timer", "calls")},
        "model_device": m.name,
        "predictor": predictor_commit(),
        "failed_on_gpu": manifest.get("failed") or [],
        "variants": [asdict(r) for r in rows.values()],
        "pairs": [asdict(p) for p in pairs],
        "summary": summarize(list(rows.values()), pairs),
    }


# ---- output ----------------------------------------------------------------------------------------------------


def _fmt(v: float | None, spec: str) -> str:
    """``v`` formatted, or a dash padded to the spec's width."""
    width = int("".join(c for c in spec.split(".")[0] if c.isdigit()) or 0)
    return "-".rjust(width) if v is None else format(v, spec)


def _pair_name(before: str, after: str) -> str:
    """'task.X baseline->reference' when both sides share the group, else 'before -> after'."""
    b, a = before.rsplit(".", 1), after.rsplit(".", 1)
    if len(b) == len(a) == 2 and b[0] == a[0]:
        return f"{b[0]} {b[1]}->{a[1]}"
    return f"{before} -> {after}"


def render(report: dict) -> str:
    d, s, pc = report["data"], report["summary"], report["predictor"]
    lines = [
        f"data: {d.get('device')}, triton {d.get('triton')}, torch {d.get('torch')}, {d.get('date')}; "
        f"model device {report['model_device']}",
        f"predictor: {(pc.get('predictor') or '?')[:12]} ({pc.get('predictor_subject') or '?'})"
        + (" + uncommitted changes" if pc.get("dirty") else "")
        + f"; checkout HEAD {(pc.get('head') or '?')[:12]}",
        "",
        f"{'variant':<42} {'measured_us':>11} {'predicted_us':>12} {'error %':>8}  {'bound':<15} trips",
    ]
    for r in report["variants"]:
        lines.append(
            f"{r['variant']:<42} {_fmt(r['measured_us'], '11.1f')} {_fmt(r['predicted_us'], '12.1f')} "
            f"{_fmt(r['error_pct'], '+8.1f')}  {r['bound'] or '-':<15} {r['trips'] or '-'}"
            + (f"  [{r['reason']}]" if r["reason"] else "")
        )
    lines += ["", f"{'pair (speedup = before / after)':<60} {'measured':>8} {'predicted':>9}"]
    for p in report["pairs"]:
        lines.append(
            f"{_pair_name(p['before'], p['after']):<60} {_fmt(p['measured_speedup'], '8.3f')} "
            f"{_fmt(p['predicted_speedup'], '9.3f')}" + (f"  [{p['reason']}]" if p["reason"] else "")
        )
    lines += [
        "",
        f"variants predicted: {s['predicted']} of {s['variants']} ({s['under_predicted']} under the measured time)",
        f"median |error|: {_fmt(s['median_abs_error_pct'], '.1f')} %   "
        f"90th percentile |error|: {_fmt(s['p90_abs_error_pct'], '.1f')} %",
        f"Spearman rho, predicted vs measured speedup: {_fmt(s['spearman_speedup'], '.3f')} over "
        f"{s['pairs_predicted']} of {s['pairs']} pairs; without the noop pairs: "
        f"{_fmt(s['spearman_speedup_without_noop'], '.3f')} over {s['pairs_without_noop']}",
        f"per launch (vs the profiler's untimed, unflushed split): median |error| "
        f"{_fmt(s['median_abs_launch_error_pct'], '.1f')} % over {s['launches_profiled']} launches",
        "median signed error by bound: "
        + ", ".join(f"{b} {v['median_error_pct']:+.1f} % ({v['variants']})" for b, v in s["by_bound"].items()),
        "worst: " + ", ".join(f"{w['variant']} {w['error_pct']:+.0f} % ({w['bound']})" for w in s["worst"]),
    ]
    if s["not_predicted"]:
        lines.append(f"not predicted ({len(s['not_predicted'])}):")
        lines += [f"  {n['variant']}: {n['reason']}" for n in s["not_predicted"]]
    if report["failed_on_gpu"]:
        lines.append(f"failed on the GPU machine (not in the data): {len(report['failed_on_gpu'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", help="the predict_data folder (with manifest.json) or predict_data.tgz")
    ap.add_argument("--json", metavar="OUT", help="also write the rows, pairs and summary to this JSON file")
    ap.add_argument("--device", default="h100", help="the device model to predict for (tools/isa/machines/*.yaml)")
    args = ap.parse_args(argv)
    try:
        missing = predictor_missing()
        if missing:
            raise ToolchainError(
                f"no predictor to validate: {missing}",
                hint="run from a checkout that has tools/predict (git merge predict), with PYTHONPATH at its root",
            )
        with open_data(args.data) as data:
            report = validate(data, args.device)
    except KernelpilotError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    report["data"]["source"] = str(args.data)
    print(render(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
