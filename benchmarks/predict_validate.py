"""The speed model against the GPU: every recorded variant's predicted time vs its measured time (issue 22).

    python benchmarks/predict_validate.py DATA_DIR_OR_TGZ [DATA ...] [--json OUT] [--device h100]

DATA is what ``benchmarks/predict_collect.py`` wrote on the GPU machine (layout: benchmarks/predict_data/FORMAT.md):
the folder holding ``manifest.json``, a folder above it, or the packed ``.tgz`` (unpacked to a temporary folder).
Several data sets are read in order: a later one's variants replace the earlier ones' of the same name (a partial
re-collection), its pairs are added (the same before/after pair replaced). Each variant is predicted from its
recorded artifacts only (the SASS, TTIR and launches of the kernels the GPU's own Triton or nvcc compiled and ran),
through ``tools.predict`` (``read_variant`` → ``predict_launch`` → ``total_of``). A PyTorch op the call launches
(a fill before the user's kernel) has no ISA in the artifacts: it is left out of the total and named.

CUDA tasks' launches carry no argument values (a C launcher), so their loop bounds cannot be evaluated: their hot
loop's trips are a stated assumption, the one that makes the kernel's global loads and stores move the task's own
``performance.bytes`` (task.yaml, on its first performance shape), marked as such in the row.

Printed: one row per variant (measured_us, predicted_us, error %, bound, trip evidence, or why no prediction), then
the median and 90th percentile of |error| over the predicted variants, and Spearman's ρ between the predicted and
the measured speedups over every pair of the manifest whose two sides were predicted (baseline→reference,
baseline→noop, before→after). For the generated corpus (``gen.*`` variants): per family and overall, per
kernel (median, p90 |error|, band coverage, >2x misses) and per pair of designs (Spearman's rho, the faster design
called right, predicted ties), leaving the variants the GPU found incorrect out, then the same leaving one family
out (``leave_one_family_out``). ``--json`` rows carry each prediction's band (``band_status``, ``band_low``,
``band_high``), its kind (``band_kind``) and the factors its assumptions widened it by (``band_widened``): what
``benchmarks/predict_bands.py`` calibrates the per-kind bands on. Exit 0 after a run (whatever the figures); exit 2
with ``error:``/``hint:`` when the
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
from contextlib import ExitStack, contextmanager
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
    """Why tools.predict cannot be used from this checkout, or None when it can. The checkout is the script's own
    (an editable install elsewhere must not stand in for a missing predict package here)."""
    if not (REPO / "tools" / "predict" / "__init__.py").is_file():
        return f"tools.predict is not in this checkout ({REPO})"
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
    not_modelled: list[str] = field(default_factory=list)  # launches left out of the total, and why
    launches: list[dict] = field(default_factory=list)
    # the band printed with the prediction (tools.predict.sum_band): its status and its ends (None: open / none)
    band_status: str | None = None
    band_low: float | None = None
    band_high: float | None = None
    # the generated corpus (benchmarks/predict_families): its family, problem and design; correct: the GPU's check
    family: str | None = None
    problem: str | None = None
    design: str | None = None
    correct: bool | None = None
    # what the prediction rests on: each modelled launch's trip evidence, and the band's assumptions (rests_on)
    evidence: list[str] = field(default_factory=list)
    rests_on: list[str] = field(default_factory=list)
    # the band's kind and the factors its assumptions widened it by (benchmarks/predict_bands.py calibrates on them)
    band_kind: str | None = None
    band_widened: list[float | None] | None = None


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


_BYTES_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
}


def task_bytes(task: str, root: Path = REPO, key: str = "bytes") -> tuple[float, str] | None:
    """(bytes, how) a task's call moves by its own task.yaml (``performance.bytes`` on ``performance.shapes[0]``'s
    params: names, numbers, + - * / // and parentheses only); None when the task states none. ``key="flops"``: the
    FLOP it states the same way."""
    import ast

    import yaml

    path = root / "evals" / "tasks" / task / "task.yaml"
    if not path.is_file():
        return None
    perf = (yaml.safe_load(path.read_text()) or {}).get("performance") or {}
    expr, shapes = perf.get(key), perf.get("shapes") or []
    if not expr or not shapes:
        return None
    params = shapes[0].get("params") or {}

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.Name) and node.id in params:
            return params[node.id]
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//"}.get(type(node.op))
            if op:
                return _BYTES_OPS[op](ev(node.left), ev(node.right))
        raise ValueError(f"unsupported term in {expr!r}")

    try:
        value = float(ev(ast.parse(str(expr), mode="eval")))
    except (SyntaxError, ValueError):
        return None
    return value, f"task.yaml performance.{key} = {expr} on {shapes[0].get('name')} {params}"


def stated_trips(kernel, device: str, stated: tuple[float, str]) -> float | None:
    """The hot-loop trips at which one launch's global loads and stores request ``stated`` bytes: the model's
    requested bytes are linear in the trips (once + trips x per-iteration), so two evaluations give the line."""
    from tools.predict import predict_launch

    one, two = (predict_launch(kernel, device=device, trips=t) for t in (1.0, 2.0))
    if one.predicted_us is None or not one.loops:
        return None
    r1, r2 = one.figures.bytes_requested or 0.0, two.figures.bytes_requested or 0.0
    if r2 <= r1:
        return None
    return max(1.0, 1.0 + (stated[0] - r1) / (r2 - r1))


def flop_trips(kernel, device: str, stated: tuple[float, str]) -> float | None:
    """The trips (each loop's, as ``--trips`` states them) at which one launch's SASS performs the ``stated`` FLOP
    (every warp of the grid: once + trips x its loops' FLOP); None when its loops do no floating-point arithmetic.
    FLOP do not change when a kernel re-reads its operands (a tiled GEMM reads each tile many times), so they fix a
    GEMM's trips where its stated bytes, which count each operand once, cannot."""
    from tools.predict import predict_launch
    from tools.predict.nvidia import flops_split

    one = predict_launch(kernel, device=device, trips=1.0)
    if one.predicted_us is None or not one.loops or not one.programs or not one.block_threads:
        return None
    once, per_iter = flops_split(Path(kernel.final_isa).read_text(errors="replace"), kernel.name)
    if per_iter <= 0:
        return None
    warps = one.programs * math.ceil(one.block_threads / 32)
    return max(1.0, (stated[0] / warps - once) / per_iter)


def _predict_launches(folder: Path, meta: dict, device: str, arch: str) -> list:
    """Every recorded launch predicted. A task's user kernel whose trips cannot come from evidence gets the trips its
    task's stated FLOP or bytes imply: every CUDA task's (its launches record no argument values), and a Triton
    task's whose loop bounds come from loaded data (its trips would be the predictor's stated assumption)."""
    from tools.predict import library_op, predict_kernels, predict_launch
    from tools.predict.artifacts import read_variant

    kernels = read_variant(folder, arch)
    plain = predict_kernels(kernels, arch=kernels[0].arch, device=device)
    cuda = meta.get("language") == "cuda"
    if meta.get("kind") != "task" or not (cuda or any(p.trips.source == "assumption" for p in plain)):
        return plain
    stated = task_bytes(meta.get("group") or "")
    flops = task_bytes(meta.get("group") or "", key="flops")
    out = []
    for k, first in zip(kernels, plain, strict=True):
        if library_op(k.name) or not (cuda or first.trips.source == "assumption"):
            out.append(first)
            continue
        trips = how = None
        if flops:
            trips = flop_trips(k, device, flops)
            how = f"the ISA's floating-point arithmetic performs the task's stated {flops[0]:.4g} FLOP ({flops[1]})"
        if trips is None and stated:
            trips = stated_trips(k, device, stated)
            how = f"the ISA's global loads and stores move the task's stated {stated[0]:.4g} B ({stated[1]})"
        # the task's stated bytes are its tensors' bytes, each once: what the launch's arguments would have told
        unique = int(stated[0]) if stated and cuda else None
        p = predict_launch(k, device=device, trips=trips, unique_bytes=unique) if trips is not None or cuda else first
        if trips is not None and p.predicted_us is not None:
            why = "CUDA launches record no argument values" if cuda else "its loop bounds come from loaded data"
            p.trips.detail = f"stated: {trips:.4g} iterations, the trips at which {how}; {why}"
        out.append(p)
    return out


def predict_variant(folder: Path, device: str, arch: str) -> Row:
    """One variant's row: measured time from meta.json, predicted time from its recorded artifacts."""
    from tools.predict import total_of

    meta = json.loads((folder / "meta.json").read_text())
    row = Row(variant=folder.name, language=meta.get("language"), measured_us=meta.get("measured_us"))
    row.family, row.problem, row.design = meta.get("family"), meta.get("problem"), meta.get("design")
    row.correct = meta.get("correct")
    try:
        launches = _predict_launches(folder, meta, device, arch)
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
                "not_modelled": p.not_modelled,
            }
        )
    row.trips = _trips_summary([p.trips.source for p in launches if not p.not_modelled])
    row.not_modelled = [
        f"{p.name}: {p.not_modelled}"
        + (f" (profiled {lp['profiled_us']:g} us)" if lp["profiled_us"] is not None else "")
        for p, lp in zip(launches, row.launches, strict=True)
        if p.not_modelled
    ]
    total, bound = total_of(launches)
    if total is None:
        why = [f"{p.name}: {p.undetermined}" for p in launches if p.undetermined and not p.not_modelled]
        row.reason = "; ".join(why) or "no launch"
        return row
    row.predicted_us, row.bound = total, bound
    from tools.isa.machines import device_for
    from tools.predict import sum_band

    band = sum_band(device_for(arch, device), launches)
    row.band_status, row.band_low, row.band_high = band.status, band.low, band.high
    row.rests_on = list(band.rests_on)
    row.evidence = sorted({f"trips:{p.trips.source}" for p in launches if not p.not_modelled})
    _band_kind_fields(row, band)
    if row.measured_us:
        row.error_pct = (total - row.measured_us) / row.measured_us * 100
    else:
        row.reason = "no measured time in meta.json"
    return row


