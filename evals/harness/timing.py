"""Timing: baseline and candidate in two long-lived processes (``child time``), rounds interleaved ABAB/BABA, fresh
inputs and an L2 flush per call, timed calls sampled and re-checked against the reference afterwards; the per-GPU
lock that keeps one scoring's GPU phase exclusive; speed-of-light floors. Failures come back as (code, reason).
"""

from __future__ import annotations

import ast
import operator
import os
import random
from pathlib import Path

from evals.catalog import Task
from evals.harness.correctness import KernelProcess, base_spec, child_env, compare, run_cases
from evals.harness.devices import Runtime, peaks_for
from evals.metrics import geomean
from evals.models import CaseOutcome, ShapeCase, StageCode, TimingOutcome
from tools.errors import InputError
from tools.profilers.timing import abba, summarize_times

HOST_CALLS = 1  # per side and round: calls made with the GPU idle, for the side-stream check

Failure = tuple[StageCode, str]


_ARITH = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def shape_expression(text: str, params: dict) -> float:
    """A task's ``bytes``/``flops`` expression (``4*B*(S - S//3)*HKV*D``) over a shape's params: numbers, names,
    + - * / // % ** and parentheses only. Task folders can come from other people (``--tasks-dir``), so this is an
    arithmetic evaluator, never Python's ``eval``."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name) and isinstance(params.get(node.id), int | float):
            return params[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise InputError(f"performance expression {text!r}: exponent {right} is too large")
            return _ARITH[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
        raise InputError(
            f"performance expression {text!r}: {ast.dump(node)[:60]} is not allowed",
            hint="use numbers, the shape's params, + - * / // % ** and parentheses",
        )

    try:
        return float(ev(ast.parse(text, mode="eval")))
    except (SyntaxError, ZeroDivisionError, OverflowError) as exc:
        raise InputError(f"performance expression {text!r}: {exc}") from exc


def sol_ms(task: Task, shape: ShapeCase, device_name: str) -> float | None:
    perf = task.spec.performance
    peaks = peaks_for(device_name)
    if peaks is None or not (perf.bytes or perf.flops):
        return None
    env = {k: v for k, v in shape.params.items()}
    t = 0.0
    if perf.bytes:
        t = max(t, shape_expression(perf.bytes, env) / peaks[0])
    if perf.flops:
        t = max(t, shape_expression(perf.flops, env) / peaks[1])
    return t * 1e3


def summarize_rounds(
    shape: ShapeCase,
    event_ms: dict[str, list[float]],
    host_ms: dict[str, list[float]],
    check_ms: dict[str, list[float]],
    *,
    rounds: int,
    required_speedup: float,
    seed: int,
) -> tuple[TimingOutcome, list[str]]:
    """One shape's verdict from the per-round medians (ms) of ``baseline``'s and ``candidate``'s timed calls
    (``event_ms``), and from their host-check calls, made with the GPU idle: host time around call + device-wide
    synchronise (``host_ms``) and the same calls' event time (``check_ms``). Returns the outcome and failure reasons.

    The statistics are ``tools.profilers.timing.compare_times`` (the one place for medians, bootstrap CIs and
    verdicts); its threshold is set so that ``faster`` means the CI's lower bound clears ``required_speedup``.
    A candidate whose host time exceeds its event time by much more than the baseline's does work outside the timed
    stream: that fails."""
    from tools.profilers.timing import compare_times

    to_us = {role: [t * 1e3 for t in ts] for role, ts in event_ms.items()}
    cmp = compare_times(to_us["baseline"], to_us["candidate"], threshold=required_speedup - 1.0, seed=seed)
    b, c = cmp.baseline.median_us / 1e3, cmp.candidate.median_us / 1e3
    t = TimingOutcome(
        shape=shape.name,
        baseline_ms=b,
        candidate_ms=c,
        speedup=cmp.speedup,
        ci_low=cmp.speedup_ci[0],
        ci_high=cmp.speedup_ci[1],
        rounds=rounds,
        verdict=cmp.verdict,
    )
    reasons = []

    def gap(role: str) -> float:  # pure statistics: ms in, ms out
        return summarize_times(host_ms[role]).median_us - summarize_times(check_ms[role]).median_us

    gap_b, gap_c = gap("baseline"), gap("candidate")
    if gap_c > gap_b + max(0.05, 0.25 * c):
        t.flags.append(
            f"host time exceeds event time by {gap_c:.3f} ms (baseline {gap_b:.3f} ms): work outside the timed stream"
        )
        reasons.append(f"{shape.name}: work runs outside the timed stream (host {gap_c:.3f} ms over events)")
    return t, reasons


def start_timing_servers(
    task: Task, code_dir: Path, base_dir: Path, work: Path, runtime: Runtime, *, caches: Path | None = None
) -> dict:
    """The baseline and candidate timing processes, started (torch import) before the scorer holds the GPU; they
    touch the GPU (CUDA context, flush buffer, kernel module) only once sent their nonce, time nothing until asked,
    and are killed unused when the candidate is not correct. ``caches``: the work folder whose per-role Triton
    caches they use (the confirmation session's processes find the first session's kernels compiled)."""
    work.mkdir(parents=True, exist_ok=True)
    servers = {}
    for role, code in (("baseline", base_dir), ("candidate", code_dir)):
        spec = {**base_spec(task, code, runtime.device, role, work), "out_dir": str(work)}
        spec["build_dir"] = str(work / f"build-{role}-timing")  # a loader's nvcc never races the check's build
        servers[role] = KernelProcess("time", spec, work, child_env(runtime, caches or work, role))
    return servers


def stop_timing_servers(servers: dict) -> None:
    for proc in servers.values():
        proc.close()


def _flock(name: str, shared: bool):
    import contextlib
    import fcntl
    import tempfile

    @contextlib.contextmanager
    def held():
        path = Path(tempfile.gettempdir()) / f"kernelpilot-{name}.lock"
        with open(path, "a") as f:
            fcntl.flock(f, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    return held()


def gpu_key(runtime: Runtime) -> str:
    """Which GPU a lock is for: the runtime's slot, else the device this process is pinned to (a Dask worker started by
    ``eval worker`` runs with ``CUDA_VISIBLE_DEVICES=<its GPU>`` and no slot), else ``all``. Without the pinned device
    the workers of one host shared a single lock and took turns on their different GPUs (2x H200, 2026-11-25)."""
    pinned = os.environ.get("CUDA_VISIBLE_DEVICES") or os.environ.get("HIP_VISIBLE_DEVICES")
    return (runtime.visible or pinned or "all").replace(",", "_")


def gpu_lock(runtime: Runtime):
    """Exclusive use of this runtime's GPU for the GPU phase of one scoring (correctness and timing), across
    processes: two tasks may share a GPU, overlapping one's CPU work (workspace, agent, compile, process starts)
    with the other's GPU work, but never run kernels at the same time, so timings stay unperturbed."""
    return _flock(f"gpu-{gpu_key(runtime)}", shared=False)


