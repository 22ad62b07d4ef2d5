"""``kernelpilot eval run|leaderboard|controls|tasks``: the eval suite's command line."""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

from tools.errors import InputError

# `kernelpilot eval` joins the CLI through pyproject's "kernelpilot.commands" entry point; this is its --help line.
HELP = "run agents on the benchmark tasks and build the leaderboard"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="eval_command", metavar="<eval command>")
    r = sub.add_parser("run", help="run an agent on tasks and score every task")
    who = r.add_mutually_exclusive_group(required=True)
    who.add_argument("--agent", help="built-in agent: reference, noop, cheat-* (see `eval tasks --agents`)")
    who.add_argument("--agent-cmd", help="agent CLI template, e.g. 'claude -p {prompt} --mcp-config {mcp_config}'")
    r.add_argument("--name", help="name for an --agent-cmd agent in results (default: first word of the command)")
    r.add_argument("--tasks", action="append", help="ids, globs, tracks (amd-static, gpu-runtime) or task folders")
    r.add_argument("--out", required=True, help="results folder; re-running resumes and skips finished tasks")
    r.add_argument("--no-resume", action="store_true", help="score every task again")
    r.add_argument(
        "--jobs", type=int, help="parallel tasks on a CPU-only host; tasks per GPU on a GPU host (default 2)"
    )
    r.add_argument("--time-limit", type=float, help="seconds per task for the agent (default: the task's)")
    r.add_argument("--json", action="store_true", help="print the run metrics as JSON")
    _common_run_options(r)

    ab = sub.add_parser("ab", help="the plugin A/B: every task with kernelpilot and without it, and a paired test")
    ab.add_argument("--agent-cmd", required=True, help="agent CLI template (see `eval run --agent-cmd`)")
    ab.add_argument("--name", help="name in results (default: first word of the command)")
    ab.add_argument("--tasks", action="append", help="ids, globs, tracks (amd-static, gpu-runtime) or task folders")
    ab.add_argument("--out", required=True, help="results folder; re-running resumes and skips finished tasks")
    ab.add_argument("--no-resume", action="store_true", help="score every task again")
    ab.add_argument(
        "--jobs", type=int, help="parallel tasks on a CPU-only host; tasks per GPU on a GPU host (default 2)"
    )
    ab.add_argument("--time-limit", type=float, help="seconds per task for the agent (default: the task's)")
    ab.add_argument("--json", action="store_true", help="print the paired report as JSON")
    _common_run_options(ab)

    lb = sub.add_parser("leaderboard", help="rank the agents of one or more run folders")
    lb.add_argument("dirs", nargs="+", help="run folders (--out of `eval run`)")
    lb.add_argument("--html", help="write a static HTML page (inline SVG chart) here")
    lb.add_argument("--json", action="store_true", help="print the leaderboard as JSON")
    lb.add_argument("--md", action="store_true", help="print Markdown (the default when neither --json nor --html)")

    c = sub.add_parser("controls", help="run the negative controls (cheating agents) and check each is caught")
    c.add_argument("--only", action="append", help="control name (repeatable)")
    c.add_argument("--out", help="keep the controls' results here")
    c.add_argument("--json", action="store_true")

    t = sub.add_parser("tasks", help="list the tasks (and built-in agents)")
    t.add_argument("--agents", action="store_true", help="list the built-in agents instead")
    t.add_argument("--json", action="store_true")
    t.add_argument("--tasks-dir", action="append", help="also list the tasks in this folder (repeatable)")

    w = sub.add_parser("worker", help="start one Dask worker per GPU of this host for `eval run --cluster`")
    w.add_argument("--scheduler", required=True, help="the Dask scheduler address, e.g. tls://head:8786")
    w.add_argument("--gpus", help="GPU indices to serve, e.g. 0,1 (default: every visible GPU)")
    w.add_argument(
        "--jobs-per-gpu",
        type=int,
        default=2,
        help="jobs run at once per GPU (default 2): one's compile and agent overlap another's GPU phase, which a "
        "per-GPU lock keeps exclusive",
    )
    _tls_options(w)

    k = sub.add_parser("certs", help="make a CA and a member certificate for a TLS eval cluster")
    k.add_argument("dir", help="folder to write ca.pem, ca.key, member.pem and member.key into")
    k.add_argument("--host", action="append", default=[], help="a host name or IP the members use (repeatable)")
    k.add_argument("--days", type=int, default=365, help="validity in days (default 365)")
    k.add_argument("--force", action="store_true", help="replace certificates already in the folder")