def _band_kind_fields(row: Row, band) -> None:
    """The band's kind and widening factors into the row (what predict_bands.py reads; not the band's ends)."""
    row.band_kind = band.kind
    row.band_widened = list(band.widened)


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
        # the band the machine file states (tools/isa/machines/<device>.yaml band): 10th-90th percentiles of
        # measured / predicted time over the variants, and of measured / predicted speedup over the pairs
        "band_time_ratio": _band([r.measured_us / r.predicted_us for r in rows if r.error_pct is not None]),
        "band_speedup_ratio": _band([p.measured_speedup / p.predicted_speedup for p in ok]),
        "launches_profiled": len(launch_errors),
        "median_abs_launch_error_pct": statistics.median(launch_errors) if launch_errors else None,
        "worst": [{"variant": r.variant, "error_pct": r.error_pct, "bound": r.bound} for r in worst],
        "by_bound": {
            bound: {"variants": len(errs), "median_error_pct": statistics.median(errs)}
            for bound, errs in sorted(_errors_by_bound(rows).items())
        },
        "by_band_status": _by_band_status(rows),
    }


def _inside(r: Row) -> bool | None:
    """Whether the measured time lies in the band printed with the prediction (an open end holds; no band: None)."""
    if r.band_status in ("undetermined", "unvalidated") or r.band_status is None:
        return None
    ratio = r.measured_us / r.predicted_us
    return (r.band_low is None or ratio >= r.band_low) and (r.band_high is None or ratio <= r.band_high)


