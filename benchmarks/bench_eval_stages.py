"""Where one task's scoring time goes, stage by stage (issue 15 part 5), in the order `score()` runs them:
workspace copies, the runtime probe, the four kernel processes started (their torch import runs in the background
from here), candidate and baseline compiled at once (dump-ir, cached by content and path), correctness in the
already-started reference and candidate processes, and on a GPU the timed rounds with the timed-call re-check in
the reference's process kept from correctness. Then `score()` end to end on the same copies, which is what
`eval run` pays per task (the GPU lock's share of it is what limits a GPU's throughput with two tasks in flight).
Run with the reference solution applied, so every stage runs.

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
from evals.harness import correctness, scoring, timing  # noqa: E402
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
        c = task.spec.correctness
        interpret = not rt.has_gpu and bool(c and c.cpu_interpret and task.spec.language == "triton")
        run_checks = bool(c and c.oracle != "llvm-cpu" and (rt.has_gpu or interpret))
        procs = servers = None
        if run_checks:
            procs = timed("check processes start (torch import runs on)", lambda: correctness.start_check_processes(
                task, code, work, rt, interpret=interpret))  # fmt: skip
        if run_checks and task.spec.performance and rt.has_gpu:
            servers = timed("timing processes start", lambda: timing.start_timing_servers(task, code, base, work, rt))
        from concurrent.futures import ThreadPoolExecutor

        def both():
            with ThreadPoolExecutor(2) as pool:
                jobs = [pool.submit(scoring.compile_targets, task, d) for d in (code, base)]
                return [j.result() for j in jobs]

        timed("compile candidate + baseline at once", both, lambda r: f"{len(r[0][0])}+{len(r[1][0])} kernels")
        timed("compile candidate again (cache)", lambda: scoring.compile_targets(task, code))
        if run_checks:
            for p in (servers or {}).values():
                p.go()
            cases = correctness.correctness_cases(task, random.Random(1))
            timed(
                f"correctness ({len(cases)} cases, ref + cand at once{', interpreter' if interpret else ''})",
                lambda: correctness.check_cases(
                    task, code, work, rt, cases, interpret=interpret, timeout=600, procs=procs
                ),
                lambda r: "ok" if not r[1] and all(o.passed for o in r[0]) else f"FAILED {r[1][:1]}",
            )
        if servers:
            timed(
                "timing rounds + timed-call re-check (reference process reused)",
                lambda: timing.time_candidate(
                    task, code, base, work, rt, random.Random(2), servers, procs["reference"]
                ),
                lambda r: ", ".join(f"{t.shape} {t.speedup:.2f}×" for t in r[0]) + (f" {r[2][:1]}" if r[2] else ""),
            )
        for p in (procs or {}).values():
            p.close()
        patch = task.solution.read_text().splitlines()
        changed = sorted({ln[6:] for ln in patch if ln.startswith("+++ b/")})
        s = timed(
            "score() end to end (fresh work dir, compile cache warm)",
            lambda: scoring.score(
                task, code, base, tmp / "work2", rt, changed=changed, diff_problems=[], agent="bench"
            ),
            lambda r: "pass" if r.passed else f"FAIL {r.code}: {(r.reasons or [''])[0][:80]}",
        )
        del s
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", action="append", help="task id (default: softmax-fusion)")
    args = ap.parse_args()
    for tid in args.task or ["softmax-fusion"]:
        rows = stages(tid)
        print(f"\n{tid}: {sum(r[1] for r in rows[:-1]):.1f} s by stage, {rows[-1][1]:.1f} s through score()")
        for name, secs, note in rows:
            print(f"  {name:<58} {secs:7.2f} s  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
