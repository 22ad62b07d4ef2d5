"""The one GPU runner on a GPU host: ``run_pair`` (each side in its own process) on the bundled prefetch pairs, and the
same pairs through ``compare_callables`` in one interpreter, so the two ways of timing can be compared.

    python benchmarks/bench_gpu_runner.py [--rounds 100] [--pairs triton_dot cuda_rolling] [--json OUT.json]

Prints one line per pair and way: status, both checks, medians, speedup with its 95 % CI and verdict, wall seconds.
Without a GPU every line says ``no-gpu``: nothing is estimated. Results to record in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAIRS = {
    "triton_dot": ("triton_dot/baseline.py", "triton_dot/prefetched.py"),
    "cuda_rolling": ("cuda_rolling/baseline_run.py", "cuda_rolling/prefetched_run.py"),
}


def _in_process(before: Path, after: Path, rounds: int, warmup: int) -> dict:
    """The same pair timed in one interpreter (what measure_gpu did before the runner): for comparison only."""
    from tools.errors import ToolchainError
    from tools.profilers.timing import compare_callables, torch_gpu

    try:
        torch = torch_gpu()
    except ToolchainError as exc:
        return {"status": "no-gpu", "note": exc.message}
    import importlib.util

    device = torch.device("cuda", torch.cuda.current_device())
    runs = []
    for tag, path in (("b", before), ("a", after)):
        sys.path.insert(0, str(path.parent))
        spec = importlib.util.spec_from_file_location(f"_bench_{tag}_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        runs.append(module.kernelpilot_run(device))
    cmp = compare_callables(runs[0]["launch"], runs[1]["launch"], rounds=rounds, warmup=warmup)
    return {"status": "measured", "note": cmp.summary, "speedup": cmp.speedup, "verdict": cmp.verdict}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--pairs", nargs="*", default=list(PAIRS), choices=list(PAIRS))
    ap.add_argument("--json", type=Path, help="also write every result here")
    args = ap.parse_args()
    from tools.profilers.gpu_runner import run_pair

    examples = ROOT / "examples" / "prefetch"
    out = {}
    for name in args.pairs:
        before, after = (examples / p for p in PAIRS[name])
        t0 = time.perf_counter()
        res = run_pair(before, after, rounds=args.rounds, warmup=args.warmup)
        wall = time.perf_counter() - t0
        checks = f"BEFORE {res.before.correct} ({res.before.detail}); AFTER {res.after.correct} ({res.after.detail})"
        print(f"{name} run_pair [{res.status}] {res.note}\n    {checks}\n    wall {wall:.1f} s")
        t0 = time.perf_counter()
        one = _in_process(before, after, args.rounds, args.warmup)
        print(f"{name} in-process [{one['status']}] {one['note']}\n    wall {time.perf_counter() - t0:.1f} s")
        out[name] = {"run_pair": res.model_dump(mode="json"), "run_pair_wall_s": wall, "in_process": one}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
