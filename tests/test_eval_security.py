"""The eval harness against hostile agents and task folders, through the real CLI with our own
small task folders and scripted agent commands:

4. a candidate that never finishes a stage, or eats memory, is stopped at the deadline / memory cap, and the result
   is the candidate's ``timeout`` / ``out_of_memory`` naming the stage — not an ``infra_error``;
5. git settings the agent writes into its repository (fsmonitor, hooks, core.worktree) never run or redirect the
   harness's git commands;
6. a symbolic link in a task's ``workspace/`` that points out of the task folder is refused, naming the task;
7. processes the agent left outside its session (``setsid``, a cleared environment) are killed and reported.
"""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from evals.catalog import load_task
from evals.harness.workspace import create_workspace
from evals.models import TaskScore
from tools.cli import main
from tools.errors import InputError

# a one-program Triton kernel: out = x + REPS·x, the loop run REPS times (the reference is 3·x, so REPS must stay 2;
# not 1: Triton would specialise a 1 into a constant)
KERNEL = """\
import torch
import triton
import triton.language as tl

REPS = 2


@triton.jit
def twice_kernel(x_ptr, out_ptr, n, reps, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = x * 0.0
    for _ in range(0, reps):
        acc += x
    tl.store(out_ptr + offs, acc + x, mask=mask)


def forward(x):
    out = torch.empty_like(x)
    twice_kernel[(1,)](x, out, x.numel(), REPS, BLOCK=64)
    return out


def kernelpilot_entry():
    x = torch.empty(64)
    return {"kernel": twice_kernel, "args": (x, torch.empty_like(x), 64, REPS), "kwargs": {"BLOCK": 64}, "grid": (1,)}
"""
REFERENCE = """\
import torch


def make_inputs(params, gen, device):
    return [torch.rand(params["n"], generator=gen, device=device)]


def reference(x):
    return 3 * x
"""


