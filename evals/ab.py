"""The plugin A/B: the same agent on the same tasks with kernelpilot and without it, and a paired test over tasks.

Arms are stored as two agents in one results folder, ``<name>@with-kernelpilot`` and ``<name>@without-kernelpilot``,
so ``eval leaderboard`` and resume work unchanged. The paired statistics are exact and two-sided:

* McNemar on the discordant pass/fail pairs: b tasks passed only with kernelpilot, c only without; under the null
  each discordant task is a fair coin, p = min(1, 2 · P[Binomial(b + c, ½) ≤ min(b, c)]).
* Sign test on the per-task outcome (passed beats failed; between two passes the higher speedup wins; equal
  outcomes are ties and dropped): the same binomial on wins and losses.
* The SOL score (evals.metrics) of each arm over the tasks both arms scored, their paired difference with a 95 %
  bootstrap CI over task pairs, and a paired sign-flip permutation test on the per-task log ratio of the two scores
  (exact for up to 16 pairs, 20,000 seeded random flips beyond).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import product
from math import comb
from pathlib import Path

from pydantic import BaseModel, Field

from evals.catalog import Task
from evals.metrics import SOL_FLOOR, bootstrap_ci, effective_speedup, run_metrics, sol_geomean, task_sol_score
from evals.models import RunMetrics, TaskScore
from evals.render import md_cell, times

WITH, WITHOUT = "with-kernelpilot", "without-kernelpilot"


def arm_agent(name: str, with_plugin: bool) -> str:
    """The agent name one arm's results are stored under."""
    return f"{name}@{WITH if with_plugin else WITHOUT}"


def split_arm(agent: str) -> tuple[str, bool] | None:
    """``(name, with_plugin)`` for an A/B arm's agent name (the leaderboard may append `` (folder)``), None for any
    other agent."""
    name, sep, arm = agent.rpartition("@")
    arm, _, folder = arm.partition(" ")
    if not sep or arm not in (WITH, WITHOUT):
        return None
    return name + (f" {folder}" if folder else ""), arm == WITH


def binomial_two_sided(k_small: int, n: int) -> float:
    """Exact two-sided p of seeing at most ``k_small`` of ``n`` fair-coin outcomes on the rarer side."""
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(k_small + 1)) / 2**n
    return min(1.0, 2 * tail)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact McNemar p over discordant pairs: ``b`` passed only in arm A, ``c`` only in arm B."""
    return binomial_two_sided(min(b, c), b + c)


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test (ties already dropped)."""
    return binomial_two_sided(min(wins, losses), wins + losses)


def sign_flip_p(diffs: list[float], *, random_flips: int = 20_000, seed: int = 0) -> float:
    """Two-sided paired permutation p: how often flipping the signs of the per-pair differences gives a mean at least
    as far from 0 as the observed one. Exact over all 2^n flips for n ≤ 16, else seeded random flips."""
    n = len(diffs)
    if n == 0:
        return 1.0
    observed = abs(sum(diffs)) - 1e-12
    if n <= 16:
        flips = product((1, -1), repeat=n)
        total = 2**n
    else:
        rng = random.Random(seed)
        flips = ([rng.choice((1, -1)) for _ in range(n)] for _ in range(random_flips))
        total = random_flips
    hits = sum(1 for f in flips if abs(sum(x * d for x, d in zip(f, diffs, strict=True))) >= observed)
    return min(1.0, hits / total)


class SolPaired(BaseModel):
    """The SOL score of each arm over the tasks both arms scored, and their paired difference."""

    pairs: int
    with_score: float | None = None
    without_score: float | None = None
    difference: float | None = Field(None, description="with − without, in SOL score (fraction of speed-of-light)")
    difference_ci: tuple[float, float] | None = None
    permutation_p: float | None = None


def sol_paired(with_scores: list[TaskScore], without_scores: list[TaskScore]) -> SolPaired:
    wa = {s.task_id: task_sol_score(s) for s in with_scores}
    wo = {s.task_id: task_sol_score(s) for s in without_scores}
    tids = sorted(t for t in set(wa) & set(wo) if wa[t] is not None and wo[t] is not None)
    if not tids:
        return SolPaired(pairs=0)
    a = [wa[t] for t in tids]
    b = [wo[t] for t in tids]

    def diff(idx: list[int]) -> float:
        return sol_geomean([a[i] for i in idx]) - sol_geomean([b[i] for i in idx])

    logs = [math.log(max(x, SOL_FLOOR)) - math.log(max(y, SOL_FLOOR)) for x, y in zip(a, b, strict=True)]
    return SolPaired(
        pairs=len(tids),
        with_score=sol_geomean(a),
        without_score=sol_geomean(b),
        difference=diff(list(range(len(tids)))),
        difference_ci=bootstrap_ci(len(tids), diff) if len(tids) > 1 else None,
        permutation_p=sign_flip_p(logs),
    )


class PairedTask(BaseModel):
    task_id: str
    with_passed: bool | None = None
    without_passed: bool | None = None
    with_speedup: float | None = None
    without_speedup: float | None = None
    with_agent_s: float | None = None
    without_agent_s: float | None = None
    outcome: str = "tie"  # with | without | tie | unpaired


class AbReport(BaseModel):
    agent: str
    with_kernelpilot: RunMetrics
    without_kernelpilot: RunMetrics
    tasks: list[PairedTask]
    only_with: int
    only_without: int
    mcnemar_p: float
    wins: int
    losses: int
    ties: int
    sign_p: float
    sol: SolPaired = Field(default_factory=lambda: SolPaired(pairs=0))


