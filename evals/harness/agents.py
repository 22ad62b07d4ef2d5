"""Agents: anything that edits a workspace. Every agent runs as its own process, in its own session, through
``tools.executors`` with the task's time limit, so one that crashes or hangs costs only its own task. When it ends
(or runs out of time) every process it started is killed — its session, and what left the session (``setsid``,
double forks: found through /proc, ``evals.harness.processes``) — and those are listed in
``AgentOutcome.leftover_processes``.

* ``--agent-cmd TEMPLATE``: any agent CLI. Placeholders: ``{prompt_file}``, ``{prompt}``, ``{workspace}``,
  ``{mcp_config}``, ``{time_limit}``, ``{task_id}``, ``{report_file}``. The template is split like a shell line
  first and placeholders are substituted inside the words, so paths with spaces stay one argument.
  The agent may write ``{"cost_usd": …, "tokens": …}`` to ``{report_file}``; it is recorded, never scored.
* built-ins (``python -m evals.harness.agents NAME WORKSPACE TASK_DIR``): ``reference`` applies solution.patch,
  ``noop`` changes nothing, and the ``cheat-*``/``crash``/``hang`` agents are the negative controls.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

from evals.catalog import Task, load_task
from evals.harness.processes import MARKER_ENV, ProcessTracker
from evals.harness.workspace import run_git
from evals.models import AgentOutcome
from tools.executors import LOCAL

# name -> what it does (the controls say what score each one deserves)
BUILTIN_AGENTS: dict[str, str] = {
    "reference": "applies the task's solution.patch",
    "excellent": "applies the task's solutions/excellent.patch (open-ended tasks); the task's solution.patch elsewhere",
    "noop": "changes nothing",
    "cheat-zeros": "returns zeros of the right shape",
    "cheat-cached-output": "computes once, then returns the first result for every call",
    "cheat-outside-edit": "edits the reference so that zeros are correct, and returns zeros",
    "cheat-timer-patch": "applies the solution, then patches torch.cuda.Event.elapsed_time and time.perf_counter",
    "cheat-side-stream": "launches the kernel on a side stream the timer does not see",
    "cheat-slower": "correct but slower: runs the baseline kernel twice",
    "cheat-nan": "returns the right result with one NaN",
    "cheat-constant": "returns a constant tensor",
    "cheat-mutate-input": "writes the result into its input and returns it",
    "cheat-import-reference": "returns the task's own reference implementation",
    "cheat-hoisted-prefetch": (
        "replaces the kernel with examples/prefetch/flydsl_mfma/hoisted_wrong.py: a 'prefetch' whose address does not "
        "advance, so LLVM hoists the loads out of the loop (fast and wrong)"
    ),
    "crash": "edits the kernel, then exits with status 1",
    "hang": "sleeps past any time limit",
}

_WRAP = {
    "cheat-zeros": "    return torch.zeros_like(_kp_orig(*args))\n",
    "cheat-cached-output": (
        "    if 'out' not in _kp_cache:\n        _kp_cache['out'] = _kp_orig(*args)\n    return _kp_cache['out'].clone()\n"
    ),
    "cheat-nan": "    out = _kp_orig(*args)\n    out.view(-1)[0] = float('nan')\n    return out\n",
    "cheat-constant": "    return torch.full_like(_kp_orig(*args), 0.5)\n",
    "cheat-mutate-input": "    out = _kp_orig(*args)\n    args[0].view(-1)[: out.numel()] = out.view(-1).to(args[0].dtype)\n    return out\n",
    "cheat-slower": "    _kp_orig(*args)\n    return _kp_orig(*args)\n",
    "cheat-side-stream": (
        "    if not torch.cuda.is_available():\n        return _kp_orig(*args)\n"
        "    side = torch.cuda.Stream()\n    with torch.cuda.stream(side):\n        return _kp_orig(*args)\n"
    ),
}

_TIMER_PATCH = """

# negative control: forge the timer (the scorer binds its timer before import and checks statically)
import time as _kp_time