def _task(root: Path, task_id: str, *, scored: bool, oracle: bool = False) -> Path:
    """A task folder: ``scored`` compiles kernel.py for gfx942 and checks it in the Triton interpreter on one shape
    (``oracle``: through the llvm-cpu output oracle, ``kernelpilot check`` on the LLVM IR, as the FlyDSL tasks do);
    otherwise nothing is compiled or run (the agent's side is under test, the scoring only has to end quickly)."""
    folder = root / task_id
    (folder / "workspace").mkdir(parents=True)
    (folder / "workspace" / "kernel.py").write_text(KERNEL)
    (folder / "workspace" / "reference.py").write_text(REFERENCE)
    (folder / "solution.patch").write_text("")
    spec = {
        "id": task_id, "track": "amd-static", "language": "triton", "archs": ["gfx942"], "title": task_id,
        "prompt": "make it faster", "editable": ["kernel.py"], "baseline": ["kernel.py"],
    }  # fmt: skip
    if scored:
        spec["compile"] = [{"file": "kernel.py"}]
        spec["correctness"] = {
            "entry": "kernel.py:forward", "shapes": [{"name": "n64", "params": {"n": 64}}], "seeds_per_shape": 1,
            "cpu_interpret": True,
        }  # fmt: skip
    if scored and oracle:
        spec["correctness"] = {"oracle": "llvm-cpu", "reference": "kernel.py", "shapes": [{"name": "entry"}],
                               "seeds_per_shape": 1}  # fmt: skip
    (folder / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return folder


def _eval_run(tmp_path: Path, task_id: str, agent_cmd: str, *extra: str) -> tuple[int, float, TaskScore | None]:
    t0 = time.monotonic()
    rc = main(["eval", "run", "--agent-cmd", agent_cmd, "--name", "hostile", "--tasks", task_id,
               "--tasks-dir", str(tmp_path / "tasks"), "--out", str(tmp_path / "out"), *extra])  # fmt: skip
    took = time.monotonic() - t0
    result = tmp_path / "out" / "hostile" / f"{task_id}.json"
    return rc, took, TaskScore.model_validate_json(result.read_text()) if result.exists() else None


def _pids_running(argv: list[str]) -> list[int]:
    """Live processes whose command line is exactly ``argv``."""
    want = "\0".join(argv).encode() + b"\0"
    out = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes() == want:
                stat = (cmdline.parent / "stat").read_text().rsplit(")", 1)[1].split()
                if stat[0] not in ("Z", "X"):
                    out.append(int(cmdline.parent.name))
        except OSError:
            continue
    return out


# --- 4: deadlines and the memory cap ----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_candidate_that_loops_for_ever_times_out_in_its_correctness_stage_not_as_an_infra_error(tmp_path):
    # the repro: the agent multiplies the loop bound (10^12 iterations in the interpreter never end); before, scoring
    # waited 600 s for the candidate's process, then retried, then recorded infra_error
    _task(tmp_path / "tasks", "loop-bound", scored=True)
    agent = "sed -i 's/^REPS = 2$/REPS = 10**12/' {workspace}/kernel.py"
    rc, took, s = _eval_run(tmp_path, "loop-bound", agent, "--time-limit", "20", "--score-timeout", "40")
    assert rc == 0 and s is not None
    assert took < 100, f"eval run took {took:.0f} s with a 40 s scoring deadline"
    assert s.infra_error is None and not s.passed and s.code == "timeout", s.reasons
    (cut,) = [o for o in s.outcomes if o.code == "timeout"]
    assert cut.stage == "correctness"
    assert "the scoring ran past its deadline of 40 s (waits excluded), in the correctness stage" == cut.detail
    assert [o.code for o in s.outcomes if o.passed] == ["compiled", "isa_ok"]  # what was scored before it is kept


@pytest.mark.slow
def test_a_kernel_looping_in_the_llvm_cpu_oracle_times_out_in_the_oracle_stage(tmp_path):
    # the repro: the oracle runs the kernel's LLVM IR inside the scoring process, where no child timeout
    # reaches it (a 10^9-iteration loop ran until the 300 s kill); the deadline is enforced from outside
    _task(tmp_path / "tasks", "oracle-loop", scored=True, oracle=True)
    agent = "sed -i 's/range(0, reps)/range(0, reps * 1000000000)/' {workspace}/kernel.py"
    rc, took, s = _eval_run(tmp_path, "oracle-loop", agent, "--time-limit", "20", "--score-timeout", "40")
    assert rc == 0 and s is not None
    assert took < 100, f"eval run took {took:.0f} s with a 40 s scoring deadline"
    assert s.infra_error is None and s.code == "timeout", s.reasons
    (cut,) = [o for o in s.outcomes if o.code == "timeout"]
    assert cut.stage == "oracle"
    assert [o.code for o in s.outcomes if o.passed] == ["compiled", "isa_ok"]


@pytest.mark.slow
def test_a_candidate_that_eats_memory_fails_out_of_memory_naming_the_stage(tmp_path):
    # forward() holds 64 MB more every 20 ms (at most 6 GB); the scoring's processes are capped at 2.5 GB together
    # (the interpreter's candidate and reference processes and the scorer take about 1 GB before it starts)
    _task(tmp_path / "tasks", "memory-hog", scored=True)
    hog = textwrap.dedent("""
        _kp_hog = []
        _kp_forward = forward


        def forward(x):  # noqa: F811
            import time
            for _ in range(96):
                _kp_hog.append(torch.ones(2**24))
                time.sleep(0.02)
            time.sleep(600)
            return _kp_forward(x)
    """)
    script = tmp_path / "hog.py"
    script.write_text(hog)
    agent = f"sh -c 'cat {script} >> {{workspace}}/kernel.py'"
    rc, took, s = _eval_run(tmp_path, "memory-hog", agent, "--score-memory-gb", "2.5", "--score-timeout", "120")
    assert rc == 0 and s is not None
    assert s.infra_error is None and not s.passed and s.code == "out_of_memory", s.reasons
    (cut,) = [o for o in s.outcomes if o.code == "out_of_memory"]
    assert cut.stage == "correctness" and "over the cap of 2.5 GB, in the correctness stage" in cut.detail
    assert took < 110  # stopped at the cap, not at the 120 s deadline


# --- 5: git settings of the agent's repository ------------------------------------------------------------------


@pytest.mark.slow
def test_git_settings_the_agent_writes_never_run_in_the_harness_nor_redirect_its_capture(tmp_path):
    _task(tmp_path / "tasks", "git-hooks", scored=False)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "planted.py").write_text("print('not the agent workspace')\n")
    marker = tmp_path / "MARKER"
    hook = f"#!/bin/sh\ntouch {marker}.hook\n"
    script = tmp_path / "agent.sh"
    script.write_text(
        textwrap.dedent(f"""\
        set -e
        cd "$1"
        echo '# tuned' >> kernel.py
        git config core.fsmonitor 'touch {marker}; sleep 60; true'
        printf '{hook}' > .git/hooks/post-index-change
        chmod +x .git/hooks/post-index-change
        git config core.worktree {outside}
        git config diff.external 'sh -c "touch {marker}.diff"'
    """)
    )
    rc, took, s = _eval_run(tmp_path, "git-hooks", f"sh {script} {{workspace}}", "--time-limit", "10")
    assert rc == 0 and s is not None
    assert took < 60, f"eval run took {took:.0f} s"  # before: 3 min 05 s, the fsmonitor's sleep once per git command
    assert not marker.exists() and not Path(f"{marker}.hook").exists() and not Path(f"{marker}.diff").exists()
    # the change is the workspace's, whatever core.worktree now says
    assert s.changed_files == ["kernel.py"]
    assert (tmp_path / "out" / "hostile" / "git-hooks" / "change.patch").read_text().rstrip().endswith("+# tuned")


# --- 6: symbolic links in a task folder ----------------------------------------------------------------------------