def quiet_lock(runtime: Runtime, *, shared: bool):
    """The host quiet while a GPU's timed rounds run: the timed rounds hold it exclusively, the CPU-heavy stages of
    other scorings on that GPU (compiles, kernel processes importing torch) hold it shared. Without it a
    neighbour's compile steals the CPU from one side's kernel launches in some rounds and not others: noop
    candidates read 0.88× or 1.09× instead of 1.00× (H100, 2026-11-23)."""
    return _flock(f"quiet-{gpu_key(runtime)}", shared=shared)


def _timed_rounds(task: Task, servers: dict, runtime: Runtime, rng: random.Random):
    perf = task.spec.performance
    for proc in servers.values():
        proc.go()  # both start their CUDA context and load their module at once
    timings, failures, sampled = [], [], []
    for shape in perf.shapes:
        per = {"baseline": [], "candidate": []}
        host = {"baseline": [], "candidate": []}
        check = {"baseline": [], "candidate": []}
        rounds = perf.rounds + perf.rounds % 2  # even: each side goes first in as many timed rounds as second
        for r in range(rounds + 1):
            for role in abba(r, ("baseline", "candidate")):
                sample = []
                if role == "candidate" and 1 <= r <= perf.checked_calls:
                    sample = rng.sample(range(perf.calls_per_round), k=1)
                req = {
                    "round": f"{shape.name}-{r}",
                    "shape": shape.name,
                    "params": shape.params,
                    "calls": perf.calls_per_round,
                    "host_calls": HOST_CALLS,
                    "seed_base": rng.randrange(1, 2**60),
                    "check": sample,
                }
                try:
                    reply = servers[role].ask(req, timeout=300)
                except TimeoutError:
                    raise TimeoutError(f"{role} timing round {req['round']} took longer than 300 s") from None
                except RuntimeError as exc:
                    raise RuntimeError(f"{role} timing {exc}") from None
                if reply["tampered"]:
                    failures.append(("timer_tampered", f"{role} replaced the timer: {', '.join(reply['tampered'])}"))
                if r == 0:
                    continue  # warm-up: compile, caches, clocks
                # medians of this round's calls (ms: the statistics are unit-free)
                per[role].append(summarize_times(reply["event_ms"]).median_us)
                host[role] += reply["host_ms"]
                check[role] += reply["check_event_ms"]
                if reply["saved"]:
                    sampled.append(reply["saved"])
        t, slow_host = summarize_rounds(
            shape, per, host, check, rounds=rounds, required_speedup=perf.required_speedup, seed=rng.randrange(2**32)
        )
        failures += [("side_stream", r) for r in slow_host]
        c = t.candidate_ms
        sol = sol_ms(task, shape, runtime.name)
        if sol:
            t.sol_ms = sol
            t.fraction_of_sol = sol / c
            if c < 0.95 * sol:
                t.flags.append(f"faster than the speed-of-light floor {sol:.4f} ms")
                failures.append(
                    (
                        "speed_of_light_exceeded",
                        f"{shape.name}: {c:.4f} ms is below the speed-of-light floor {sol:.4f} ms",
                    )
                )
        ref_speedup = next((v for k, v in perf.reference_speedup.items() if k in runtime.name), None)
        if ref_speedup and t.speedup > 3 * ref_speedup:
            t.flags.append(f"speedup {t.speedup:.2f}× is over 3× the reference solution's {ref_speedup:.2f}×")
        timings.append(t)
    return timings, failures, sampled


