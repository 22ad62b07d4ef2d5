"""Run one agent over a set of tasks: one worker per GPU (``CUDA_VISIBLE_DEVICES``/``HIP_VISIBLE_DEVICES`` set per
worker), one task at a time per worker; each result written atomically to ``OUT/<agent>/<task>.json`` so an
interrupted run resumes where it stopped.
"""

from __future__ import annotations

import functools
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evals.catalog import Task
from evals.harness.agents import prompt_for, run_agent
from evals.harness.devices import gpu_slots, probe_runtime
from evals.harness.limits import SCORE_DEADLINE_S, ScoreLimits, default_memory_cap
from evals.harness.scoring import score_isolated
from evals.harness.workspace import DiffCheck, GitFailed, capture_diff, check_task_files, create_workspace, scoring_copy
from evals.models import TaskScore, read_score
from tools.errors import Cancelled, InputError, Interrupted, stops_held
from tools.executors import cancel_thread, release_thread
from tools.files import write_atomic


def agent_name(name: str, option: str = "--name") -> str:
    """``name`` when it can name the agent's results folder ``OUT/<name>``: one plain path component of printable
    characters. ``..`` made the folder OUT's parent (a task's ``rmtree`` removed a user's folder beside OUT), ``.``
    OUT itself. InputError naming ``option`` otherwise."""
    bad = not name or name in (".", "..") or len(name) > 200 or any(c in "/\\" or not c.isprintable() for c in name)
    if bad:
        raise InputError(
            f"{option} {name!r}: an agent name must be one plain folder name (it names OUT/<name>), not empty, "
            "'.', '..', or with '/', '\\' or control characters",
            hint="e.g. --name claude-sonnet; letters, digits, '-', '_', '.' and '@' are fine",
        )
    return name


def agent_dir(out: Path, agent: str) -> Path:
    """The agent's results folder, always a child of ``out`` (``agent_name`` refuses what is not)."""
    return out / agent_name(agent.replace("/", "_"), "agent")


def score_limits(score_timeout: float | None, score_memory_gb: float | None, parallel: int) -> ScoreLimits:
    """The limits of one scoring from the run's options (None: the defaults of ``evals.harness.limits``)."""
    memory = int(score_memory_gb * 2**30) if score_memory_gb else default_memory_cap(parallel)  # this host scores
    return ScoreLimits(total_s=score_timeout or SCORE_DEADLINE_S, memory_bytes=memory)


def run_one(
    task: Task,
    agent: str,
    template: str | None,
    out: Path,
    slot: str | None,
    time_limit: float | None = None,
    *,
    static: bool = True,
    prompt_level: str = "guided",
    plugin: bool | None = None,
    limits: ScoreLimits | None = None,
) -> TaskScore:
    """Workspace → agent → diff → fresh scoring copy → score (under ``limits``: deadlines and the memory cap);
    never raises for the agent's faults."""
    adir = agent_dir(out, agent)
    tdir = adir / task.id
    shutil.rmtree(tdir, ignore_errors=True)
    tdir.mkdir(parents=True)
    env = {} if slot is None else {"CUDA_VISIBLE_DEVICES": slot, "HIP_VISIBLE_DEVICES": slot}
    with tempfile.TemporaryDirectory(prefix=f"kp-eval-{task.id}-") as tmp:
        tmp = Path(tmp)
        ws = tmp / "workspace"
        base = create_workspace(task, ws, keep_git=tmp / "base.git")
        outcome = run_agent(agent, template, task, ws, tdir, env, time_limit, prompt_level=prompt_level, plugin=plugin)
        try:
            diff = capture_diff(ws, base, task.spec.editable, git_dir=tmp / "base.git")
        except GitFailed as exc:  # e.g. a workspace too large to capture in time: the agent's doing
            diff = DiffCheck("", [], problems=[f"the agent's change could not be captured: {exc}"])
        (tdir / "change.patch").write_text(diff.patch)
        problems = [f"edits outside the allowed paths: {', '.join(diff.outside)}"] if diff.outside else []
        problems += diff.problems
        code = tmp / "scored"
        base_dir = tmp / "baseline"
        try:
            scoring_copy(task, diff.patch, code)
        except Exception as exc:  # a patch that does not apply is the agent's fault, scored as such
            problems.append(f"the change does not apply to a fresh copy: {str(exc).splitlines()[-1][:200]}")
            scoring_copy(task, "", code)
        scoring_copy(task, "", base_dir)
        runtime = probe_runtime(slot)
        result = score_isolated(
            task,
            code,
            base_dir,
            tmp / "work",
            runtime,
            changed=diff.changed,
            diff_problems=problems,
            agent=agent,
            base_commit=base,
            static=static,
            limits=limits,
        )
    if outcome.timed_out:
        result.reasons.insert(0, f"the agent ran out of time ({outcome.duration_s:.0f} s)")
    elif outcome.returncode:
        result.flags.insert(0, f"the agent exited with status {outcome.returncode}")
    if outcome.leftover_processes:
        n, cmds = len(outcome.leftover_processes), "; ".join(outcome.leftover_processes[:5])
        result.flags.append(f"the agent left {n} process(es) running outside its session, killed when it ended: {cmds}")
    result.agent_outcome = outcome
    result.prompt_level = prompt_for(task, prompt_level)[1]
    if result.prompt_level != prompt_level:
        result.flags.append(f"prompt: this task has no {prompt_level} prompt; the agent got the guided one")
    write_atomic(adir / f"{task.id}.json", result.model_dump_json(indent=1), durable=True)
    return result


