"""Where one task's scoring time goes, stage by stage (issue 15 part 5): workspace copies, the runtime probe,
compiling candidate and baseline (dump-ir, cached by content: the second compile of the same file is a hit),
correctness (reference and candidate processes, at once), and on a GPU the timing servers' start and the timed
rounds. Run with the reference solution applied, so every stage runs.

    python benchmarks/bench_eval_stages.py [--task softmax-fusion] [--task matmul-tiling]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals.catalog import load_tasks  # noqa: E402
from evals.harness import scoring  # noqa: E402
from evals.harness.devices import probe_runtime  # noqa: E402
from evals.harness.workspace import scoring_copy  # noqa: E402


def stages(task_id: str) -> list[tuple[str, float, str]]:
    (task,) = load_tasks([task_id])
    rows: list[tuple[str, float, str]] = []

    def timed(name, fn, note=lambda r: ""):
        t0 = time.perf_counter()
        r = fn()
        rows.append((name, time.perf_counter() - t0, note(r)))
        return r

    with tempfile.TemporaryDirectory(prefix="kp-bench-") as tmp:
        tmp = Path(tmp)
        code, base, work = tmp / "scored", tmp / "baseline", tmp / "work"
        work.mkdir()
        timed("workspace copies (candidate + baseline)", lambda: (
            scoring_copy(task, task.solution.read_text(), code), scoring_copy(task, "", base)))  # fmt: skip
        probe_runtime.cache_clear()
        rt = timed("runtime probe (child interpreter)", lambda: probe_runtime(), lambda r: r.name)
        timed("compile candidate", lambda: scoring.compile_targets(task, code), lambda r: f"{len(r[0])} kernels")
        timed("compile baseline", lambda: scoring.compile_targets(task, base), lambda r: f"{len(r[0])} kernels")
        timed("compile candidate again (cache)", lambda: scoring.compile_targets(task, code))
        c = task.spec.correctness
        interpret = not rt.has_gpu and bool(c and c.cpu_interpret and task.spec.language == "triton")
        if c and (rt.has_gpu or interpret):
            cases = scoring.correctness_cases(task, random.Random(1))
            timed(
                f"correctness ({len(cases)} cases, ref + cand at once{', interpreter' if interpret else ''})",
                lambda: scoring.check_cases(task, code, work, rt, cases, interpret=interpret, timeout=600),
                lambda r: "ok" if not r[1] and all(o.passed for o in r[0]) else f"FAILED {r[1][:1]}",
            )
        if task.spec.performance and rt.has_gpu:
            servers = timed("timing servers start", lambda: scoring.start_timing_servers(task, code, base, work, rt))
            timed(
                "timing rounds + timed-call re-check",
                lambda: scoring.time_candidate(task, code, base, work, rt, random.Random(2), servers),
                lambda r: ", ".join(f"{t.shape} {t.speedup:.2f}×" for t in r[0]),
            )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", action="append", help="task id (default: softmax-fusion)")
    args = ap.parse_args()
    for tid in args.task or ["softmax-fusion"]:
        rows = stages(tid)
        print(f"\n{tid}: {sum(r[1] for r in rows):.1f} s in all")
        for name, secs, note in rows:
            print(f"  {name:<58} {secs:7.2f} s  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