def _by_band_status(rows: list[Row]) -> dict:
    """Per printed band status (issue 31): variants, median and p90 |error|, and how many measured times lie inside
    the band printed with them (validated / assumed; undetermined and unvalidated print none)."""
    out: dict[str, dict] = {}
    for status in ("validated", "assumed", "undetermined", "unvalidated"):
        group = [r for r in rows if r.error_pct is not None and r.band_status == status]
        if not group:
            continue
        errs = [abs(r.error_pct) for r in group]
        inside = [_inside(r) for r in group]
        out[status] = {
            "variants": len(group),
            "median_abs_error_pct": statistics.median(errs),
            "p90_abs_error_pct": percentile(errs, 90),
            "inside_band": sum(1 for i in inside if i) if status in ("validated", "assumed") else None,
            "worst": sorted(((r.variant, round(r.error_pct, 1)) for r in group), key=lambda t: -abs(t[1]))[:3],
        }
    return out


def _band(ratios: list[float]) -> dict:
    """The 10th and 90th percentiles (and the median) of measured / predicted ratios, over how many."""
    return {
        "p10": percentile(ratios, 10),
        "p50": percentile(ratios, 50),
        "p90": percentile(ratios, 90),
        "n": len(ratios),
    }


def _errors_by_bound(rows: list[Row]) -> dict[str, list[float]]:
    """Signed errors grouped by the predicted bound (which part of the model each error belongs to)."""
    out: dict[str, list[float]] = {}
    for r in rows:
        if r.error_pct is not None:
            out.setdefault(r.bound or "?", []).append(r.error_pct)
    return out


