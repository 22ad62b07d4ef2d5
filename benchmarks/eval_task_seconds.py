"""Per-task figures of one or more `kernelpilot eval run` result folders: verdict, seconds the scorer took
(TaskScore.seconds: static checks → compile → correctness → timing → re-check, lock waits included), the agent's
seconds, speedup with its 95 % CI, fraction of speed-of-light, and the first reason. Reads the JSON, runs nothing.

    python benchmarks/eval_task_seconds.py RUNS_DIR [RUNS_DIR...] [--label before]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def rows(root: Path) -> list[dict]:
    out = []
    for f in sorted(root.glob("*/*.json")):
        if f.name == "summary.json":
            continue
        d = json.loads(f.read_text())
        if "task_id" not in d:
            continue
        ci = d.get("speedup_ci") or (None, None)
        out.append(
            {
                "agent": d["agent"],
                "task": d["task_id"],
                "passed": d["passed"],
                "score_s": d.get("seconds", 0.0),
                "agent_s": (d.get("agent_outcome") or {}).get("duration_s"),
                "speedup": d.get("speedup"),
                "ci": ci,
                "sol": d.get("fraction_of_sol"),
                "device": d.get("device"),
                "why": (d.get("reasons") or [""])[0][:90],
            }
        )
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dirs", nargs="+", type=Path)
    p.add_argument("--label", default="")
    args = p.parse_args()
    for root in args.dirs:
        rs = rows(root)
        print(f"== {args.label} {root}: {len(rs)} task results")
        print("agent      task                           verdict  score_s  speedup (95% CI)       SOL   first reason")
        for r in rs:
            sp = f"{r['speedup']:.2f}× ({r['ci'][0]:.2f}–{r['ci'][1]:.2f})" if r["speedup"] and r["ci"][0] else "—"
            sol = f"{100 * r['sol']:.0f}%" if r["sol"] else "—"
            verdict = "pass" if r["passed"] else "FAIL"
            print(f"{r['agent']:<10} {r['task']:<30} {verdict:<8} {r['score_s']:>7.1f}  {sp:<22} {sol:>4}  {r['why']}")
        if rs:
            secs = [r["score_s"] for r in rs]
            print(f"scorer seconds per task: mean {statistics.mean(secs):.1f}, median {statistics.median(secs):.1f}")
        print(json.dumps({"label": args.label, "rows": rs}))


if __name__ == "__main__":
    main()