def _tls_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tls-ca-file", help="TLS: the CA certificate every cluster member trusts (PEM)")
    p.add_argument("--tls-cert", help="TLS: this member's certificate, signed by the CA (PEM)")
    p.add_argument("--tls-key", help="TLS: this member's private key (PEM)")
    p.add_argument(
        "--insecure-cluster",
        action="store_true",
        help="allow a plain-TCP scheduler that is not on loopback (anyone reaching it can run code on the workers)",
    )


def _common_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--prompt-level",
        choices=["plain", "guided"],
        default="plain",
        help="plain: the user's words (default); guided: names the transformation. A task without a plain prompt "
        "gets its guided one and the result says so",
    )
    p.add_argument(
        "--tasks-dir",
        action="append",
        help="a folder of task folders kept outside the repository (a private split); repeatable",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run every job on a Dask cluster: a scheduler address (tcp://host:8786) or local:N (N local workers); "
        "needs pip install 'kernelpilot[cluster]'",
    )
    p.add_argument(
        "--score-timeout",
        type=float,
        metavar="SECONDS",
        help="deadline for scoring one task, waits for the GPU excluded (default 3600); each stage also has its own "
        "(compile 900, oracle 1800, correctness 900, timing 1800). A candidate past one fails with 'timeout'",
    )
    p.add_argument(
        "--score-memory-gb",
        type=float,
        metavar="GB",
        help="memory cap for one task's scoring processes together (default: 80%% of the host's memory over the tasks "
        "that run at once). A candidate over it fails with 'out_of_memory'",
    )
    p.add_argument("--slurm-partition", help="start Dask workers as Slurm jobs on this GPU partition (dask-jobqueue)")
    p.add_argument("--slurm-gpus-per-node", type=int, default=1, help="GPUs per Slurm job; one worker per GPU")
    p.add_argument("--slurm-arch", default="sm_90", help="the partition's GPU architecture (sm_90, gfx942, …)")
    p.add_argument("--slurm-jobs", type=int, default=1, help="Slurm jobs (nodes) to request")
    p.add_argument("--slurm-account", help="Slurm account (-A)")
    p.add_argument("--slurm-walltime", default="04:00:00", help="per Slurm job")
    p.add_argument("--slurm-print-script", action="store_true", help="print the Slurm job script and stop")
    _tls_options(p)


def run(args: argparse.Namespace) -> int:
    cmd = getattr(args, "eval_command", None)
    if cmd == "run":
        return _run(args)
    if cmd == "leaderboard":
        return _leaderboard(args)
    if cmd == "controls":
        return _controls(args)
    if cmd == "tasks":
        return _tasks(args)
    if cmd == "ab":
        return _ab(args)
    if cmd == "worker":
        from evals.cluster import ClusterTLS
        from evals.cluster_workers import start_workers

        tls = ClusterTLS.from_options(args.tls_ca_file, args.tls_cert, args.tls_key)
        gpus = args.gpus.split(",") if args.gpus else None
        if args.jobs_per_gpu < 1:
            raise InputError(f"--jobs-per-gpu {args.jobs_per_gpu}: expected 1 or more")
        return start_workers(
            args.scheduler, gpus, tls=tls, insecure=args.insecure_cluster, jobs_per_gpu=args.jobs_per_gpu
        )
    if cmd == "certs":
        from evals.certs import make_certs

        if args.days < 1:
            raise InputError(f"--days {args.days}: expected 1 or more")
        files = make_certs(Path(args.dir), args.host, args.days, overwrite=args.force)
        print("\n".join(f"{name}: {path}" for name, path in files.items()))
        print("every member: --tls-ca-file ca.pem --tls-cert member.pem --tls-key member.key (keep ca.key apart)")
        return 0
    raise InputError("give an eval command", hint="kernelpilot eval run|ab|leaderboard|controls|tasks --help")


def _agent_name(args: argparse.Namespace) -> str:
    """The name results are stored under: the built-in agent's, ``--name``, or the first word of ``--agent-cmd``;
    refused (before anything is read or written) unless it is one plain folder name."""
    from evals.harness.runner import agent_name

    if getattr(args, "agent", None):
        return args.agent
    if args.name is not None:
        return agent_name(args.name, "--name")
    words = args.agent_cmd.split()
    if not words:
        raise InputError(
            "--agent-cmd is empty",
            hint="e.g. --agent-cmd 'claude -p {prompt}' (the prompt and the MCP config file are given as {prompt} and {mcp_config})",
        )
    return agent_name(Path(words[0]).name, "--name (taken from the first word of --agent-cmd)")


def _run(args: argparse.Namespace) -> int:
    from evals.catalog import load_tasks
    from evals.harness.agents import BUILTIN_AGENTS
    from evals.harness.runner import agent_dir
    from evals.metrics import run_metrics
    from tools.files import write_atomic

    if args.agent and args.agent not in BUILTIN_AGENTS:
        raise InputError(
            f"unknown agent '{args.agent}'", hint=f"built-ins: {', '.join(BUILTIN_AGENTS)}; or --agent-cmd"
        )
    name = _agent_name(args)
    tasks = load_tasks(args.tasks, tasks_dirs=args.tasks_dir)
    out = Path(args.out)
    runner = _runner(args)
    if runner is None:
        return 0
    with _says_how_to_resume(args):
        scores = runner(tasks, name, out, **_run_options(args))
    metrics = run_metrics(name, scores)
    write_atomic(agent_dir(out, name) / "summary.json", metrics.model_dump_json(indent=1), durable=True)
    if args.json:
        print(metrics.model_dump_json(indent=2))
    else:
        from evals.leaderboard import sol_cell

        fp = ", ".join(f"{k} {v:.0%}" for k, v in metrics.fast_p.items())
        sol = f"SOL score {sol_cell(metrics)} over {metrics.sol_scored_tasks} task(s)"
        print(
            f"{name}: {sol}; {metrics.passed}/{metrics.tasks} passed; compile {metrics.compile_rate:.0%}, correct "
            f"{metrics.correct_rate:.0%}, ISA {metrics.isa_pass_rate:.0%}; {fp}; geomean {metrics.geomean_speedup:.3f}× "
            f"(failed = 1.0×){f'; {metrics.incomplete} incomplete here' if metrics.incomplete else ''}; "
            f"prompts: {_levels(metrics.prompt_levels)}"
            + (
                f"; {metrics.infra_errors} infra error(s) left out of every rate (the harness's, not the agent's: "
                "re-run to score them)"
                if metrics.infra_errors
                else ""
            )
            + (
                f"; {metrics.undetermined} undetermined by the output oracle (an instruction kernelpilot check does "
                "not run), left out of every rate"
                if metrics.undetermined
                else ""
            )
        )
    return 0


def _runner(args: argparse.Namespace):
    """The suite runner the options ask for: this host's GPUs, a Dask cluster, or Dask workers on Slurm (None when
    only the Slurm job script was printed)."""
    import functools
    import shutil

    from evals.harness.runner import run_suite

    if args.cluster and args.slurm_partition:
        raise InputError(
            "give --cluster or --slurm-partition, not both",
            hint="--slurm-partition starts its own cluster; --cluster joins an existing one",
        )
    from evals.cluster import ClusterTLS

    tls = ClusterTLS.from_options(args.tls_ca_file, args.tls_cert, args.tls_key)
    if args.cluster:
        from evals.cluster import require_dask, run_suite_on_cluster, scheduler_address

        require_dask()
        if not args.cluster.startswith("local:"):
            scheduler_address(args.cluster, tls, args.insecure_cluster)  # refused before any work, not at the end
        return functools.partial(run_suite_on_cluster, cluster=args.cluster, tls=tls, insecure=args.insecure_cluster)
    if args.slurm_partition:
        from evals.cluster import require_dask, run_suite_on_cluster
        from evals.cluster_workers import slurm_cluster

        distributed = require_dask("--slurm-partition")
        cluster = slurm_cluster(
            args.slurm_partition,
            args.slurm_gpus_per_node,
            args.slurm_arch,
            walltime=args.slurm_walltime,
            account=args.slurm_account,
            tls=tls,
            insecure=args.insecure_cluster,
        )
        if args.slurm_print_script:
            print(cluster.job_script())
            cluster.close()
            return None
        if shutil.which("sbatch") is None:
            cluster.close()
            raise InputError(
                "--slurm-partition: sbatch is not on PATH here, so no Slurm job can be submitted",
                hint="run on the cluster's login node, or add --slurm-print-script to see the job script",
            )
        cluster.scale(jobs=args.slurm_jobs)
        client = distributed.Client(cluster, security=tls.security() if tls else None)
        return functools.partial(run_suite_on_cluster, cluster="slurm", client=client)
    return run_suite


def resume_command(args: argparse.Namespace) -> str:
    """The command line that resumes an interrupted ``eval run``/``eval ab``: the same options, without
    ``--no-resume`` (which would score the finished tasks again)."""
    import shlex

    words = ["kernelpilot", "eval", args.eval_command]
    for flag, value in (("--agent", getattr(args, "agent", None)), ("--agent-cmd", args.agent_cmd)):
        if value:
            words += [flag, value]
    if args.name:
        words += ["--name", args.name]
    for t in args.tasks or []:
        words += ["--tasks", t]
    for d in args.tasks_dir or []:
        words += ["--tasks-dir", d]
    words += ["--out", args.out]
    for flag, value in (("--jobs", args.jobs), ("--time-limit", args.time_limit), ("--cluster", args.cluster),
                        ("--score-timeout", args.score_timeout), ("--score-memory-gb", args.score_memory_gb)):  # fmt: skip
        if value is not None:
            words += [flag, str(value)]
    if args.prompt_level != "plain":
        words += ["--prompt-level", args.prompt_level]
    if args.slurm_partition:
        words += ["--slurm-partition", args.slurm_partition, "--slurm-gpus-per-node", str(args.slurm_gpus_per_node)]
        words += ["--slurm-arch", args.slurm_arch, "--slurm-jobs", str(args.slurm_jobs)]
        words += ["--slurm-walltime", args.slurm_walltime] + (
            ["--slurm-account", args.slurm_account] * bool(args.slurm_account)
        )
    for flag, value in (
        ("--tls-ca-file", args.tls_ca_file),
        ("--tls-cert", args.tls_cert),
        ("--tls-key", args.tls_key),
    ):
        if value:
            words += [flag, value]
    if args.insecure_cluster:
        words.append("--insecure-cluster")
    if args.json:
        words.append("--json")
    return shlex.join(words)


@contextlib.contextmanager
def _says_how_to_resume(args: argparse.Namespace):
    """On Ctrl-C or SIGTERM/SIGHUP (after the runner has stopped every task and said which were cut off): print the
    command that resumes the run, then let the interruption end the CLI (exit 130, or 128 + the signal)."""
    from tools.errors import Interrupted

    try:
        yield
    except (KeyboardInterrupt, Interrupted):
        print(f"to resume (finished tasks are kept, the rest are scored): {resume_command(args)}", flush=True)
        raise


def _levels(levels: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in levels.items()) or "–"


def _ab(args: argparse.Namespace) -> int:
    from evals.ab import run_ab, to_markdown
    from evals.catalog import load_tasks
    from tools.files import write_atomic

    name = _agent_name(args)
    if "@" in name:
        raise InputError(
            f"agent name '{name}' contains '@'", hint="the arms are stored as NAME@with-kernelpilot; --name"
        )
    tasks = load_tasks(args.tasks, tasks_dirs=args.tasks_dir)
    out = Path(args.out)
    runner = _runner(args)
    if runner is None:
        return 0
    with _says_how_to_resume(args):
        report = run_ab(tasks, name, out, runner, **_run_options(args))
    md = to_markdown(report)
    write_atomic(out / f"ab-{name}.md", md)
    print(report.model_dump_json(indent=2) if args.json else md)
    return 0


def _run_options(args: argparse.Namespace) -> dict:
    """The options ``eval run`` and ``eval ab`` pass to the runner alike."""
    return {
        "template": args.agent_cmd,
        "resume": not args.no_resume,
        "jobs": args.jobs,
        "time_limit": args.time_limit,
        "prompt_level": args.prompt_level,
        "score_timeout": args.score_timeout,
        "score_memory_gb": args.score_memory_gb,
    }


def _leaderboard(args: argparse.Namespace) -> int:
    from evals.leaderboard import build, skipped_lines, to_html, to_markdown
    from tools.files import write_atomic

    lb = build([Path(d) for d in args.dirs])
    if args.html:
        write_atomic(Path(args.html), to_html(lb))
        print(f"wrote {args.html}")
    if args.json:
        print(lb.model_dump_json(indent=2))
    if args.md or not (args.json or args.html):
        print(to_markdown(lb))  # its last lines name the result files left out
    elif lb.skipped:
        import sys

        print(f"note: left out {len(lb.skipped)} result file(s) that could not be ranked:", file=sys.stderr)
        print("\n".join(f"  {line}" for line in skipped_lines(lb)), file=sys.stderr)
    return 0


def _controls(args: argparse.Namespace) -> int:
    import sys

    from evals.controls import run_controls

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr if args.json else sys.stdout, flush=True)

    results = run_controls(Path(args.out) if args.out else None, args.only, progress=progress)
    if args.json:
        print(json.dumps([r.model_dump() for r in results], indent=2))
    missed = [r for r in results if r.missed]
    ran = sum(1 for r in results if r.ran)
    skipped = [r for r in results if not r.ran]
    why = "; ".join(f"{r.name}: {r.note}" for r in skipped)
    print(
        f"{ran - len(missed)}/{ran} controls caught"
        + (f"; {len(missed)} MISSED: {', '.join(r.name for r in missed)}" if missed else "")
        + (f"; {len(skipped)} skipped here ({why})" if skipped else "")
    )
    return 1 if missed else 0  # skipped controls could not run here: only a real miss fails