_DATA_KEYS = ("device", "triton", "torch", "cuda", "date", "timer", "calls")


def gen_family(name: str) -> str | None:
    """A generated corpus's family of a variant name ('gen.FAMILY.PROBLEM.DESIGN', or 'hold.' for the second
    corpus); None for any other variant."""
    parts = name.split(".")
    return parts[1] if len(parts) >= 3 and parts[0] in ("gen", "hold") else None


def kept(name: str, families: set[str] | None) -> bool:
    """Whether ``--family`` keeps a variant: every non-generated one, and the generated ones of the named families."""
    fam = gen_family(name)
    return families is None or fam is None or fam in families


def merged(datas: list[Path], families: set[str] | None = None) -> tuple[dict[str, Path], list[dict], list[dict], list]:
    """(variant -> folder, pairs, each data set's header, failures) over the unpacked data folders in order: a later
    set's variant replaces an earlier one of the same name, a later pair (same before/after) replaces the earlier.
    ``families``: keep only those families' generated variants and the pairs among them (the others are neither
    predicted nor read: held out by construction)."""
    folders: dict[str, Path] = {}
    pairs: dict[tuple[str, str], dict] = {}
    headers, failed = [], []
    for data in datas:
        manifest = read_manifest(data)
        headers.append({k: manifest.get(k) for k in _DATA_KEYS} | {"variants": len(manifest["variants"])})
        failed += [f for f in manifest.get("failed") or [] if kept(str(f.get("variant", "")), families)]
        for name in manifest["variants"]:
            if kept(name, families):
                folders[name] = data / name
        for p in manifest["pairs"]:
            if kept(p["before"], families) and kept(p["after"], families):
                pairs[(p["before"], p["after"])] = p
    return folders, list(pairs.values()), headers, failed


def validate(data: Path | list[Path], device: str, families: set[str] | None = None) -> dict:
    """Predict every variant of the unpacked data folder(s) ``data`` (merged in order, see ``merged``; ``families``
    keeps only those generated families); the rows, pairs and summary (JSON-ready)."""
    from tools.isa.machines import machine

    m = machine(device)
    folders, pair_list, headers, failed = merged(data if isinstance(data, list) else [data], families)
    rows: dict[str, Row] = {}
    for name, folder in folders.items():
        if not (folder / "meta.json").is_file():
            rows[name] = Row(variant=name, language=None, measured_us=None, reason="no meta.json in its folder")
            continue
        rows[name] = predict_variant(folder, m.name, m.arch)
    pairs = pair_rows(pair_list, rows)
    return {
        "data": dict(headers[0]),
        "datasets": headers,
        "model_device": m.name,
        "predictor": predictor_commit(),
        "failed_on_gpu": failed,
        "variants": [asdict(r) for r in rows.values()],
        "pairs": [asdict(p) for p in pairs],
        "summary": summarize([r for r in rows.values() if r.correct is not False], pairs),
        "gen": gen_summary(list(rows.values())),
    }


# ---- the generated corpus: per family, per pair of designs, leave one family out (issue 31 item 3) -------------


def _scored(rows: list[Row]) -> list[Row]:
    """Rows that count: predicted, measured, and not found wrong by the GPU's check."""
    return [r for r in rows if r.error_pct is not None and r.correct is not False]


DECIDED = 1.05  # a pair whose two designs' measured times differ by less than 5 % has no faster design to call


def _pair_figures(pairs: list[tuple[float, float]]) -> dict:
    """Spearman's rho over (predicted, measured) speedups; how often the faster design is called right, over every
    pair and over the decided ones (measured speedup beyond x``DECIDED`` either way); a predicted tie (|log
    speedup| < 1e-9) is no call, so never right."""

    def right(p: float, m: float) -> bool:
        return abs(math.log(p)) >= 1e-9 and (p > 1) == (m > 1)

    decided = [(p, m) for p, m in pairs if abs(math.log(m)) >= math.log(DECIDED)]
    n_right = sum(1 for p, m in pairs if right(p, m))
    d_right = sum(1 for p, m in decided if right(p, m))
    return {
        "pairs": len(pairs),
        "spearman": spearman([p for p, _ in pairs], [m for _, m in pairs]) if len(pairs) > 1 else None,
        "direction_right": n_right,
        "direction_share": n_right / len(pairs) if pairs else None,
        "predicted_ties": sum(1 for p, _ in pairs if abs(math.log(p)) < 1e-9),
        "decided": len(decided),
        "decided_right": d_right,
        "decided_share": d_right / len(decided) if decided else None,
    }


