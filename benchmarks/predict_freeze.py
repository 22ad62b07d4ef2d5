"""Freeze the speed model's predictions of a held-out generated corpus (``hold.*``, the second, ``fresh.*``, the
third, or ``skew.*``, the fourth: skewed histograms; issue 31) before any GPU runs it:
every variant compiled on this CPU for sm_90 by the Triton installed here, its launches recorded as the GPU
collector records them (``predict_collect.triton_launch_record`` + ``save_launch_artifacts``: the same meta.json and
Triton cache files, benchmarks/predict_data/FORMAT.md), predicted by ``predict_validate.predict_variant`` (the path
that later scores the GPU's data), and the predictions written to one JSON file to commit before the device call:

    python benchmarks/predict_freeze.py                          # every hold. variant; ~2-3 s each on one core
    python benchmarks/predict_freeze.py --corpus fresh --workers 2   # every fresh. variant -> ...-fresh-frozen.json
    python benchmarks/predict_freeze.py --only hold.softmax. --only hold.gemm. --out /tmp/f.json

What differs from the GPU's own artifacts: the compiler is this machine's Triton (3.9; the H200 runs 3.6), so the
SASS predicted from is this Triton's; a launch's registers come from its cubin (the GPU: the profiler); the torch ops
a variant's call holds (the zero fill before an atomic kernel) are not launched here, which changes no total (the
predictor leaves PyTorch ops out of it, ``tools.predict.total_of``, on the GPU's data too). Values a kernel loads as
a loop bound are the variant's own: the hold corpus's ragged lengths are fixed numbers (fam_paged_decode
``spread_lens``), not a random stream, and so are the fresh corpus's expert sizes (fam_moe_gemm ``expert_counts``). A launch whose shared memory passes the H200's 227 KiB per block would not
launch there; it is still predicted and named in ``over_shared``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "benchmarks"
FAMILIES = BENCH / "predict_families"
for _p in (str(REPO), str(BENCH), str(FAMILIES)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

ARCH = "sm_90"
SHARED_LIMIT = 232448  # bytes of shared memory one block may take on an H100/H200 (227 KiB)
FORMAT = 1


def corpus_variants(only: list[str] | None = None, corpus: str = "hold"):
    """The ``<corpus>.`` variants predict_collect enumerates (its names, order and specs), ``only`` by substring."""
    import predict_collect as pc

    variants = pc.gen_variants(corpus=corpus)
    return [v for v in variants if not only or any(s in v.name for s in only)]


def _problems_name(corpus: str) -> str:
    """The family modules' attribute naming ``corpus``'s problems (registry.CORPORA)."""
    import registry

    return registry.CORPORA[corpus][0]


@contextlib.contextmanager
def _cache(path: Path):
    """Triton's cache at ``path`` while a variant compiles; Triton's cache knobs and their environment variables
    restored after (``knobs.cache.scope()``: a knob read and set back would stay pinned, so a caller in the same
    process, a test, keeps its own cache)."""
    import triton

    path.mkdir(parents=True, exist_ok=True)
    with triton.knobs.cache.scope():
        os.environ["TRITON_CACHE_DIR"] = str(path)
        triton.knobs.cache.dir = str(path)
        yield


def record_variant(v, folder: Path) -> dict:
    """Compile every Triton launch of variant ``v`` for sm_90 into ``folder`` (its own Triton cache beside it) and
    write its meta.json as the collector would, with no measurement; the meta dict."""
    import predict_collect as pc
    import registry
    import triton

    from tools.frontends._triton_jit import compile_example

    folder.mkdir(parents=True, exist_ok=True)
    mod_name = "kpf_" + v.name.replace(".", "_").replace("-", "_")
    try:
        with _cache(folder.parent / f"{folder.name}.cache"):
            built = registry.build(v.source, v.spec["problem"], v.spec["design"], "cpu", name=mod_name,
                                   corpus=v.spec.get("corpus", "gen"))  # fmt: skip
            launches, skipped = [], []
            for i, s in enumerate(built.launches):
                if callable(s):
                    skipped.append(f"launch {i}: {getattr(s, '__qualname__', repr(s))} (a torch op: not launched here)")
                    continue
                compiled, _ = compile_example(s, ARCH)
                launches.append(pc.triton_launch_record(s["kernel"], s["args"], s["kwargs"], s["grid"], compiled))
            pc.save_launch_artifacts(launches, folder)
    finally:
        sys.modules.pop(mod_name, None)
    meta = {
        "format": FORMAT,
        "name": v.name,
        "kind": v.kind,
        "group": v.group,
        "role": "design",
        "variant_role": v.role,
        "language": "triton",
        "source": str(v.source.relative_to(REPO)),
        "shape": built.shape,
        "correct": None,
        "measured_us": None,
        "launches": launches,
        "not_captured": skipped,
        "device": f"none: compiled on the CPU for {ARCH} (benchmarks/predict_freeze.py)",
        "triton": triton.__version__,
        **v.spec,
    }
    pc.write_json(folder / "meta.json", meta)
    return meta


def freeze_one(v, work: Path, device: str) -> dict:
    """One variant's frozen prediction: compiled, recorded, predicted; a failure is the row's ``error``."""
    import predict_validate as pv

    t0 = time.perf_counter()
    folder = work / v.name
    out = {"variant": v.name, **{k: v.spec[k] for k in ("family", "problem", "design")}}
    try:
        meta = record_variant(v, folder)
        row = pv.predict_variant(folder, device, ARCH)
    except Exception as exc:  # one variant that cannot compile is that variant's finding, not the run's end
        out["error"] = f"{type(exc).__name__}: {exc}"[:500]
        out["seconds"] = round(time.perf_counter() - t0, 2)
        return out
    r = asdict(row)
    if r.get("reason") == "no measured time in meta.json":  # nothing is measured yet: that is the point
        r["reason"] = None
    out.update(
        {
            "shape": meta["shape"],
            "predicted_us": r["predicted_us"],
            "bound": r["bound"],
            "band": {"status": r["band_status"], "low": r["band_low"], "high": r["band_high"]},
            "band_kind": r["band_kind"],
            "band_widened": r["band_widened"],
            "rests_on": r["rests_on"],
            "evidence": r["evidence"],
            "trips": r["trips"],
            "launches": r["launches"],
            "not_modelled": r["not_modelled"],
            "not_launched": meta["not_captured"],
            "reason": r["reason"],
            "shared": [launch["shared"] for launch in meta["launches"]],
            "over_shared": any(launch["shared"] > SHARED_LIMIT for launch in meta["launches"]),
        }
    )
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def _worker(args) -> dict:
    v, work, device = args
    return freeze_one(v, Path(work), device)


def main(argv: list[str] | None = None) -> int:
    import registry

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--corpus",
        choices=[c for c in registry.CORPORA if c != "gen"],
        default="hold",
        help="the held-out corpus (default hold)",
    )
    ap.add_argument("--only", action="append", default=[], help="freeze only its variants whose name holds this")
    ap.add_argument("--device", default="h200", help="the machine file predicted for (default h200)")
    ap.add_argument("--out", type=Path, default=None,
                    help="the JSON written (default benchmarks/predict_data/h200-<date>-<corpus>-frozen.json)")  # fmt: skip
    ap.add_argument("--keep", type=Path, default=None, help="keep the compiled variant folders here")
    ap.add_argument("--workers", type=int, default=1, help="compiling processes (the shared CPU: keep it small)")
    args = ap.parse_args(argv)
    import predict_validate as pv
    import triton

    variants = corpus_variants(args.only, args.corpus)
    if not variants:
        print(f"no {args.corpus}. variant matches {args.only}", file=sys.stderr)
        return 2
    if args.workers < 1:
        print("--workers must be at least 1", file=sys.stderr)
        return 2
    out = args.out or BENCH / "predict_data" / f"{args.device}-{time.strftime('%Y-%m-%d')}-{args.corpus}-frozen.json"
    work = args.keep or Path(tempfile.mkdtemp(prefix="kp_freeze_"))
    t0 = time.perf_counter()
    jobs = [(v, str(work), args.device) for v in variants]
    rows = []
    if args.workers == 1:
        for job in jobs:
            rows.append(_worker(job))
            print(_line(rows[-1]), flush=True)
    else:
        import multiprocessing

        with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            for row in pool.map(_worker, jobs):
                rows.append(row)
                print(_line(row), flush=True)
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    seconds = round(time.perf_counter() - t0, 1)
    data = {
        "format": FORMAT,
        "what": f"frozen predictions of the {args.corpus}. corpus (benchmarks/predict_families "
        f"{_problems_name(args.corpus)}), made before any of it ran on a GPU",
        "corpus": args.corpus,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "device": args.device,
        "arch": ARCH,
        "compiled_with": {"triton": triton.__version__, "where": "this CPU (cross-compiled for sm_90)"},
        "predictor": pv.predictor_commit(),
        "command": f"python benchmarks/predict_freeze.py --corpus {args.corpus}"
        + "".join(f" --only {s}" for s in args.only),
        "seconds": seconds,
        "variants": len(rows),
        "predicted": sum(1 for r in rows if r.get("predicted_us")),
        "errors": [r["variant"] for r in rows if r.get("error")],
        "rows": rows,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, default=str) + "\n")
    print(f"{data['predicted']} of {len(rows)} predicted, {len(data['errors'])} failed, in {seconds} s -> {out}")
    return 0 if not data["errors"] else 1


def _line(r: dict) -> str:
    if r.get("error"):
        return f"{r['variant']}: ERROR {r['error'][:200]}"
    if not r.get("predicted_us"):
        return f"{r['variant']}: not predicted ({r.get('reason')})"
    b = r["band"]
    return (
        f"{r['variant']}: {r['predicted_us']:.1f} us, {r['bound']}, band {b['status']} "
        f"{b['low']}-{b['high']} ({r['band_kind']}) in {r['seconds']} s"
    )


if __name__ == "__main__":
    sys.exit(main())