def stored_score(f: Path, progress: Callable[[str], None], task_id: str) -> TaskScore | None:
    """The result stored in ``f``, or None (said through ``progress``) when it cannot be read back: such a task is
    scored again, and its new result replaces ``f``."""
    try:
        return read_score(f)
    except InputError as exc:
        progress(f"{task_id}: {exc.message}; scoring the task again")
        return None


def already_scored(
    tasks: list[Task], adir: Path, resume: bool, prompt_level: str, progress: Callable[[str], None]
) -> tuple[dict[str, TaskScore], list[Task]]:
    """Split ``tasks`` into those with a stored result at this prompt level (loaded) and those still to run."""
    results: dict[str, TaskScore] = {}
    todo = []
    for t in tasks:
        f = adir / f"{t.id}.json"
        stored = stored_score(f, progress, t.id) if resume and f.exists() else None
        if stored is not None and stored.prompt_level != prompt_for(t, prompt_level)[1]:
            stored = None  # scored at another prompt level: not this run's result
        if stored is not None and not stored.infra_error:  # an infra_error is the harness's: score it again
            results[t.id] = stored
            progress(f"{t.id}: already scored, skipped")
        else:
            todo.append(t)
    return results, todo


def result_line(task_id: str, r: TaskScore, where: str) -> str:
    """The progress line of one finished task: its verdict, speedup, where it ran and (a FAIL) the first reason."""
    verdict = "PASS" if r.passed else "FAIL"
    why = "" if r.passed else f" — {r.reasons[0] if r.reasons else 'no reason recorded'}"
    sp = f" {r.speedup:.2f}×" if r.speedup else ""
    return f"{task_id}: {verdict}{sp} [{where}]{why}"


def _task_slots(jobs: int | None) -> list[str | None]:
    """One entry per task that runs at once: a GPU id (each GPU ``jobs`` times, 2 by default) or None (the CPU)."""
    slots = gpu_slots()
    if slots == [None] and jobs and jobs > 1:
        slots = [None] * jobs
    elif slots != [None]:
        # two tasks per GPU by default: one's CPU work (workspace, agent, compile) overlaps the other's GPU phase,
        # which scoring.gpu_lock keeps exclusive, so kernels never share the GPU while one is timed
        slots = [s for s in slots for _ in range(max(1, jobs or 2))]
    return slots


def _scored_or_infra_error(task: Task, run: Callable[[], TaskScore], stopping: threading.Event, agent: str,
                           prompt_level: str, adir: Path) -> TaskScore | None:  # fmt: skip
    """``run()``'s score; a harness failure is retried once, then recorded (and written) as an infra_error, not a
    FAIL. None when the failure came from the run stopping (``stopping`` set): the task is cut off, no result."""
    for _attempt in (1, 2):
        try:
            return run()
        except Exception as exc:  # not traceback.format_exc: its 3.11 carets call ast.parse in this thread
            if stopping.is_set():
                return None
            why = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
    r = TaskScore(task_id=task.id, track=task.spec.track, agent=agent, passed=False, complete=False)
    r.prompt_level = prompt_for(task, prompt_level)[1]
    r.record_infra_error(f"the harness failed twice on this task: {why}")
    write_atomic(adir / f"{task.id}.json", r.model_dump_json(indent=1), durable=True)
    return r