def _session(
    task: Task, servers: dict, runtime: Runtime, rng: random.Random
) -> tuple[list[TimingOutcome], list[Failure], list]:
    """One timing session: the timed rounds of these two processes (stopped afterwards), under the quiet lock."""
    try:
        with quiet_lock(runtime, shared=False):  # no other scoring on this GPU compiles or imports meanwhile
            return _timed_rounds(task, servers, runtime, rng)
    except (TimeoutError, RuntimeError) as exc:
        return [], [("timing_failed", f"timing failed: {exc}")], []
    finally:
        stop_timing_servers(servers)


def clears(timings: list[TimingOutcome], required_speedup: float) -> bool:
    """The task's speed verdict: the geometric mean over shapes of the CI's lower bound clears the bar."""
    return bool(timings) and geomean([t.ci_low for t in timings]) > required_speedup


def merge_sessions(first: list[TimingOutcome], second: list[TimingOutcome]) -> list[TimingOutcome]:
    """Per shape, what both sessions support: the lower of the two speedups and CI bounds, the higher upper bound
    (so ``faster`` needs both sessions to clear the bar), the rounds of both, and a flag when they disagree."""
    merged = []
    for a, b in zip(first, second, strict=True):
        low = min((a, b), key=lambda t: t.speedup)
        m = a.model_copy(deep=True)
        m.speedup, m.baseline_ms, m.candidate_ms = low.speedup, low.baseline_ms, low.candidate_ms
        m.ci_low, m.ci_high = min(a.ci_low, b.ci_low), max(a.ci_high, b.ci_high)
        m.rounds = a.rounds + b.rounds
        m.verdict = a.verdict if a.verdict == b.verdict else "inconclusive"
        if m.fraction_of_sol and low.fraction_of_sol:
            m.fraction_of_sol = low.fraction_of_sol
        m.flags += [f for f in b.flags if f not in m.flags]
        m.flags.append(
            f"second session in fresh processes: {b.speedup:.3f}× (CI {b.ci_low:.3f}–{b.ci_high:.3f}); first "
            f"{a.speedup:.3f}× (CI {a.ci_low:.3f}–{a.ci_high:.3f})"
        )
        merged.append(m)
    return merged