def _kernel_figures(rows: list[Row], predicted=None, band=None) -> dict:
    """median / p90 |error| and band coverage over ``rows``; ``predicted(row)`` and ``band(row) -> (low, high)``
    replace the row's own prediction and band (the leave-one-family-out calibration)."""
    predicted = predicted or (lambda r: r.predicted_us)
    errs = [abs(predicted(r) - r.measured_us) / r.measured_us * 100 for r in rows]
    inside = banded = uncovered_2x = 0
    for r in rows:
        lo_hi = band(r) if band else ((r.band_low, r.band_high) if _inside(r) is not None else None)
        ratio = r.measured_us / predicted(r)
        ok = lo_hi is not None and (lo_hi[0] is None or ratio >= lo_hi[0]) and (lo_hi[1] is None or ratio <= lo_hi[1])
        uncovered_2x += max(ratio, 1 / ratio) > 2 and not ok and r.band_status != "undetermined"
        if lo_hi is None:
            continue
        banded += 1
        inside += ok
    return {
        "variants": len(rows),
        "median_abs_error_pct": statistics.median(errs) if errs else None,
        "p90_abs_error_pct": percentile(errs, 90),
        "over_2x": sum(1 for r in rows if max(predicted(r) / r.measured_us, r.measured_us / predicted(r)) > 2),
        # off by more than 2x with a band that does not reach the measured time (no abstention, no widening)
        "over_2x_uncovered": uncovered_2x,
        "band_open": sum(1 for r in rows if r.band_status == "assumed" and (r.band_low is None or r.band_high is None)),
        "with_band": banded,
        "inside_band": inside,
        "band_coverage": inside / banded if banded else None,
    }


def design_pairs(rows: list[Row], predicted=None) -> list[tuple[float, float]]:
    """(predicted, measured) speedup of every two scored designs of one problem (the earlier design over the later)."""
    predicted = predicted or (lambda r: r.predicted_us)
    by_problem: dict[tuple, list[Row]] = {}
    for r in rows:
        by_problem.setdefault((r.family, r.problem), []).append(r)
    out = []
    for group in by_problem.values():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                out.append((predicted(a) / predicted(b), a.measured_us / b.measured_us))
    return out


def _problem_rhos(rows: list[Row]) -> list[float]:
    """Per problem with 3+ designs: Spearman's rho between the predicted and measured times of its designs."""
    by_problem: dict[tuple, list[Row]] = {}
    for r in rows:
        by_problem.setdefault((r.family, r.problem), []).append(r)
    rhos = [
        spearman([r.predicted_us for r in g], [r.measured_us for r in g]) for g in by_problem.values() if len(g) > 2
    ]
    return [x for x in rhos if x is not None]


def _evidence_key(r: Row) -> str:
    """The kind of prediction a band is calibrated per: its printed band status and its bound."""
    return f"{r.band_status}/{r.bound}"


def leave_one_family_out(rows: list[Row]) -> dict:
    """Each family scored with a calibration taken from the other families only: the band is the 10th-90th
    percentile of measured / predicted over the other families' rows of the same kind (``_evidence_key``; all of
    them when fewer than 8 share it), and the prediction is scaled by the median of that ratio over them (one
    factor per kind, bounded: no term of the model is refitted). Reported per held-out family and pooled."""
    families = sorted({r.family for r in rows})
    per_family, pooled_pred, pooled_band = {}, {}, {}
    for fam in families:
        held = [r for r in rows if r.family == fam]
        rest = [r for r in rows if r.family != fam]
        if not rest:
            continue
        ratios: dict[str, list[float]] = {}
        for r in rest:
            ratios.setdefault(_evidence_key(r), []).append(r.measured_us / r.predicted_us)
        every = [x for v in ratios.values() for x in v]
        for r in held:
            use = ratios.get(_evidence_key(r)) or []
            use = use if len(use) >= 8 else every
            pooled_pred[r.variant] = r.predicted_us * statistics.median(use)
            pooled_band[r.variant] = (
                percentile(use, 10) / statistics.median(use),
                percentile(use, 90) / statistics.median(use),
            )
        pred = lambda r: pooled_pred[r.variant]  # noqa: E731
        band = lambda r: pooled_band[r.variant]  # noqa: E731
        per_family[fam] = {
            **_kernel_figures(held, pred, band),
            **{f"pair_{k}": v for k, v in _pair_figures(design_pairs(held, pred)).items()},
        }
    held_rows = [r for r in rows if r.variant in pooled_pred]
    pred = lambda r: pooled_pred[r.variant]  # noqa: E731
    band = lambda r: pooled_band[r.variant]  # noqa: E731
    return {
        "how": leave_one_family_out.__doc__.split("\n\n")[0].replace("\n   ", "").strip(),
        "overall": {
            **_kernel_figures(held_rows, pred, band),
            **{f"pair_{k}": v for k, v in _pair_figures(design_pairs(held_rows, pred)).items()},
        },
        "families": per_family,
    }


