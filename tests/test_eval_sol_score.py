"""The SOL score ranks agents by how close their kernels get to the hardware: a geometric mean over
tasks of the fraction of speed-of-light, a failed task scoring 0 (floored at 1 % in the mean), with a seeded
bootstrap CI; `eval ab` reports the paired difference with its CI and a permutation test."""

from __future__ import annotations

import math

import pytest

from evals.ab import paired_report, sign_flip_p
from evals.leaderboard import build, to_html, to_markdown
from evals.metrics import SOL_FLOOR, run_metrics, task_sol_score
from evals.models import TaskScore


def _s(task, passed, sol, agent="a", complete=True, defined=True):
    s = TaskScore(task_id=task, track="gpu-runtime", agent=agent, passed=passed, compiled=True, correct=passed)
    s.fraction_of_sol, s.complete, s.sol_defined = sol, complete, defined
    s.speedup = 2.0 if passed else None
    return s


def test_task_score_is_the_fraction_when_passed_zero_when_failed_and_none_when_not_scored():
    assert task_sol_score(_s("t", True, 0.4)) == 0.4
    assert task_sol_score(_s("t", True, 1.3)) == 1.0  # a loose SOL estimate, not a kernel beating the hardware
    assert task_sol_score(_s("t", False, None)) == 0.0  # failed: 0 even without a timing
    assert task_sol_score(_s("t", False, None, complete=False)) is None  # no GPU here: shown apart
    assert task_sol_score(_s("t", False, None, defined=False)) is None  # the task states no speed-of-light


def test_sol_score_is_the_floored_geomean_and_its_ci_is_reproducible():
    scores = [_s("t1", True, 0.8), _s("t2", True, 0.2), _s("t3", False, None), _s("t4", False, None, complete=False)]
    m = run_metrics("a", scores)
    # three scored tasks (t4 incomplete): 0.8, 0.2 and the failure floored at 0.01
    assert m.sol_scored_tasks == 3
    assert m.sol_score == pytest.approx((0.8 * 0.2 * SOL_FLOOR) ** (1 / 3))
    lo, hi = m.sol_score_ci
    assert lo <= m.sol_score <= hi
    assert run_metrics("a", scores).sol_score_ci == (lo, hi)  # seeded bootstrap


def _write(root, agent, fractions):
    d = root / agent
    d.mkdir(parents=True)
    for i, f in enumerate(fractions):
        (d / f"task-{i}.json").write_text(_s(f"task-{i}", True, f, agent=agent).model_dump_json())


def test_leaderboard_ranks_the_agent_closer_to_the_hardware_first_with_equal_pass_rates(tmp_path):
    # both agents pass all three tasks; "excellent" runs at twice the fraction of speed-of-light of "good"
    _write(tmp_path, "good", [0.3, 0.25, 0.4])
    _write(tmp_path, "excellent", [0.6, 0.5, 0.8])
    lb = build([tmp_path])
    assert [e.agent for e in lb.entries] == ["excellent", "good"]
    assert [e.passed for e in lb.entries] == [3, 3]
    md = to_markdown(lb)
    header = md.splitlines()[0]
    assert header.startswith("| # | agent | SOL score [95 % CI] |")  # the score is the first figure of a row
    geo = (0.6 * 0.5 * 0.8) ** (1 / 3)
    assert f"| 1 | excellent | {100 * geo:.0f} % [" in md
    assert "SOL score [95 % CI]" in to_html(lb)


def test_an_agent_without_sol_figures_ranks_after_agents_with_one(tmp_path):
    d = tmp_path / "nosol"
    d.mkdir()
    (d / "t.json").write_text(_s("t", True, None, agent="nosol", defined=False).model_dump_json())
    _write(tmp_path, "some", [0.1])
    assert [e.agent for e in build([tmp_path]).entries] == ["some", "nosol"]


def test_ab_reports_the_paired_sol_difference_with_ci_and_permutation_p():
    with_ = [_s(f"t{i}", True, f, agent="x@with-kernelpilot") for i, f in enumerate([0.6, 0.5, 0.7, 0.4, 0.8, 0.55])]
    without = [
        _s(f"t{i}", True, f, agent="x@without-kernelpilot") for i, f in enumerate([0.3, 0.2, 0.35, 0.2, 0.4, 0.3])
    ]
    r = paired_report("x", with_, without)
    assert r.sol.pairs == 6
    expected = math.prod([0.6, 0.5, 0.7, 0.4, 0.8, 0.55]) ** (1 / 6) - math.prod([0.3, 0.2, 0.35, 0.2, 0.4, 0.3]) ** (
        1 / 6
    )
    assert r.sol.difference == pytest.approx(expected)
    assert r.sol.difference_ci[0] > 0  # every task is better with: every resample too
    # all six log ratios positive: only the all-+ and all-− sign patterns are as extreme, 2 of 2^6
    assert r.sol.permutation_p == pytest.approx(2 / 64)


def test_sign_flip_p_is_one_for_no_difference_and_exact_for_small_n():
    assert sign_flip_p([]) == 1.0
    assert sign_flip_p([0.0, 0.0]) == 1.0
    assert sign_flip_p([1.0, -1.0]) == 1.0
    assert sign_flip_p([1.0, 1.0, 1.0]) == pytest.approx(2 / 8)


def test_tasks_are_selected_by_tag():
    from evals.catalog import load_tasks

    coupled = load_tasks(["tag:coupled"])
    assert coupled and all("coupled" in t.spec.tags for t in coupled)
    assert {t.id for t in coupled} < {t.id for t in load_tasks()}
    from tools.errors import InputError

    with pytest.raises(InputError, match="tag:NAME"):
        load_tasks(["tag:no-such-tag"])
