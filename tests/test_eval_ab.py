"""The plugin A/B: the same scripted agent with kernelpilot and without it, the paired tests
(exact McNemar and sign test, our own few lines), and the arms' environments."""

import shutil
import sys
from pathlib import Path

import pytest

from evals.ab import mcnemar_exact, sign_test, split_arm
from evals.harness.agents import path_with_kernelpilot, path_without_kernelpilot
from evals.leaderboard import build, to_markdown
from evals.models import TaskScore
from tools.cli import main

ROOT = Path(__file__).resolve().parents[1]
AGENT = f"{sys.executable} {ROOT / 'tests' / 'data' / 'ab_agent.py'} {{workspace}} {{task_id}} {{mcp_config}} {{report_file}}"
TASKS = "vgpr-spill-row-norm,paged-decode-prefetch"  # two cheap amd-static Triton tasks (CPU compile + interpreter)


def test_mcnemar_exact_is_twice_the_binomial_tail_of_the_discordant_pairs():
    # 3 tasks passed only with the plugin, none only without: 2 · (1/2)^3 = 0.25
    assert mcnemar_exact(3, 0) == 0.25
    # 1 vs 4 discordant: 2 · (C(5,0) + C(5,1)) / 2^5 = 2 · 6/32 = 0.375
    assert mcnemar_exact(1, 4) == 0.375
    # balanced discordance is no evidence (the doubled tail exceeds 1 and is capped), and no discordance either
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


def test_sign_test_over_ten_wins_and_no_losses_is_two_in_1024():
    assert sign_test(10, 0) == 2 / 1024


def test_arm_names_are_recognised_with_and_without_the_leaderboards_folder_suffix():
    assert split_arm("claude@with-kernelpilot") == ("claude", True)
    assert split_arm("claude@without-kernelpilot (runs)") == ("claude (runs)", False)
    assert split_arm("reference") is None


def test_bare_path_hides_kernelpilot_and_keeps_every_other_command(tmp_path):
    bare = path_without_kernelpilot(tmp_path / "shadow", path_with_kernelpilot())
    assert shutil.which("kernelpilot", path=path_with_kernelpilot()) is not None
    assert shutil.which("kernelpilot", path=bare) is None
    assert shutil.which("kernelpilot-mcp", path=bare) is None
    # the venv's python (with triton) and git still resolve: only kernelpilot is withheld
    assert shutil.which(Path(sys.executable).name, path=bare) is not None
    assert shutil.which("git", path=bare) is not None


@pytest.mark.slow
def test_ab_run_shows_the_plugins_difference_and_the_leaderboard_shows_both_arms(tmp_path, capsys):
    out = tmp_path / "ab"
    rc = main(["eval", "ab", "--agent-cmd", AGENT, "--name", "scripted", "--tasks", TASKS, "--out", str(out),
               "--jobs", "2"])  # fmt: skip
    assert rc == 0
    printed = capsys.readouterr().out
    assert "Passed only with kernelpilot: 2; only without: 0; McNemar exact p = 0.5." in printed
    with_dir, without_dir = out / "scripted@with-kernelpilot", out / "scripted@without-kernelpilot"
    for tid in TASKS.split(","):
        w = TaskScore.model_validate_json((with_dir / f"{tid}.json").read_text())
        wo = TaskScore.model_validate_json((without_dir / f"{tid}.json").read_text())
        # the scripted agent solves only when it has kernelpilot; the noop half fails its ISA checks
        assert (w.passed, wo.passed) == (True, False), (w.reasons, wo.reasons)
        # the skills and AGENTS.md we placed are not the agent's change: only the kernel is in the diff
        assert w.changed_files == ["kernel.py"] and wo.changed_files == []
        assert w.agent_outcome.reported == {"cost_usd": 0.5} and wo.agent_outcome.reported == {"cost_usd": 0.25}
        # the default level is plain, and both tasks have a plain prompt
        assert (w.prompt_level, wo.prompt_level) == ("plain", "plain")
        assert not any(f.startswith("prompt:") for f in w.flags)
    log = (with_dir / "vgpr-spill-row-norm" / "agent.log").read_text()
    assert "mcp=True skills=True cli=" in log and "cli=None" not in log
    assert "mcp=False skills=False cli=None" in (without_dir / "vgpr-spill-row-norm" / "agent.log").read_text()

    lb = build([out])
    (r,) = lb.ab
    # 2 of 2 passed only with the plugin: McNemar 2 · (1/2)^2 = 0.5; both tasks better with it: sign p 0.5
    assert (r.with_kernelpilot.passed, r.without_kernelpilot.passed) == (2, 0)
    assert (r.only_with, r.only_without, r.mcnemar_p) == (2, 0, 0.5)
    assert (r.wins, r.losses, r.ties, r.sign_p) == (2, 0, 0, 0.5)
    assert (r.with_kernelpilot.mean_agent_cost_usd, r.without_kernelpilot.mean_agent_cost_usd) == (0.5, 0.25)
    md = to_markdown(lb)
    assert "### plugin A/B: scripted" in md
    assert "| with kernelpilot | 2/2 |" in md and "| without kernelpilot | 0/2 |" in md
    assert "McNemar exact p = 0.5" in md
    assert (out / "ab-scripted.md").read_text().startswith("### plugin A/B: scripted")
