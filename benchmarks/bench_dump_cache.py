"""The dump-ir cache across folders (issue 15: the eval harness scores each candidate from a fresh temp dir): a hit
in the same folder, a hit from a copy in another folder (the entry is copied with the folder name rewritten), and one
eval task scored twice from fresh temp dirs with one cache (the second scoring's compiles are hits).

    python benchmarks/bench_dump_cache.py [--repeat 5] [--task flydsl-gemv-int8-prefetch]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = [("examples/flydsl/saxpy.py", "gfx942"), ("examples/triton/vector_add.py", "gfx942")]


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--task", default="flydsl-gemv-int8-prefetch", help="a task this host scores fully (CPU)")
    args = parser.parse_args()
    os.environ["KERNELPILOT_CACHE_DIR"] = tempfile.mkdtemp(prefix="kp-bench-cache-")
    from evals.catalog import load_tasks
    from evals.harness.runner import run_one
    from tools.dump_ir import dump_ir

    print(f"{'example':<32} {'arch':<7} {'compile s':>9} {'hit ms':>7} {'other-folder hit ms':>19}")
    for rel, arch in CASES:
        compile_s, first = timed(lambda rel=rel, arch=arch: dump_ir(ROOT / rel, arch))
        hits, moved = [], []
        for _ in range(args.repeat):
            t, r = timed(lambda rel=rel, arch=arch: dump_ir(ROOT / rel, arch))
            assert r.cache_hit
            hits.append(t)
            with tempfile.TemporaryDirectory() as d:
                copy = Path(d) / Path(rel).name
                shutil.copy(ROOT / rel, copy)
                t, r = timed(lambda copy=copy, arch=arch: dump_ir(copy, arch))
                assert r.cache_hit and r.out_dir != first.out_dir
                moved.append(t)
        print(
            f"{rel:<32} {arch:<7} {compile_s:>9.2f} {statistics.median(hits) * 1000:>7.1f} "
            f"{statistics.median(moved) * 1000:>19.1f}"
        )
    (task,) = load_tasks([args.task])
    for n in (1, 2):
        with tempfile.TemporaryDirectory() as d:
            wall, s = timed(lambda d=d: run_one(task, "reference", None, Path(d), None))
        print(f"{args.task} scoring {n}: passed={s.passed} scorer {s.seconds:.2f} s, wall {wall:.2f} s")


if __name__ == "__main__":
    main()
