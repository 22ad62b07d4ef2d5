"""Score one candidate: diff gate → static checks → compile (dump-ir) → ISA checks → correctness on fresh inputs
and hidden shapes → interleaved timing against the baseline, with timed calls re-checked → a TaskScore with reasons.

Every kernel execution happens in ``evals.harness.child`` processes: the reference, the baseline and the candidate
each in their own, with inputs drawn from a secret per-run seed.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import random
import secrets
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evals.catalog import Task
from evals.harness.correctness import check_cases, compare, correctness_cases, start_check_processes
from evals.harness.devices import Runtime
from evals.harness.isa_checks import NEEDS_BASELINE, run_isa_checks
from evals.harness.limits import WAIT_STAGES, ScoreLimits, enter_stage, set_stage_sink
from evals.harness.oracle import llvm_cpu_oracle
from evals.harness.predicted_speed import predicted_speed, predicted_speed_scored
from evals.harness.processes import ProcessTracker
from evals.harness.static_checks import static_checks
from evals.harness.timing import (
    clears,
    gpu_lock,
    quiet_lock,
    start_timing_servers,
    stop_timing_servers,
    summarize_rounds,
    time_candidate,
)
from evals.metrics import geomean
from evals.models import CheckOutcome, StageCode, TaskScore
from tools.errors import CompileError, KernelpilotError, ToolchainError
from tools.executors import die_with_parent
from tools.models.dump import KernelDump

__all__ = [  # the harness's public names (correctness and timing live in their own modules)
    "check_cases",
    "compare",
    "compile_targets",
    "correctness_cases",
    "gpu_lock",
    "options_unchanged",
    "predicted_speed",
    "predicted_speed_scored",
    "score",
    "score_isolated",
    "start_timing_servers",
    "stop_timing_servers",
    "summarize_rounds",
    "time_candidate",
    "verdict",
]


# --- compile and ISA ------------------------------------------------------------------------------------------


def compile_targets(task: Task, code_dir: Path) -> tuple[list[KernelDump], list[tuple[StageCode, str]], bool]:
    """Compile every target for every arch; returns (kernels, failures as (code, reason), toolchain_missing)."""
    from tools.dump_ir import dump_ir

    kernels: list[KernelDump] = []
    failures: list[tuple[StageCode, str]] = []
    missing = False
    for target in task.spec.compile:
        for arch in target.archs or task.spec.archs:
            try:
                kernels += dump_ir(code_dir / target.file, arch, frontend=target.frontend, timeout=300).kernels
            except ToolchainError as exc:
                missing = True
                failures.append(("toolchain_missing", f"cannot compile {target.file} for {arch} here: {exc.message}"))
            except (CompileError, KernelpilotError) as exc:
                detail = " | ".join((exc.details or "").strip().splitlines()[-3:])
                failures.append(
                    ("compile_failed", f"{target.file} does not compile for {arch}: {exc.message} {detail}")
                )
    return kernels, failures, missing


def _triton_options(kernel: KernelDump) -> dict:
    meta = Path(kernel.final_isa or "").parent / "metadata.json"
    if kernel.frontend != "triton" or not meta.is_file():
        return {}
    return json.loads(meta.read_text())


def options_unchanged(task: Task, base: list[KernelDump], cand: list[KernelDump]) -> list[CheckOutcome]:
    """When the task fixes compiler options, the candidate's Triton options must equal the baseline's."""
    perf = task.spec.performance
    if perf is None or perf.compiler_options_may_change:
        return []
    base_by = {(k.name, k.arch): _triton_options(k) for k in base}
    out = []
    for k in cand:
        b, c = base_by.get((k.name, k.arch)), _triton_options(k)
        if not b or not c:
            continue
        diff = {o: (b.get(o), c.get(o)) for o in perf.fixed_options if b.get(o) != c.get(o)}
        out.append(
            CheckOutcome(
                name="compiler options unchanged",
                passed=not diff,
                detail=f"{k.name} on {k.arch}: "
                + ("same " + ", ".join(perf.fixed_options) if not diff else f"changed (baseline, candidate): {diff}"),
                arch=k.arch,
                kernel=k.name,
            )
        )
    return out


# --- the whole score ------------------------------------------------------------------------------------------


def verdict(s: TaskScore, required: set[StageCode]) -> tuple[bool, StageCode | None]:
    """Passed exactly when the scoring is complete, no stage failed, and every stage in ``required`` (the ones this
    task and host must run, e.g. ``faster`` on a GPU) succeeded; else the first failing or missing code."""
    failed = next((o.code for o in s.outcomes if not o.passed), None)
    if failed:
        return False, failed
    missing = [c for c in ("compiled", "isa_ok", "correct", "faster") if c in required]
    missing = [c for c in missing if not any(o.code == c and o.passed for o in s.outcomes)]
    if missing:
        return False, {"compiled": "compile_failed", "correct": "oracle_mismatch", "faster": "slower"}.get(
            missing[0], "isa_check_failed"
        )
    return (True, None) if s.complete else (False, "needs_gpu")


def _compile_and_isa(
    task: Task, code_dir: Path, base_dir: Path, s: TaskScore
) -> tuple[list[KernelDump], list[KernelDump]]:
    """Compile the candidate (and the baseline when a check or the predicted speed compares with it), at once; then
    the ISA checks. Returns (baseline kernels, candidate kernels) for the predicted-speed stage."""
    spec = task.spec
    fixed = spec.performance is not None and not spec.performance.compiler_options_may_change
    vs_baseline = any(c.check in NEEDS_BASELINE for c in spec.isa_checks) or predicted_speed_scored(task)
    with ThreadPoolExecutor(2) as pool:  # two dump-ir processes; the cache keeps an entry per folder, so never a clash
        cand_job = pool.submit(compile_targets, task, code_dir)
        base_job = pool.submit(compile_targets, task, base_dir) if fixed or vs_baseline else None
        kernels, failures, missing = cand_job.result()
        base_kernels = base_job.result()[0] if base_job else []
    for code, reason in failures:
        s.record(code, False, reason)
    if not kernels and not failures:
        s.record("compile_failed", False, "no kernel compiled (the task's compile targets produced none)")
    s.compiled = bool(kernels) and not failures
    if missing:
        s.complete = False
    if not s.compiled:
        return base_kernels, kernels
    s.record("compiled", True, f"{len(kernels)} kernel(s)")
    checks = run_isa_checks(spec.isa_checks, kernels, base_kernels) + options_unchanged(task, base_kernels, kernels)
    s.checks += checks
    s.isa_ok = all(c.passed for c in checks)
    for c in checks:
        if not c.passed:
            s.record("isa_check_failed", False, f"ISA check failed: {c.name}: {c.detail}")
    if s.isa_ok:
        s.record("isa_ok", True, f"{len(checks)} check(s)")
    return base_kernels, kernels


def _correctness(task, code_dir, work, runtime, s, rng, procs, interpret) -> None:
    cases = correctness_cases(task, rng)
    outcomes, errs = check_cases(task, code_dir, work, runtime, cases, interpret=interpret, timeout=600, procs=procs)
    s.cases += outcomes
    for code, reason in errs:
        s.record(code, False, reason)
    s.correct = not errs and bool(outcomes) and all(o.passed for o in outcomes)
    bad = next((o for o in outcomes if not o.passed), None)
    if bad:
        hidden = "hidden " if bad.hidden else ""
        s.record("oracle_mismatch", False, f"incorrect on {hidden}case {bad.case}: {bad.detail}")
    elif s.correct:
        s.record("correct", True, f"{len(outcomes)} case(s)")


def _timing(task, code_dir, base_dir, work, runtime, s, rng, servers, confirm, reference) -> None:
    perf = task.spec.performance
    timings, rechecks, failures = time_candidate(
        task, code_dir, base_dir, work, runtime, rng, servers, reference, confirm=confirm
    )
    s.timings = timings
    for code, reason in failures:
        s.record(code, False, reason)
    s.cases += rechecks
    bad = [r for r in rechecks if not r.passed]
    if bad:
        s.correct = False
        s.record("oracle_mismatch", False, f"a timed call returned a wrong result: {bad[0].case}: {bad[0].detail}")
    if not timings or failures:
        return
    s.speedup = geomean([t.speedup for t in timings])
    s.speedup_ci = (geomean([t.ci_low for t in timings]), geomean([t.ci_high for t in timings]))
    fr = [t.fraction_of_sol for t in timings if t.fraction_of_sol]
    s.fraction_of_sol = geomean(fr) if fr else None
    s.flags += [f for t in timings for f in t.flags]
    ci = f"speedup {s.speedup:.3f}× (95 % CI {s.speedup_ci[0]:.3f}–{s.speedup_ci[1]:.3f})"
    if not clears(timings, perf.required_speedup):  # the same rule that decides a confirmation session
        s.record("slower", False, f"not faster: {ci} does not clear {perf.required_speedup}×")
    else:
        s.record("faster", True, ci)


def _diff_and_static_gates(task, code_dir, s, changed, diff_problems, static: bool) -> None:
    """The diff gate's problems and the static checks' findings recorded on ``s`` (with ``static`` off, a finding is
    a flag only: controls switch the gate off to prove the runtime defences on their own)."""
    spec = task.spec
    if diff_problems:
        s.diff_ok = False
        for problem in diff_problems:
            s.record("diff_rejected", False, problem)
    enter_stage("static checks", s)
    found = static_checks(code_dir, changed, forbidden=spec.forbidden_calls, allow_streams=spec.allow_streams)
    if not static and found:
        s.flags += [f"static check (not enforced): {f.name}: {f.detail}" for f in found]
        found = []
    if found:
        s.static_ok = False
        s.checks += found
        for f in found:
            s.record("static_check", False, f"static check: {f.name}: {f.detail}")


def _correctness_stage(task, code_dir, work, runtime, s, rng, checkers, interpret) -> None:
    """Correctness by whatever this host can run: the LLVM IR on the CPU, the kernel processes (GPU or Triton's
    interpreter), or a flag / ``needs_gpu`` saying why it did not run."""
    spec, c = task.spec, task.spec.correctness
    if c and s.static_ok and c.oracle == "llvm-cpu":
        llvm_cpu_oracle(task, code_dir, work, s, rng)  # amd-static: the LLVM IR on the CPU (harness/oracle.py)
    elif checkers:
        _correctness(task, code_dir, work, runtime, s, rng, checkers, interpret)
    elif c and s.static_ok and spec.track == "amd-static":
        s.flags.append(f"correctness not run: {spec.language} needs a ROCm GPU (the amd-static track scores ISA here)")
    elif c and s.static_ok:
        s.complete = False
        s.record("needs_gpu", False, f"correctness needs a GPU for {spec.language} (none here)")
    elif c is None and spec.track == "amd-static":
        s.flags.append("no output oracle: this task is scored on its compiled ISA only")


def score(
    task: Task,
    code_dir: Path,
    base_dir: Path,
    work: Path,
    runtime: Runtime,
    *,
    changed: list[str],
    diff_problems: list[str],
    agent: str,
    base_commit: str = "",
    static: bool = True,
) -> TaskScore:
    """The full verdict for one candidate folder (already a fresh copy with the agent's patch applied)."""
    t0 = time.perf_counter()
    spec = task.spec
    rng = random.Random(secrets.randbits(64))
    s = TaskScore(
        task_id=spec.id, track=spec.track, agent=agent, passed=False, base_commit=base_commit, device=runtime.name
    )
    s.sol_defined = bool(spec.performance and (spec.performance.bytes or spec.performance.flops)) or (
        predicted_speed_scored(task)  # the predictor's bytes at the device's peak bandwidth
    )
    s.changed_files = changed
    work.mkdir(parents=True, exist_ok=True)
    _diff_and_static_gates(task, code_dir, s, changed, diff_problems, static)
    if not s.diff_ok:
        s.passed, s.code = verdict(s, set())
        s.seconds = round(time.perf_counter() - t0, 2)
        return s  # nothing outside the allowlist is ever executed

    c, perf = spec.correctness, spec.performance
    on_gpu = runtime.has_gpu and c is not None and s.static_ok and c.oracle != "llvm-cpu"
    interpret = not runtime.has_gpu and c is not None and c.cpu_interpret and spec.language == "triton"
    # The kernel processes start now: their torch import overlaps the compile below and any other task's GPU phase;
    # they touch the GPU only once this scoring holds the GPU lock (see correctness.KernelProcess.go).
    gpu_phase = contextlib.ExitStack()  # closed before returning: the GPU lock and any process still running
    checkers = servers = confirm = None
    with gpu_phase:
        # CPU-heavy work (imports, compiles) waits while another scoring on this GPU runs its timed rounds
        cpu_heavy = quiet_lock(runtime, shared=True) if runtime.has_gpu else contextlib.nullcontext()
        if runtime.has_gpu:
            enter_stage("waiting for the GPU", s)
        with cpu_heavy:
            enter_stage("compile", s)
            if on_gpu or (interpret and s.static_ok and c.oracle != "llvm-cpu"):
                checkers = start_check_processes(task, code_dir, work, runtime, interpret=interpret)
                gpu_phase.callback(lambda: [p.close() for p in checkers.values()])
            # a task scored on its predicted time is not timed here: its performance figures are its SOL floor
            if on_gpu and perf and not predicted_speed_scored(task):
                servers = start_timing_servers(task, code_dir, base_dir, work, runtime)
                gpu_phase.callback(stop_timing_servers, servers)  # a no-op kill when timing already stopped them
                # the confirmation session's fresh processes import torch now too, not while this scoring holds the
                # GPU; they are killed unused when the first session does not clear the bar
                confirm = start_timing_servers(task, code_dir, base_dir, work / "confirm", runtime, caches=work)
                gpu_phase.callback(stop_timing_servers, confirm)
            base_kernels, kernels = _compile_and_isa(task, code_dir, base_dir, s)
            for proc in [*(checkers or {}).values(), *(servers or {}).values(), *(confirm or {}).values()]:
                proc.wait_ready()
        if runtime.has_gpu:
            enter_stage("waiting for the GPU", s)
            gpu_phase.enter_context(gpu_lock(runtime))
        enter_stage("oracle" if c and c.oracle == "llvm-cpu" else "correctness", s)
        for proc in (servers or {}).values():
            proc.go()  # CUDA context, flush buffer, kernel module: while correctness runs, not after it
        _correctness_stage(task, code_dir, work, runtime, s, rng, checkers, interpret)
        if predicted_speed_scored(task) and s.compiled and s.correct is not False:
            predicted_speed(task, base_kernels, kernels, s)
        timed_needed = spec.track == "gpu-runtime" and perf is not None
        if servers and s.correct:
            enter_stage("timing", s)
            _timing(task, code_dir, base_dir, work, runtime, s, rng, servers, confirm, checkers["reference"])
        elif timed_needed and not runtime.has_gpu:
            s.complete = False
            s.record("needs_gpu", False, "timing needs a GPU (none here)")

    required: set[StageCode] = {"compiled"}
    if c is not None and (runtime.has_gpu or spec.track != "amd-static" or c.oracle == "llvm-cpu" or interpret):
        required.add("correct")
    if (timed_needed and runtime.has_gpu) or predicted_speed_scored(task):
        required.add("faster")
    s.passed, s.code = verdict(s, required)
    s.seconds = round(time.perf_counter() - t0, 2)
    return s


_STOPPED = threading.Event()  # in a scoring process: a stop signal arrived (the scoring unwinds once)


def _stop_scoring(signum, frame) -> None:
    """In a scoring process, on SIGTERM/SIGINT/SIGHUP (the run is stopping): every thread's command in flight is
    killed with its process group (a compile running in ``_compile_and_isa``'s pool included), then the scoring
    unwinds, closing its kernel processes. A second signal (the group's and the parent's) does not interrupt that."""
    from tools.errors import Interrupted
    from tools.executors import cancel_thread

    for t in threading.enumerate():
        if t.ident is not None:
            cancel_thread(t.ident)
    if _STOPPED.is_set():
        return
    _STOPPED.set()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Interrupted(signum)


def _score_child(conn, task: Task, code_dir: Path, base_dir: Path, work: Path, runtime: Runtime, kwargs: dict):
    """The scoring process: ``("stage", name, partial score)`` as each stage starts, then one message,
    ``("score", TaskScore)``, ``("error", text)``, or ``("oom", text)`` when it ran out of memory."""
    die_with_parent(signal.SIGTERM)  # killed (SIGTERM) when the process that started it dies: never left orphaned
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _stop_scoring)
    set_stage_sink(conn)
    try:
        message = ("score", score(task, code_dir, base_dir, work, runtime, **kwargs))
    except MemoryError as exc:  # an allocation the candidate caused (its kernel's buffers, a huge grid)
        message = ("oom", f"MemoryError: {str(exc).strip()[:300]}")
    except BaseException as exc:  # sent back as text: the parent decides between a retry and a stop
        message = ("error", f"{type(exc).__name__}: {str(exc).strip()[:300]}")
    try:
        conn.send(message)
    except OSError:  # the parent stopped waiting (the run is stopping): nobody to tell
        pass
    finally:
        _STOPPED.set()  # done: a stop signal from now on (during the interpreter's exit) has nothing to unwind
        conn.close()


