"""Suite metrics from task scores. Every rate is over ALL tasks the harness scored (a failed or unscored task counts
against the agent), and the geomean speedup counts a failed or untimed task as 1.0× (no speedup), as stated in the
output. A task the harness itself failed on (``infra_error``) is not the agent's result: it is left out of every
rate and counted apart (``infra_errors``), and a re-run scores it again. Likewise a task whose output oracle could not
decide (``oracle_undetermined``: the candidate uses an instruction ``kernelpilot check`` does not run) is counted apart
(``undetermined``), never against the agent.

The ranking score is the **SOL score**: the geometric mean over tasks of each task's fraction of speed-of-light
(measured, or predicted where nothing could be measured), a failed or incorrect task scoring 0. A geometric mean
with one 0 is 0 whatever the other tasks did, so each task's score enters the mean floored at ``SOL_FLOOR`` (1 % of
speed-of-light): one failure costs a lot but does not erase the rest. A task that could not be completed here
(no GPU, a stage that could not run) is shown apart and left out, as is a passed task that has no SOL figure.
Its 95 % CI is a bootstrap over tasks (seeded: the same scores always give the same interval).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from evals.models import RunMetrics, TaskScore

FAST_P = (1.0, 1.1, 1.25)
SOL_FLOOR = 0.01
BOOTSTRAP_RESAMPLES = 2000


def geomean(xs: list[float]) -> float:
    """Geometric mean, 1.0 for no values: suite speedups, and a task's speedup and CI bounds over its shapes."""
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 1.0


def effective_speedup(s: TaskScore) -> float:
    """The speedup a task contributes: its measured speedup when it passed and was timed, otherwise 1.0."""
    return s.speedup if (s.passed and s.speedup and s.speedup > 0) else 1.0


def task_sol_score(s: TaskScore) -> float | None:
    """One task's SOL score: its fraction of speed-of-light when it passed (capped at 1: a figure above 1 means the
    SOL estimate was loose, not that the kernel beat the hardware), 0 when it failed; None when it is not scored
    (incomplete here, an infra error, a task that states no speed-of-light, or a pass that was not timed)."""
    if s.infra_error or not s.complete or not (s.sol_defined or s.fraction_of_sol is not None):
        return None
    if not s.passed:
        return 0.0
    if s.fraction_of_sol is None or s.fraction_of_sol != s.fraction_of_sol:
        return None
    return min(1.0, max(0.0, s.fraction_of_sol))


def sol_geomean(xs: Sequence[float]) -> float:
    """The SOL score of a set of task scores: their geometric mean, each floored at ``SOL_FLOOR``."""
    return geomean([max(x, SOL_FLOOR) for x in xs])


def bootstrap_ci(
    n: int, stat: Callable[[list[int]], float], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """95 % percentile bootstrap CI of ``stat`` over ``n`` items resampled with replacement (``stat`` gets the
    resampled indices). Seeded, so a leaderboard is reproducible."""
    rng = random.Random(seed)
    vals = sorted(stat([rng.randrange(n) for _ in range(n)]) for _ in range(resamples))
    return vals[int(0.025 * (resamples - 1))], vals[int(0.975 * (resamples - 1))]


def sol_score(scores: list[TaskScore]) -> tuple[float | None, tuple[float, float] | None, int]:
    """(SOL score, its 95 % bootstrap CI, tasks scored) over the scored tasks; (None, None, 0) when none is."""
    xs = [x for x in (task_sol_score(s) for s in scores) if x is not None]
    if not xs:
        return None, None, 0
    ci = bootstrap_ci(len(xs), lambda idx: sol_geomean([xs[i] for i in idx])) if len(xs) > 1 else None
    return sol_geomean(xs), ci, len(xs)


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
    score, score_ci, scored = sol_score(scores)
    stages: dict[str, float] = {}
    for s in all_scores:
        for k, v in s.stage_seconds.items():
            stages[k] = round(stages.get(k, 0.0) + v, 2)
    return RunMetrics(
        agent=agent,
        sol_score=score,
        sol_score_ci=score_ci,
        sol_scored_tasks=scored,
        pass_rate=sum(1 for s in scores if s.passed) / n,
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
        scoring_stage_seconds=stages,
        devices=sorted({s.device for s in all_scores}),
        prompt_levels={
            lv: sum(1 for s in scores if s.prompt_level == lv) for lv in sorted({s.prompt_level for s in scores})
        },
    )