def _outcome(a: TaskScore, b: TaskScore) -> str:
    key_a = (a.passed, effective_speedup(a))
    key_b = (b.passed, effective_speedup(b))
    if key_a == key_b:
        return "tie"
    return "with" if key_a > key_b else "without"


def paired_report(agent: str, with_scores: list[TaskScore], without_scores: list[TaskScore]) -> AbReport:
    """Per-task pairs and the overall paired tests; a task scored in one arm only is listed, not tested."""
    wa = {s.task_id: s for s in with_scores}
    wo = {s.task_id: s for s in without_scores}
    rows = []
    for tid in sorted(set(wa) | set(wo)):
        a, b = wa.get(tid), wo.get(tid)
        rows.append(
            PairedTask(
                task_id=tid,
                with_passed=a.passed if a else None,
                without_passed=b.passed if b else None,
                with_speedup=a.speedup if a else None,
                without_speedup=b.speedup if b else None,
                with_agent_s=a.agent_outcome.duration_s if a and a.agent_outcome else None,
                without_agent_s=b.agent_outcome.duration_s if b and b.agent_outcome else None,
                outcome=_outcome(a, b) if a and b else "unpaired",
            )
        )
    paired = [r for r in rows if r.outcome != "unpaired"]
    only_with = sum(1 for r in paired if r.with_passed and not r.without_passed)
    only_without = sum(1 for r in paired if r.without_passed and not r.with_passed)
    wins = sum(1 for r in paired if r.outcome == "with")
    losses = sum(1 for r in paired if r.outcome == "without")
    return AbReport(
        agent=agent,
        with_kernelpilot=run_metrics(arm_agent(agent, True), with_scores),
        without_kernelpilot=run_metrics(arm_agent(agent, False), without_scores),
        tasks=rows,
        only_with=only_with,
        only_without=only_without,
        mcnemar_p=mcnemar_exact(only_with, only_without),
        wins=wins,
        losses=losses,
        ties=len(paired) - wins - losses,
        sign_p=sign_test(wins, losses),
        sol=sol_paired(with_scores, without_scores),
    )


def reports_from(by_agent: dict[str, list[TaskScore]]) -> list[AbReport]:
    """Every A/B pair found among the agents of a results folder (both arms present)."""
    arms: dict[str, dict[bool, list[TaskScore]]] = {}
    for agent, scores in by_agent.items():
        found = split_arm(agent)
        if found:
            arms.setdefault(found[0], {})[found[1]] = scores
    return [paired_report(n, a[True], a[False]) for n, a in sorted(arms.items()) if True in a and False in a]


def _fmt_s(x: float | None) -> str:
    return "–" if x is None else f"{x:.0f}"


def _fmt_cost(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def sol_sentence(sp: SolPaired) -> str:
    """The SOL-score comparison in one sentence (Markdown and HTML share it)."""
    if not sp.pairs:
        return "SOL score: no task was scored in both arms."
    ci = f" (95 % CI {100 * sp.difference_ci[0]:+.1f} to {100 * sp.difference_ci[1]:+.1f})" if sp.difference_ci else ""
    return (
        f"SOL score over {sp.pairs} paired tasks: with kernelpilot {100 * sp.with_score:.1f} %, without "
        f"{100 * sp.without_score:.1f} %; difference {100 * sp.difference:+.1f} points{ci}; paired permutation "
        f"p = {sp.permutation_p:.4g}."
    )


def to_markdown(r: AbReport) -> str:
    a, b = r.with_kernelpilot, r.without_kernelpilot
    fp = sorted(a.fast_p)
    lines = [
        f"### plugin A/B: {md_cell(r.agent)}",
        "",
        "| arm | passed | " + " | ".join(fp) + " | geomean× | agent s/task | $/task |",
        "|---|---|" + "---|" * len(fp) + "---|---|---|",
    ]
    for label, m in (("with kernelpilot", a), ("without kernelpilot", b)):
        cells = [label, f"{m.passed}/{m.tasks}", *[f"{100 * m.fast_p[k]:.0f} %" for k in fp]]
        cells += [times(m.geomean_speedup, 3), _fmt_s(m.mean_agent_seconds), _fmt_cost(m.mean_agent_cost_usd)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Passed only with kernelpilot: {r.only_with}; only without: {r.only_without}; "
        f"McNemar exact p = {r.mcnemar_p:.4g}. Per-task outcome with vs without: {r.wins} better, {r.losses} worse, "
        f"{r.ties} tied; sign test p = {r.sign_p:.4g}.",
        "",
        sol_sentence(r.sol),
        "",
        "| task | with | without | agent s (with / without) | better |",
        "|---|---|---|---|---|",
    ]

    def cell(passed: bool | None, sp: float | None) -> str:
        if passed is None:
            return "–"
        return ("✔" if passed else "✘") + (f" {times(sp)}×" if sp else "")

    for t in r.tasks:
        lines.append(
            f"| {md_cell(t.task_id)} | {cell(t.with_passed, t.with_speedup)} | {cell(t.without_passed, t.without_speedup)} "
            f"| {_fmt_s(t.with_agent_s)} / {_fmt_s(t.without_agent_s)} | {t.outcome} |"
        )
    return "\n".join(lines) + "\n"


def run_ab(
    tasks: list[Task],
    name: str,
    out: Path,
    run: Callable[..., list[TaskScore]],
    **kwargs,
) -> AbReport:
    """Both arms through ``run`` (``runner.run_suite`` or ``cluster.run_suite_on_cluster``), then the paired report."""
    with_scores = run(tasks, arm_agent(name, True), out, plugin=True, **kwargs)
    without_scores = run(tasks, arm_agent(name, False), out, plugin=False, **kwargs)
    return paired_report(name, with_scores, without_scores)