# a scoring process ended by one of these was stopped from outside (``timeout``, Ctrl-C, ``kill``): the run is
# stopping, so it is not retried; SIGKILL (the OOM killer) and crashes are the harness's failures, retried once
_STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
_HARNESS_STAGES = WAIT_STAGES | {"starting"}  # past a deadline here, the harness (not the candidate) was slow


def _past_limits(limits: ScoreLimits, stage: str, in_stage: float, active: float) -> str | None:
    """Why the scoring must stop now (a deadline passed), or None."""
    if in_stage > limits.stage_s(stage):
        return f"the {stage} stage ran past its deadline of {limits.stage_s(stage):.0f} s"
    if stage not in WAIT_STAGES and active > limits.total_s:
        return f"the scoring ran past its deadline of {limits.total_s:.0f} s (waits excluded), in the {stage} stage"
    return None


def _cut_off(task: Task, runtime: Runtime, kwargs: dict, partial: str | None, code: StageCode, stage: str, why: str):
    """The score when a stage was stopped for the candidate's doing: what was scored before it, plus the stage."""
    s = TaskScore.model_validate_json(partial) if partial else None
    s = s or TaskScore(task_id=task.spec.id, track=task.spec.track, agent=kwargs.get("agent", ""), passed=False,
                       device=runtime.name, base_commit=kwargs.get("base_commit", ""))  # fmt: skip
    s.record(code, False, why)
    s.outcomes[-1].stage = stage
    s.passed, s.code = verdict(s, set())
    return s