def gen_summary(rows: list[Row]) -> dict | None:
    """The generated corpus's figures (None when the data holds none): per family and overall, per kernel (median,
    p90 |error|, band coverage) and per pair of designs (Spearman's rho, direction), the incorrect variants (left
    out), and the leave-one-family-out section."""
    gen = [r for r in rows if r.family]
    if not gen:
        return None
    scored = _scored(gen)
    families = {}
    for fam in sorted({r.family for r in gen}):
        fr = [r for r in scored if r.family == fam]
        families[fam] = {
            **_kernel_figures(fr),
            **{f"pair_{k}": v for k, v in _pair_figures(design_pairs(fr)).items()},
            "problem_rho_median": statistics.median(_problem_rhos(fr)) if _problem_rhos(fr) else None,
            "bounds": dict(Counter(r.bound for r in fr)),
        }
    rhos = _problem_rhos(scored)
    return {
        "variants": len(gen),
        "scored": len(scored),
        "incorrect": [r.variant for r in gen if r.correct is False],
        "not_predicted": [r.variant for r in gen if r.error_pct is None],
        "overall": {
            **_kernel_figures(scored),
            **{f"pair_{k}": v for k, v in _pair_figures(design_pairs(scored)).items()},
            "problem_rho_median": statistics.median(rhos) if rhos else None,
            "problems_with_rho": len(rhos),
        },
        "families": families,
        "leave_one_family_out": leave_one_family_out(scored),
    }