def _tasks(args: argparse.Namespace) -> int:
    from evals.catalog import load_tasks
    from evals.harness.agents import BUILTIN_AGENTS

    if args.agents:
        for name, what in BUILTIN_AGENTS.items():
            print(f"{name:<24} {what}")
        return 0
    tasks = load_tasks(tasks_dirs=args.tasks_dir)
    if args.json:
        rows = [
            {**t.spec.model_dump(), "reference_changed_lines": t.reference_changed_lines, "folder": str(t.dir)}
            for t in tasks
        ]
        print(json.dumps(rows, indent=2))
        return 0
    width = max((len(t.id) for t in tasks), default=0) + 1  # ids vary in length; keep the columns aligned
    print(f"{'id':<{width}} {'track':<12} {'lang':<7} {'difficulty':<10} {'ref±':>5} {'prompt':<6} {'archs':<14} title")
    for t in tasks:
        plain = "plain" if t.spec.prompt_plain else "guided"
        print(
            f"{t.id:<{width}} {t.spec.track:<12} {t.spec.language:<7} {t.spec.difficulty:<10} "
            f"{t.reference_changed_lines:>5} {plain:<6} {','.join(t.spec.archs):<14} {t.spec.title}"
        )
    print(f"{len(tasks)} tasks; ref± = lines the reference solution changes; prompt = the richest level it has")
    return 0