def _score_once(
    task: Task, code_dir: Path, base_dir: Path, work: Path, runtime: Runtime, kwargs: dict, limits: ScoreLimits
) -> TaskScore:
    """``score`` in a fresh spawned process, under ``limits``: past a stage's or the whole scoring's deadline, or over
    the memory cap (every process it started counted, found through /proc), the process and everything it started
    are killed at once and the score so far comes back with ``timeout``/``out_of_memory`` naming the stage. Raises
    ``Cancelled`` when this thread's job is cancelled or the process was stopped by a signal, ``RuntimeError`` when
    scoring itself failed (or a wait for the GPU ran past its deadline)."""
    from tools.errors import Cancelled
    from tools.executors import thread_cancelled

    if thread_cancelled():  # the run stopped while this thread was between two scorings: start none
        raise Cancelled("cancelled before scoring")
    ctx = multiprocessing.get_context("spawn")
    reader, writer = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_score_child, args=(writer, task, code_dir, base_dir, work, runtime, kwargs))
    proc.start()
    writer.close()
    tracker = ProcessTracker(roots=(proc.pid,))
    t0 = stage_t0 = last_scan = time.monotonic()
    stage, partial, waited, cap = "starting", None, 0.0, limits.memory_cap
    spent: dict[str, float] = {}  # wall seconds per stage, as this process saw the markers arrive
    answered = False  # a message came back: the process is exiting on its own (torch's exit hooks take a moment)
    try:
        while True:
            if thread_cancelled():
                raise Cancelled("cancelled while scoring")
            now = time.monotonic()
            active = now - t0 - waited - (now - stage_t0 if stage in WAIT_STAGES else 0.0)
            why, code = _past_limits(limits, stage, now - stage_t0, active), "timeout"
            if why is None and now - last_scan >= 0.5:
                last_scan = now
                rss = tracker.rss_bytes(tracker.scan())
                if rss > cap:
                    why, code = (f"the scoring processes used {rss / 2**30:.1f} GB, over the cap of "
                                 f"{cap / 2**30:.1f} GB, in the {stage} stage"), "out_of_memory"  # fmt: skip
            if why is not None and not reader.poll(0):  # a result already sent is taken, however late
                tracker.kill()  # the scoring process and all it started, at once: a stuck kernel ignores signals
                if stage in _HARNESS_STAGES:
                    raise RuntimeError(why)
                return _cut_off(task, runtime, kwargs, partial, code, stage, why)
            if reader.poll(0.2):
                try:
                    message = reader.recv()
                except EOFError:  # closed without a message: the process died; its exit status says how
                    proc.join(5)
                    message = ("died", None)
                if message[0] == "stage":
                    now = time.monotonic()
                    waited += now - stage_t0 if stage in WAIT_STAGES else 0.0
                    spent[stage] = spent.get(stage, 0.0) + now - stage_t0
                    stage, stage_t0, partial = message[1], now, message[2]
                    continue
                kind, value = message
            elif proc.is_alive():
                continue
            elif reader.poll(0):  # it sent its message and exited between the two checks
                continue
            else:
                kind, value = "died", None
            answered = kind != "died"
            if kind == "score":
                spent[stage] = spent.get(stage, 0.0) + time.monotonic() - stage_t0
                value.stage_seconds = {k: round(v, 2) for k, v in spent.items()}
                return value
            if kind == "oom":
                why = f"the scoring ran out of memory in the {stage} stage ({value})"
                return _cut_off(task, runtime, kwargs, partial, "out_of_memory", stage, why)
            if kind == "died":
                code = proc.exitcode
                if code is not None and code < 0 and -code in _STOP_SIGNALS:
                    raise Cancelled(f"the scoring process was stopped by {signal.Signals(-code).name}")
                raise RuntimeError(f"the scoring process died (exit status {code})")
            if value.split(":", 1)[0] in ("KeyboardInterrupt", "Interrupted", "Cancelled"):
                raise Cancelled(f"the scoring process was stopped ({value})")
            raise RuntimeError(value)
    finally:
        reader.close()
        if answered:
            proc.join(30)
        if proc.is_alive():
            proc.terminate()  # SIGTERM: _stop_scoring kills its commands and kernel processes on the way out
            proc.join(10)
        if proc.is_alive():
            proc.kill()
        proc.join()
        tracker.kill()  # anything it started and left behind (seen in a scan while it ran)