def _report_stop(stop: Callable[[], list[str]], todo: list[Task], results: dict, progress: Callable[[str], None]):
    """Stops the workers and prints what the stop cut off. ``stops_held`` ignores stops from the moment it is entered;
    one that lands before (the main thread's own raise, then the signal's handler at the next bytecode: seen in
    .ci/run, no report line) starts the report again, once per stop."""
    while True:
        try:
            with stops_held():
                cut = stop()
                waiting = [t.id for t in todo if t.id not in results and t.id not in cut]
                kept = sum(1 for t in todo if t.id in results)
                progress(
                    f"interrupted: {len(cut)} running task(s) cut off ({', '.join(cut) or 'none'}) and "
                    f"{len(waiting)} not started; none of them has a result (re-running the command scores "
                    f"them); the {kept} task(s) finished in this run keep theirs"
                )
            return
        except (KeyboardInterrupt, Interrupted):
            continue


def run_suite(
    tasks: list[Task],
    agent: str,
    out: Path,
    *,
    template: str | None = None,
    resume: bool = True,
    jobs: int | None = None,
    time_limit: float | None = None,
    progress: Callable[[str], None] = print,
    prompt_level: str = "plain",
    plugin: bool | None = None,
    score_timeout: float | None = None,
    score_memory_gb: float | None = None,
) -> list[TaskScore]:
    """Every task once; finished tasks (a result file at the same prompt level exists) are loaded, not re-run,
    when ``resume``. A task folder whose workspace links out of it stops the run before any agent starts.
    ``score_timeout``: seconds for scoring one task (waits for the GPU excluded); ``score_memory_gb``: the cap on one
    scoring's processes together (default: 80 % of this host's memory over the tasks that run at once)."""
    for t in tasks:
        check_task_files(t)
    adir = agent_dir(out, agent)
    results, todo = already_scored(tasks, adir, resume, prompt_level, progress)
    slots = _task_slots(jobs)
    limits = score_limits(score_timeout, score_memory_gb, len(slots))
    free: queue.Queue = queue.Queue()
    for s in slots:
        free.put(s)
    lock = threading.Lock()
    running: dict[str, int] = {}  # task id -> ident of the thread running it (cancel_thread stops its commands)
    # tasks whose scoring the stop broke before stop_workers saw them running (a terminal's Ctrl-C reaches the
    # scoring children too, which can unwind and leave ``running`` before the main thread's handler runs)
    broken: set[str] = set()
    stopping = threading.Event()

    def work(task: Task) -> None:
        ident = threading.get_ident()
        with lock:  # checked and registered under the lock: a task is either never started or seen by stop_workers
            if stopping.is_set():
                return
            running[task.id] = ident
        slot = free.get()
        try:
            run = functools.partial(run_one, task, agent, template, out, slot, time_limit, prompt_level=prompt_level,
                                    plugin=plugin, limits=limits)  # fmt: skip
            r = _scored_or_infra_error(task, run, stopping, agent, prompt_level, adir)
            if r is None:
                with lock:
                    broken.add(task.id)
                return  # broken by the stop, not by the harness: cut off, no result
        except Cancelled:
            with lock:
                broken.add(task.id)
            return  # the run is stopping: the task was cut off and leaves no result (the run's summary counts it)
        finally:
            with lock:
                running.pop(task.id, None)
            release_thread(ident)
            free.put(slot)
        with lock:
            results[task.id] = r
            progress(result_line(task.id, r, "gpu " + slot if slot else "cpu"))

    def stop_workers(pool: ThreadPoolExecutor) -> list[str]:
        """Queued tasks dropped, running ones cancelled (agent, compiler and scoring processes killed); returns
        once every worker has unwound. Further SIGINT/SIGTERM only repeat the stop (``timeout`` sends its signal
        twice: to the command, then to its process group)."""
        stopping.set()
        cut: set[str] = set()
        while True:
            try:
                with lock:
                    cut |= set(running) | broken
                    for ident in running.values():
                        cancel_thread(ident)
                pool.shutdown(wait=True, cancel_futures=True)
                return [t.id for t in todo if t.id in cut and t.id not in results]  # some finished meanwhile
            except (KeyboardInterrupt, Interrupted):
                continue

    pool = ThreadPoolExecutor(max_workers=len(slots))
    try:
        futures = [pool.submit(work, t) for t in todo]
        for f in futures:
            f.result()
        if any(t.id not in results for t in todo):
            # a worker ends without a result only when a stop cut its task off (Ctrl-C reaches the scoring children
            # first); the main thread's own KeyboardInterrupt may land after this point: stop as it would
            raise KeyboardInterrupt
    except (KeyboardInterrupt, Interrupted):
        # a terminal's Ctrl-C reaches the whole group, often twice: a second stop landing while this one is being
        # reported cut the report off (seen once under load, .ci/run 2026-12-02)
        _report_stop(lambda: stop_workers(pool), todo, results, progress)
        raise
    finally:
        pool.shutdown(wait=True)
    return [results[t.id] for t in tasks]