def time_candidate(
    task: Task,
    code_dir: Path,
    base_dir: Path,
    work: Path,
    runtime: Runtime,
    rng: random.Random,
    servers: dict | None = None,
    reference: KernelProcess | None = None,
    *,
    confirm: dict | None = None,
) -> tuple[list[TimingOutcome], list[CaseOutcome], list[Failure]]:
    """Interleaved rounds (ABAB, then BABA) of baseline and candidate in two processes; every timed call gets fresh
    inputs; ``checked_calls`` random calls per shape are re-checked against the reference afterwards, in the
    reference's process (``reference``, kept from correctness) or a new one. A session that clears the bar is
    repeated in two fresh processes (``confirm``, started with ``servers``, or new ones) and the verdict keeps what
    both support (``merge_sessions``)."""
    perf = task.spec.performance
    servers = servers or start_timing_servers(task, code_dir, base_dir, work, runtime)
    timings, failures, sampled = _session(task, servers, runtime, rng)
    if confirm and (failures or not clears(timings, perf.required_speedup)):
        stop_timing_servers(confirm)  # not needed: no second session
    if not failures and clears(timings, perf.required_speedup):
        # A speedup must hold again in a second session of fresh processes: two processes running the same code
        # can differ for their whole life (an H100 noop read 1.25×, CI 1.16-1.39, once in 26 task runs).
        fresh = confirm or start_timing_servers(task, code_dir, base_dir, work / "confirm", runtime, caches=work)
        for proc in fresh.values():
            proc.wait_ready()
        again, failures, more = _session(task, fresh, runtime, rng)
        sampled += more
        if again:
            timings = merge_sessions(timings, again)
    # Re-check the sampled timed calls against the reference, in its own process on regenerated inputs.
    rechecks: list[CaseOutcome] = []
    if not sampled or failures:
        return timings, rechecks, failures
    import torch

    saved = {}
    for path in sampled:
        saved.update(torch.load(path, weights_only=False))
    params = {s.name: s.params for s in perf.shapes}
    cases = [
        {"name": key, "params": params[key.split("@")[0]], "seed": v["seed"], "hidden": False}
        for key, v in saved.items()
    ]
    own = reference is None
    if own:
        reference = KernelProcess(
            "serve",
            base_spec(task, code_dir, runtime.device, "reference", work),
            work,
            child_env(runtime, work, "reference"),
        )
    try:
        ref, err = run_cases(reference, cases, work / "ref-timed.pt", 600)
    finally:
        if own:
            reference.close()
    if ref is None:
        failures.append(("reference_failed", f"reference for the timed-call re-check failed: {err}"))
        return timings, rechecks, failures
    c = task.spec.correctness
    for key, v in saved.items():
        ok, detail, max_err = compare(ref[key]["out"], v["out"], c.atol, c.rtol)
        rechecks.append(CaseOutcome(case=f"timed:{key}", passed=ok, detail=detail, max_abs_err=max_err))
    return timings, rechecks, failures
