"""Suite metrics from task scores. Every rate is over ALL tasks the harness scored (a failed or unscored task counts
against the agent), and the geomean speedup counts a failed or untimed task as 1.0× (no speedup), as stated in the
output. A task the harness itself failed on (``infra_error``) is not the agent's result: it is left out of every
rate and counted apart (``infra_errors``), and a re-run scores it again. Likewise a task whose output oracle could not
decide (``oracle_undetermined``: the candidate uses an instruction ``kernelpilot check`` does not run) is counted apart
(``undetermined``), never against the agent.
"""

from __future__ import annotations

import math

from evals.models import RunMetrics, TaskScore

FAST_P = (1.0, 1.1, 1.25)


def geomean(xs: list[float]) -> float:
    """Geometric mean, 1.0 for no values: suite speedups, and a task's speedup and CI bounds over its shapes."""
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 1.0


def effective_speedup(s: TaskScore) -> float:
    """The speedup a task contributes: its measured speedup when it passed and was timed, otherwise 1.0."""
    return s.speedup if (s.passed and s.speedup and s.speedup > 0) else 1.0


def run_metrics(agent: str, scores: list[TaskScore]) -> RunMetrics:
    all_scores = scores
    undetermined = [s for s in all_scores if not s.infra_error and s.code == "oracle_undetermined"]
    scores = [s for s in all_scores if not s.infra_error and s.code != "oracle_undetermined"]
    n = len(scores) or 1
    fast = {}
    for p in FAST_P:
        fast[f"fast_{p:g}"] = sum(1 for s in scores if s.passed and s.correct and (s.speedup or 0) > p) / n
    isa = [s for s in scores if s.isa_ok is not None]
    sol = [s.fraction_of_sol for s in scores if s.fraction_of_sol is not None and s.passed]
    secs = [s.agent_outcome.duration_s for s in scores if s.agent_outcome]
    costs = []
    for s in scores:
        rep = s.agent_outcome.reported if s.agent_outcome else {}
        cost = rep.get("cost_usd", rep.get("total_cost_usd"))
        if isinstance(cost, int | float):
            costs.append(float(cost))
    return RunMetrics(
        agent=agent,
        tasks=len(scores),
        infra_errors=len(all_scores) - len(scores) - len(undetermined),
        undetermined=len(undetermined),
        passed=sum(1 for s in scores if s.passed),
        compile_rate=sum(1 for s in scores if s.compiled) / n,
        correct_rate=sum(1 for s in scores if s.correct) / n,
        isa_pass_rate=(sum(1 for s in isa if s.isa_ok) / len(isa)) if isa else 0.0,
        fast_p=fast,
        geomean_speedup=geomean([effective_speedup(s) for s in scores]),
        mean_fraction_of_sol=sum(sol) / len(sol) if sol else None,
        incomplete=sum(1 for s in scores if not s.complete),
        mean_agent_seconds=sum(secs) / len(secs) if secs else None,
        mean_agent_cost_usd=sum(costs) / len(costs) if costs else None,
        devices=sorted({s.device for s in all_scores}),
        prompt_levels={
            lv: sum(1 for s in scores if s.prompt_level == lv) for lv in sorted({s.prompt_level for s in scores})
        },
    )