def render_gen(g: dict) -> list[str]:
    """The generated corpus's table: one line per family, the overall line, then leave-one-family-out."""

    def line(name: str, f: dict) -> str:
        cov = f["band_coverage"]
        return (
            f"{name:<14} {f['variants']:>4} {_fmt(f['median_abs_error_pct'], '7.1f')} {_fmt(f['p90_abs_error_pct'], '7.1f')} "
            f"{f['over_2x']:>3}/{f['over_2x_uncovered']:<3} {f['inside_band']:>4}/{f['with_band']:<4} "
            f"{_fmt(cov and cov * 100, '5.0f')} {f['band_open']:>4} {f['pair_pairs']:>6} {_fmt(f['pair_spearman'], '6.2f')} "
            f"{_fmt(f['pair_direction_share'] and f['pair_direction_share'] * 100, '5.0f')} "
            f"{f['pair_decided']:>5} {_fmt(f['pair_decided_share'] and f['pair_decided_share'] * 100, '5.0f')} "
            f"{f['pair_predicted_ties']:>5}"
        )

    head = (
        f"{'family':<14} {'n':>4} {'med|e|%':>7} {'p90|e|%':>7} {'>2x/unc':>7} {'in band':>9} {'cov%':>5} {'open':>4} "
        f"{'pairs':>6} {'rho':>6} {'right%':>5} {'decid':>5} {'rgt%':>5} {'ties':>5}"
    )
    o = g["overall"]
    lines = [
        "",
        f"generated corpus: {g['variants']} variants, {g['scored']} scored (predicted, measured, correct); "
        f"{len(g['incorrect'])} incorrect on the GPU (left out): {', '.join(g['incorrect'][:10]) or 'none'}; "
        f"{len(g['not_predicted'])} not predicted",
        head,
        *(line(fam, f) for fam, f in g["families"].items()),
        line("OVERALL", o),
        "columns: >2x/unc: off by more than 2x / of those, the printed band does not reach the measured time; in band: "
        "measured inside the printed band / predictions printed with a band (validated or assumed), open: assumed bands "
        "open on one side; right%: the faster design called right over all pairs; decid, rgt%: pairs whose designs differ "
        f"by {DECIDED}x or more when measured, and the share of them called right; ties: pairs predicted the same time",
        f"median per-problem Spearman rho of the designs' times: {_fmt(o['problem_rho_median'], '.2f')} over "
        f"{o['problems_with_rho']} problems",
        "",
        "leave one family out: " + g["leave_one_family_out"]["how"],
        head,
        *(line(fam, f) for fam, f in g["leave_one_family_out"]["families"].items()),
        line("OVERALL", g["leave_one_family_out"]["overall"]),
    ]
    return lines


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
        *(
            f"  data set {i}: {h.get('source')} ({h['variants']} variants, {h.get('date')})"
            for i, h in enumerate(report.get("datasets") or [])
        ),
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
            + "".join(f"  [not modelled: {n}]" for n in r.get("not_modelled") or [])
        )
    lines += ["", f"{'pair (speedup = before / after)':<60} {'measured':>8} {'predicted':>9}"]
    for p in report["pairs"]:
        if p["kind"] == "design->design":  # the generated corpus's pairs: summarised per family below
            continue
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
        f"band (10th-90th percentile, measured / predicted): time x{_fmt(s['band_time_ratio']['p10'], '.3f')}"
        f"-x{_fmt(s['band_time_ratio']['p90'], '.3f')} over {s['band_time_ratio']['n']} variants; speedup "
        f"x{_fmt(s['band_speedup_ratio']['p10'], '.3f')}-x{_fmt(s['band_speedup_ratio']['p90'], '.3f')} over "
        f"{s['band_speedup_ratio']['n']} pairs",
        "median signed error by bound: "
        + ", ".join(f"{b} {v['median_error_pct']:+.1f} % ({v['variants']})" for b, v in s["by_bound"].items()),
        "worst: " + ", ".join(f"{w['variant']} {w['error_pct']:+.0f} % ({w['bound']})" for w in s["worst"]),
        "by printed band status: "
        + "; ".join(
            f"{k} {v['variants']}: median {v['median_abs_error_pct']:.1f} %, p90 {_fmt(v['p90_abs_error_pct'], '.1f')} %"
            + (f", {v['inside_band']} inside the printed band" if v["inside_band"] is not None else "")
            + ", worst "
            + ", ".join(f"{n} {e:+.0f} %" for n, e in v["worst"])
            for k, v in s.get("by_band_status", {}).items()
        ),
    ]
    if s["not_predicted"]:
        lines.append(f"not predicted ({len(s['not_predicted'])}):")
        lines += [f"  {n['variant']}: {n['reason']}" for n in s["not_predicted"]]
    if report["failed_on_gpu"]:
        lines.append(f"failed on the GPU machine (not in the data): {len(report['failed_on_gpu'])}")
    if report.get("gen"):
        lines += render_gen(report["gen"])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "data",
        nargs="+",
        help="the predict_data folder (with manifest.json) or predict_data.tgz; several: later ones replace the "
        "earlier ones' variants of the same name",
    )
    ap.add_argument("--json", metavar="OUT", help="also write the rows, pairs and summary to this JSON file")
    ap.add_argument("--device", default="h100", help="the device model to predict for (tools/isa/machines/*.yaml)")
    ap.add_argument(
        "--family",
        action="append",
        metavar="NAME",
        help="keep only this generated family's variants and pairs (repeatable); the others are not predicted",
    )
    args = ap.parse_args(argv)
    families = set(args.family) if args.family else None
    try:
        missing = predictor_missing()
        if missing:
            raise ToolchainError(
                f"no predictor to validate: {missing}",
                hint="run from a checkout that has tools/predict (git merge predict), with PYTHONPATH at its root",
            )
        with ExitStack() as stack:
            datas = [stack.enter_context(open_data(d)) for d in args.data]
            report = validate(datas, args.device, families)
    except KernelpilotError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    report["data"]["source"] = " + ".join(str(d) for d in args.data)
    report["families_kept"] = sorted(families) if families else None
    for header, d in zip(report["datasets"], args.data, strict=True):
        header["source"] = str(d)
    print(render(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