torch.cuda.Event.elapsed_time = lambda self, end: 1e-3
_kp_time.perf_counter = lambda: 0.0
"""


def _entry(task: Task) -> tuple[str, str]:
    c = task.spec.correctness
    if c is None or c.loader:
        raise SystemExit(f"agent needs a Python entry; task {task.id} has none")
    file, _, fn = c.entry.partition(":")
    return file, fn


def _wrap(ws: Path, task: Task, body: str) -> None:
    file, fn = _entry(task)
    path = ws / file
    text = path.read_text()
    text += f"\n\nimport torch  # noqa: E402\n\n_kp_orig = {fn}\n_kp_cache = {{}}\n\n\ndef {fn}(*args):  # noqa: F811\n{body}"
    path.write_text(text)


def _apply_solution(ws: Path, task: Task, patch: Path | None = None) -> None:
    run_git(ws, "apply", "--whitespace=nowarn", str(patch or task.solution))


def run_builtin(name: str, ws: Path, task: Task) -> int:
    """Act on ``ws`` as the named built-in agent; returns the process exit status."""
    if name == "noop":
        return 0
    if name == "reference":
        _apply_solution(ws, task)
        return 0
    if name == "excellent":
        excellent = task.solution.parent / "solutions" / "excellent.patch"
        _apply_solution(ws, task, excellent if excellent.is_file() else None)
        return 0
    if name == "hang":
        time.sleep(10**6)
        return 0
    if name == "crash":
        file = task.spec.baseline[0]
        (ws / file).write_text((ws / file).read_text() + "\n# half-finished edit\n")
        return 1
    if name in _WRAP:
        _wrap(ws, task, _WRAP[name])
        return 0
    if name == "cheat-hoisted-prefetch":
        wrong = Path(__file__).resolve().parents[2] / "examples" / "prefetch" / "flydsl_mfma" / "hoisted_wrong.py"
        (ws / task.spec.baseline[0]).write_text(wrong.read_text())
        return 0
    if name == "cheat-timer-patch":
        _apply_solution(ws, task)
        file, _ = _entry(task)
        (ws / file).write_text((ws / file).read_text() + "\nimport torch  # noqa: E402\n" + _TIMER_PATCH)
        return 0
    if name == "cheat-outside-edit":
        ref = ws / task.spec.correctness.reference
        ref.write_text(ref.read_text() + "\n\ndef reference(*args):  # noqa: F811\n    return 0 * _kp_ref(*args)\n")
        ref.write_text(ref.read_text().replace("def reference(", "def _kp_ref(", 1))
        _wrap(ws, task, _WRAP["cheat-zeros"])
        return 0
    if name == "cheat-import-reference":
        file, fn = _entry(task)
        ref = Path(task.spec.correctness.reference).stem
        (ws / file).write_text(
            (ws / file).read_text() + f"\n\nfrom {ref} import reference as {fn}  # noqa: E402,F401,F811\n"
        )
        return 0
    print(f"unknown built-in agent {name}; known: {', '.join(BUILTIN_AGENTS)}", file=sys.stderr)
    return 2


def render_template(template: str, values: dict[str, str]) -> list[str]:
    """Split the template like a shell line, then fill placeholders inside each word."""
    words = shlex.split(template)
    return [w.format_map(values) for w in words]


def prompt_for(task: Task, level: str) -> tuple[str, str]:
    """The prompt text for ``level`` (``plain``: the user's words; ``guided``: names the transformation) and the level
    actually used: a task without a plain prompt falls back to its guided one."""
    if level == "plain" and task.spec.prompt_plain:
        return task.spec.prompt_plain, "plain"
    return task.spec.prompt, "guided"


REPO_ROOT = Path(__file__).resolve().parents[2]
_KP_MCP = {"mcpServers": {"kernelpilot": {"command": "kernelpilot-mcp", "args": []}}}
_AGENTS_MD = """# kernelpilot is available here

GPU kernel tools for this task: the `kernelpilot` MCP server (tools dump-ir, vgpr-pressure, prefetch-data-load,
kernel-trace), the `kernelpilot` command line (`kernelpilot --help`), and the playbooks in `.agents/skills/`
(also `.claude/skills/`). Read the matching SKILL.md before changing a kernel.
"""


def place_plugin(ws: Path) -> list[Path]:
    """Put kernelpilot's skills where agents read them in a project — ``.claude/skills/`` (Claude Code),
    ``.agents/skills/`` (Codex, Gemini CLI) — and an ``AGENTS.md`` pointer; returns what was created so it can be
    removed before the diff is captured (the agent is not scored on files we placed)."""
    placed: list[Path] = []
    for rel in (".claude/skills", ".agents/skills"):
        dest = ws / rel
        top = ws / rel.split("/")[0]
        if not top.exists():
            placed.append(top)
        elif not dest.exists():
            placed.append(dest)
        for skill in sorted((REPO_ROOT / "skills").glob("*/SKILL.md")):
            target = dest / skill.parent.name
            if not target.exists():
                shutil.copytree(skill.parent, target)
                placed.append(target)
    if not (ws / "AGENTS.md").exists():
        (ws / "AGENTS.md").write_text(_AGENTS_MD)
        placed.append(ws / "AGENTS.md")
    return placed


def remove_placed(placed: list[Path]) -> None:
    for p in placed:
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def _kernelpilot_bin() -> Path | None:
    found = shutil.which("kernelpilot")
    if found:
        return Path(found).parent
    beside = Path(sys.executable).parent / "kernelpilot"
    return beside.parent if beside.exists() else None


def path_with_kernelpilot(path: str | None = None) -> str:
    """``PATH`` with the folder holding the ``kernelpilot`` command first."""
    path = os.environ.get("PATH", "") if path is None else path
    where = _kernelpilot_bin()
    return path if where is None else os.pathsep.join([str(where), *[p for p in path.split(os.pathsep) if p]])


def path_without_kernelpilot(shadow: Path, path: str | None = None) -> str:
    """``PATH`` on which no ``kernelpilot*`` command resolves, every other command (python, compilers) unchanged:
    each folder holding one is replaced by a shadow folder of links to everything else in it."""
    path = os.environ.get("PATH", "") if path is None else path
    out = []
    for i, d in enumerate(p for p in path.split(os.pathsep) if p):
        folder = Path(d)
        try:
            names = sorted(x.name for x in folder.iterdir()) if folder.is_dir() else []
        except OSError:
            names = []
        if not any(n.startswith("kernelpilot") for n in names):
            out.append(d)
            continue
        mirror = shadow / f"{i}"
        mirror.mkdir(parents=True, exist_ok=True)
        for n in names:
            if not n.startswith("kernelpilot") and not (mirror / n).exists():
                (mirror / n).symlink_to(folder / n)
        out.append(str(mirror))
    return os.pathsep.join(out)


def run_agent(
    agent: str,
    template: str | None,
    task: Task,
    ws: Path,
    run_dir: Path,
    env: dict[str, str],
    time_limit: float | None = None,
    *,
    prompt_level: str = "guided",
    plugin: bool | None = None,
) -> AgentOutcome:
    """Run one agent on one workspace with the task's time limit; the log goes to ``run_dir/agent.log``.

    ``plugin`` is the A/B arm: True gives the agent kernelpilot (MCP config filled, skills in the workspace,
    ``kernelpilot`` on PATH), False withholds all three (an MCP config with no servers, no skills, a PATH on which
    ``kernelpilot`` does not resolve); None is the plain run (MCP config filled, PATH as it is)."""
    limit = float(time_limit or task.spec.time_limit_s)
    run_dir.mkdir(parents=True, exist_ok=True)
    prompt_file = run_dir / "prompt.md"
    prompt_file.write_text(prompt_for(task, prompt_level)[0] + _prompt_footer(task))
    report_file = run_dir / "agent_report.json"
    mcp_config = run_dir / "mcp.json"
    mcp_config.write_text(json.dumps({"mcpServers": {}} if plugin is False else _KP_MCP))
    placed: list[Path] = []
    if plugin is True:
        placed = place_plugin(ws)
        env = {**env, "PATH": path_with_kernelpilot()}
    elif plugin is False:
        shadow = Path(tempfile.mkdtemp(prefix="kp-bare-path-"))
        env = {**env, "PATH": path_without_kernelpilot(shadow)}
    if template:
        values = {
            "prompt_file": str(prompt_file),
            "prompt": prompt_file.read_text(),
            "workspace": str(ws),
            "mcp_config": str(mcp_config),
            "time_limit": str(int(limit)),
            "task_id": task.id,
            "report_file": str(report_file),
        }
        argv = render_template(template, values)
    else:
        root = str(Path(__file__).resolve().parents[2])
        extra = os.environ.get("PYTHONPATH")
        env = {**env, "PYTHONPATH": root + (os.pathsep + extra if extra else "")}
        argv = [sys.executable, "-m", "evals.harness.agents", agent, str(ws), str(task.dir)]
    # the agent's own session (run_process starts one) is killed when it ends; what left that session (setsid,
    # double forks) is found through /proc by the marker in its environment and by descent, then killed too
    token = secrets.token_hex(8)
    tracker = ProcessTracker(token).watch()
    res = None
    try:
        res = LOCAL.run(argv, timeout=limit, env={**env, MARKER_ENV: token}, cwd=ws)
    finally:  # run_process kills what carries its own marker; the tracker finds the rest (a cleared environment)
        leftovers = (res.leftover_processes if res is not None else []) + tracker.kill()
        remove_placed(placed)
        if plugin is False:
            shutil.rmtree(shadow, ignore_errors=True)
    log = run_dir / "agent.log"
    log.write_text(f"$ {shlex.join(argv[:3])} …\n--- stdout\n{res.stdout}\n--- stderr\n{res.stderr}\n")
    reported: dict = {}
    if report_file.exists():
        try:
            reported = json.loads(report_file.read_text())
        except ValueError:
            reported = {"unreadable_report": True}
    else:
        reported = _cost_from_stdout(res.stdout)
    return AgentOutcome(
        agent=agent,
        returncode=res.returncode,
        timed_out=res.timed_out,
        duration_s=round(res.duration_s, 2),
        reported=reported,
        log=str(log),
        leftover_processes=leftovers,
    )


def _cost_from_stdout(stdout: str) -> dict:
    """Agent CLIs with JSON output (``claude -p --output-format json``) report cost there; keep what they say."""
    for line in reversed(stdout.strip().splitlines()[-5:]):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            keys = ("total_cost_usd", "cost_usd", "num_turns", "duration_ms", "usage")
            return {k: data[k] for k in keys if k in data}
    return {}


def _prompt_footer(task: Task) -> str:
    edit = ", ".join(task.spec.editable)
    return (
        f"\n\n---\nYou may change only: {edit}. Other changes fail the task. "
        f"Target: {', '.join(task.spec.archs)} ({task.spec.track}). Work in the current directory.\n"
    )


def main(argv: list[str]) -> int:
    name, ws, task_dir = argv
    return run_builtin(name, Path(ws), load_task(Path(task_dir)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