def test_a_task_whose_workspace_links_out_of_the_task_folder_is_refused_naming_the_task(tmp_path, capsys):
    folder = _task(tmp_path / "tasks", "leaky", scored=False)
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("api key 1234\n")
    (folder / "workspace" / "leak.txt").symlink_to(secret)
    rc, _, s = _eval_run(tmp_path, "leaky", "true")
    assert rc == 2 and s is None  # refused before any agent ran: no result at all
    err = capsys.readouterr().err
    assert f"error: task leaky: workspace/leak.txt is a symbolic link to {secret}, outside the task folder" in err
    with pytest.raises(InputError, match="task leaky: workspace/leak.txt is a symbolic link"):
        create_workspace(load_task(folder), tmp_path / "ws")
    assert not (tmp_path / "ws" / "leak.txt").exists()


def test_a_link_inside_the_task_folder_is_copied_as_the_file_it_points_to(tmp_path):
    folder = _task(tmp_path / "tasks", "linked", scored=False)
    (folder / "shared.txt").write_text("shared data\n")
    (folder / "workspace" / "data.txt").symlink_to("../shared.txt")
    ws = tmp_path / "ws"
    create_workspace(load_task(folder), ws)
    assert not (ws / "data.txt").is_symlink() and (ws / "data.txt").read_text() == "shared data\n"


def test_a_dangling_or_looping_link_in_a_workspace_is_refused(tmp_path):
    folder = _task(tmp_path / "tasks", "loopy", scored=False)
    (folder / "workspace" / "self").symlink_to("self")
    with pytest.raises(InputError, match="task loopy: workspace/self is a symbolic link to self that does not resolve"):
        create_workspace(load_task(folder), tmp_path / "ws")


# --- 7: processes the agent leaves behind --------------------------------------------------------------------------


@pytest.mark.slow
def test_processes_the_agent_leaves_outside_its_session_are_killed_and_reported(tmp_path):
    _task(tmp_path / "tasks", "leftovers", scored=False)
    tag = str(os.getpid() % 10000)  # our own sleep durations: nothing else on the host runs exactly these
    left = [["sleep", f"777{tag}"], ["sleep", f"778{tag}"]]
    # one escapes with setsid, one with setsid and an emptied environment (no marker: found as the shell's child)
    agent = f"sh -c 'setsid sleep 777{tag} & env -i /usr/bin/setsid sleep 778{tag} & sleep 2'"
    try:
        rc, _, s = _eval_run(tmp_path, "leftovers", agent, "--time-limit", "30")
        assert rc == 0 and s is not None
        running = [argv for argv in left if _pids_running(argv)]
        assert running == [], f"still running after eval run: {running}"
        assert sorted(s.agent_outcome.leftover_processes) == [f"sleep 777{tag}", f"sleep 778{tag}"]
        assert any(f.startswith("the agent left 2 process(es) running outside its session") for f in s.flags)
    finally:  # a failing run must not leave them either
        for argv in left:
            for pid in _pids_running(argv):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_an_agent_that_runs_out_of_time_loses_its_setsid_children_too(tmp_path):
    _task(tmp_path / "tasks", "slow-agent", scored=False)
    tag = str(os.getpid() % 10000)
    argv = ["sleep", f"779{tag}"]
    agent = f"{sys.executable} -c \"import os, time; os.system('setsid sleep 779{tag} &'); time.sleep(600)\""
    try:
        rc, took, s = _eval_run(tmp_path, "slow-agent", agent, "--time-limit", "3")
        assert rc == 0 and s is not None and s.agent_outcome.timed_out
        assert _pids_running(argv) == []
        assert s.agent_outcome.leftover_processes == [f"sleep 779{tag}"]
    finally:
        for pid in _pids_running(argv):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("name", ["..", ".", "", "a/../..", "x\ny"])
def test_an_agent_name_that_is_not_one_folder_name_is_refused_and_nothing_beside_out_is_touched(tmp_path, capsys, name):
    # `--name ..` made the agent's folder OUT's parent: the run removed OUT/../<task>/ and overwrote OUT/../summary.json
    (tmp_path / "barrier-load-hoist").mkdir()
    (tmp_path / "barrier-load-hoist" / "notes.txt").write_text("the user's own file")
    (tmp_path / "summary.json").write_text("the user's own summary")
    out = tmp_path / "out"
    rc = main(["eval", "run", "--agent-cmd", "true", "--name", name, "--tasks", "barrier-load-hoist",
               "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and f"error: --name {name!r}: an agent name must be one plain folder name" in err, err
    assert "hint: e.g. --name claude-sonnet" in err
    assert (tmp_path / "barrier-load-hoist" / "notes.txt").read_text() == "the user's own file"
    assert (tmp_path / "summary.json").read_text() == "the user's own summary"
    assert not out.exists()  # refused before anything was written


def test_an_agent_cmd_whose_first_word_names_no_folder_needs_a_name(tmp_path, capsys):
    assert (
        main(["eval", "ab", "--agent-cmd", "/ {prompt}", "--tasks", "barrier-load-hoist", "--out", str(tmp_path / "o")])
        == 2
    )
    assert "--name (taken from the first word of --agent-cmd) ''" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