def score_isolated(
    task: Task,
    code_dir: Path,
    base_dir: Path,
    work: Path,
    runtime: Runtime,
    *,
    limits: ScoreLimits | None = None,
    **kwargs,
) -> TaskScore:
    """``score`` in a fresh interpreter under ``limits`` (``evals.harness.limits``: each stage's deadline, the whole
    scoring's, the memory cap), retried once; a harness failure is an ``infra_error``, never the agent's. A candidate
    that runs a stage past its deadline or the processes over the memory cap gets ``timeout``/``out_of_memory``
    (its failure, not retried). A stopping run is not a failure: when this thread's job is cancelled
    (``tools.executors.cancel_thread``) or the scoring process is stopped by SIGTERM/SIGINT/SIGHUP, it raises
    ``Cancelled`` at once, with no retry and no result, and the scoring process and everything it started are gone.

    Why a process: the suite scores tasks from a thread pool, and on CPython 3.11 ``ast.parse`` (the static checks,
    Python 3.11's traceback carets, Triton's JIT) is not thread-safe — two threads converting ASTs at once raise
    ``SystemError: AST constructor recursion depth mismatch``. One interpreter per scoring shares nothing.
    """
    limits = limits or ScoreLimits()
    problem = ""
    for _attempt in range(2):
        try:
            return _score_once(task, code_dir, base_dir, work, runtime, kwargs, limits)
        except Exception as exc:  # the scorer itself broke (a bug, a killed process): not the candidate's fault
            problem = str(exc) if isinstance(exc, RuntimeError) else f"{type(exc).__name__}: {str(exc).strip()[:300]}"
    s = TaskScore(
        task_id=task.spec.id,
        track=task.spec.track,
        agent=kwargs.get("agent", ""),
        passed=False,
        complete=False,
        device=runtime.name,
        base_commit=kwargs.get("base_commit", ""),
    )
    s.record_infra_error(f"the scorer failed twice: {problem}")
    return s
