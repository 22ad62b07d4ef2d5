"""Score one candidate: diff gate → static checks → compile (dump-ir) → ISA checks → correctness on fresh inputs
and hidden shapes → interleaved timing against the baseline, with timed calls re-checked → a TaskScore with reasons.

Every kernel execution happens in ``evals.harness.child`` processes: the reference, the baseline and the candidate
each in their own, with inputs drawn from a secret per-run seed.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import random
import secrets
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from evals.catalog import Task
from evals.harness.devices import Runtime, peaks_for
from evals.harness.isa_checks import NEEDS_BASELINE, run_isa_checks
from evals.harness.oracle import llvm_cpu_oracle
from evals.harness.static_checks import static_checks
from evals.models import CaseOutcome, CheckOutcome, ShapeCase, TaskScore, TimingOutcome
from tools.errors import CompileError, KernelpilotError, ToolchainError
from tools.executors import LOCAL, kill_process_tree
from tools.models.dump import KernelDump
from tools.profilers.timing import summarize_times

CHILD = [sys.executable, "-m", "evals.harness.child"]
_REPO_ROOT = str(Path(__file__).resolve().parents[2])


def _env(runtime: Runtime, interpret: bool = False) -> dict[str, str]:
    import os

    extra = os.environ.get("PYTHONPATH")
    env = {"PYTHONPATH": _REPO_ROOT + (os.pathsep + extra if extra else ""), "PYTHONDONTWRITEBYTECODE": "1"}
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    if runtime.visible is not None:  # the worker's GPU: every kernel process runs on it, not on device 0 of the host
        env["CUDA_VISIBLE_DEVICES"] = env["HIP_VISIBLE_DEVICES"] = runtime.visible
    return env


# --- compile and ISA ------------------------------------------------------------------------------------------


def compile_targets(task: Task, code_dir: Path) -> tuple[list[KernelDump], list[str], bool]:
    """Compile every target for every arch; returns (kernels, failure reasons, toolchain_missing)."""
    from tools.dump_ir import dump_ir

    kernels: list[KernelDump] = []
    reasons: list[str] = []
    missing = False
    for target in task.spec.compile:
        for arch in target.archs or task.spec.archs:
            try:
                kernels += dump_ir(code_dir / target.file, arch, frontend=target.frontend, timeout=300).kernels
            except ToolchainError as exc:
                missing = True
                reasons.append(f"cannot compile {target.file} for {arch} here: {exc.message}")
            except (CompileError, KernelpilotError) as exc:
                detail = (exc.details or "").strip().splitlines()[-3:]
                reasons.append(f"{target.file} does not compile for {arch}: {exc.message} {' | '.join(detail)}")
    return kernels, reasons, missing


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


# --- correctness ----------------------------------------------------------------------------------------------


def compare(ref, out, atol: float, rtol: float) -> tuple[bool, str, float | None]:
    """Whether ``out`` matches ``ref``; degenerate outputs (zeros, constants, NaN where the reference has none) fail
    with their own reason even when they would fall inside the tolerance."""
    import torch

    if not isinstance(out, torch.Tensor):
        return False, f"returned {type(out).__name__}, not a tensor", None
    if tuple(out.shape) != tuple(ref.shape):
        return False, f"shape {tuple(out.shape)}, expected {tuple(ref.shape)}", None
    r, o = ref.double(), out.double()
    if not torch.equal(torch.isnan(r), torch.isnan(o)):
        return False, f"NaN where the reference has none ({int(torch.isnan(o).sum())} elements)", None
    if not torch.equal(torch.isinf(r), torch.isinf(o)):
        return False, "Inf pattern differs from the reference", None
    finite = torch.isfinite(r)
    rf, of = r[finite], o[finite]
    if rf.numel() and rf.abs().max() > 0 and of.abs().max() == 0:
        return False, "degenerate output: all zeros", None
    if rf.numel() > 1 and rf.std() > 0 and of.std() == 0:
        return False, f"degenerate output: constant {float(of.flatten()[0]):.4g}", None
    err = (of - rf).abs()
    max_err = float(err.max()) if err.numel() else 0.0
    bad = err > atol + rtol * rf.abs()
    if bool(bad.any()):
        i = int(bad.flatten().nonzero()[0])
        return (
            False,
            f"mismatch: {int(bad.sum())} elements outside tolerance, max abs err {max_err:.3g} (flat {i})",
            max_err,
        )
    return True, f"max abs err {max_err:.3g}", max_err


def _run_check_child(spec: dict, work: Path, env: dict, timeout: float):
    import torch

    spec_file = work / f"{spec['role']}-{secrets.token_hex(4)}.json"
    spec_file.write_text(json.dumps(spec))
    res = LOCAL.run([*CHILD, "check", str(spec_file)], timeout=timeout, env=env, cwd=work)
    out = Path(spec["out"])
    if res.timed_out:
        return None, f"{spec['role']} timed out after {timeout:.0f} s"
    if not out.exists():
        tail = "\n".join((res.stderr or res.stdout).strip().splitlines()[-4:])
        return None, f"{spec['role']} process failed (exit {res.returncode}): {tail}"
    return torch.load(out, weights_only=False), ""


def _base_spec(task: Task, code_dir: Path, device: str, role: str, work: Path) -> dict:
    c = task.spec.correctness
    return {
        "role": role,
        "device": device,
        "code_dir": str(code_dir),
        "task_workspace": str(task.workspace),
        "reference_file": str(task.workspace / c.reference),
        "entry": c.entry,
        "loader": c.loader,
        "build_dir": str(work / f"build-{role}"),
    }


def check_cases(
    task: Task, code_dir: Path, work: Path, runtime: Runtime, cases: list[dict], *, interpret: bool, timeout: float
) -> tuple[list[CaseOutcome], list[str]]:
    """Reference and candidate each in a fresh process on the same inputs; compare every case."""
    c = task.spec.correctness
    device = runtime.device
    ref_spec = {**_base_spec(task, code_dir, device, "reference", work), "cases": cases, "out": str(work / "ref.pt")}
    cand_spec = {**_base_spec(task, code_dir, device, "candidate", work), "cases": cases, "out": str(work / "cand.pt")}
    # two independent processes on the same inputs: run them at once (each imports torch and builds its kernels)
    with ThreadPoolExecutor(2) as pool:
        ref_job = pool.submit(_run_check_child, ref_spec, work, _env(runtime), timeout)
        cand_job = pool.submit(_run_check_child, cand_spec, work, _env(runtime, interpret), timeout)
        (ref, ref_err), (cand, err) = ref_job.result(), cand_job.result()
    if ref is None:
        return [], [f"the reference failed (a task bug, not the agent's): {ref_err}"]
    if cand is None:
        return [], [f"candidate: {err}"]
    if "__load_error__" in cand:
        return [], ["candidate module failed to load: " + cand["__load_error__"].strip().splitlines()[-1]]
    outcomes = []
    for case in cases:
        name = case["name"]
        got = cand.get(name, {})
        hidden = bool(case.get("hidden"))
        if "error" in got:
            msg = got["error"].strip().splitlines()[-1]
            outcomes.append(CaseOutcome(case=name, hidden=hidden, passed=False, detail=f"raised: {msg}"))
            continue
        if got.get("inputs_mutated"):
            outcomes.append(
                CaseOutcome(case=name, hidden=hidden, passed=False, detail="the candidate changed its inputs")
            )
            continue
        ok, detail, max_err = compare(ref[name]["out"], got.get("out"), c.atol, c.rtol)
        outcomes.append(CaseOutcome(case=name, hidden=hidden, passed=ok, detail=detail, max_abs_err=max_err))
    return outcomes, []


def correctness_cases(task: Task, rng: random.Random) -> list[dict]:
    """Public and hidden shapes, ``seeds_per_shape`` secret seeds each."""
    c = task.spec.correctness
    cases = []
    for hidden, shapes in ((False, c.shapes), (True, c.hidden_shapes)):
        for shape in shapes:
            for _ in range(c.seeds_per_shape):
                seed = rng.randrange(1, 2**62)
                cases.append(
                    {"name": f"{shape.name}#{seed % 10**6:06d}", "params": shape.params, "seed": seed, "hidden": hidden}
                )
    return cases


# --- timing ---------------------------------------------------------------------------------------------------


def _sol_ms(task: Task, shape: ShapeCase, device_name: str) -> float | None:
    perf = task.spec.performance
    peaks = peaks_for(device_name)
    if peaks is None or not (perf.bytes or perf.flops):
        return None
    env = {k: v for k, v in shape.params.items()}
    t = 0.0
    if perf.bytes:
        t = max(t, eval(perf.bytes, {"__builtins__": {}}, env) / peaks[0])  # noqa: S307 - task files are ours
    if perf.flops:
        t = max(t, eval(perf.flops, {"__builtins__": {}}, env) / peaks[1])  # noqa: S307
    return t * 1e3


def summarize_rounds(
    shape: ShapeCase,
    event_ms: dict[str, list[float]],
    host_ms: dict[str, list[float]],
    *,
    rounds: int,
    required_speedup: float,
    seed: int,
) -> tuple[TimingOutcome, list[str]]:
    """One shape's verdict from the per-round medians (ms) of ``baseline`` and ``candidate``: event time on the
    current stream and host time around call + device-wide synchronise. Returns the outcome and failure reasons.

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
    gap_b = summarize_times(host_ms["baseline"]).median_us - b  # pure statistics: ms in, ms out
    gap_c = summarize_times(host_ms["candidate"]).median_us - c
    if gap_c > gap_b + max(0.05, 0.25 * c):
        t.flags.append(
            f"host time exceeds event time by {gap_c:.3f} ms (baseline {gap_b:.3f} ms): work outside the timed stream"
        )
        reasons.append(f"{shape.name}: work runs outside the timed stream (host {gap_c:.3f} ms over events)")
    return t, reasons


def _start_server(spec: dict, work: Path, env: dict) -> tuple[subprocess.Popen, str, object]:
    import os

    spec_file = work / f"time-{spec['role']}.json"
    spec_file.write_text(json.dumps(spec))
    err = open(work / f"time-{spec['role']}.stderr", "w")  # noqa: SIM115 - closed by the caller
    proc = subprocess.Popen(
        [*CHILD, "time", str(spec_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=err,
        text=True,
        cwd=work,
        env={**os.environ, **env},
        start_new_session=True,
    )
    nonce = secrets.token_hex(16)
    proc.stdin.write(nonce + "\n")
    proc.stdin.flush()
    return proc, nonce, err


def _ask(proc: subprocess.Popen, nonce: str, req: dict, timeout: float, role: str) -> dict:
    import select

    proc.stdin.write(json.dumps(req) + "\n")
    proc.stdin.flush()
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
            raise TimeoutError(f"{role} timing round {req['round']} took longer than {timeout:.0f} s")
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{role} timing process exited (code {proc.poll()})")
        try:
            reply = json.loads(line)
        except ValueError:
            continue  # the kernel module printed something; replies are JSON lines with the nonce
        if reply.get("nonce") == nonce:
            return reply


def start_timing_servers(task: Task, code_dir: Path, base_dir: Path, work: Path, runtime: Runtime) -> dict:
    """The baseline and candidate timing processes, started (torch import, CUDA context) while correctness runs;
    they time nothing until asked, and are killed unused when the candidate is not correct."""
    env = _env(runtime)
    servers = {}
    for role, code in (("baseline", base_dir), ("candidate", code_dir)):
        spec = _base_spec(task, code, runtime.device, role, work)
        spec["out_dir"] = str(work)
        servers[role] = _start_server(spec, work, env)
    return servers


def stop_timing_servers(servers: dict) -> None:
    for proc, _, err in servers.values():
        kill_process_tree(proc)
        err.close()


def gpu_lock(runtime: Runtime):
    """Exclusive use of this runtime's GPU for the GPU phase of one scoring (correctness and timing), across
    processes: two tasks may share a GPU, overlapping one's CPU work (workspace, agent, compile) with the other's
    GPU work, but never run kernels at the same time, so timings stay unperturbed."""
    import contextlib
    import fcntl
    import tempfile

    @contextlib.contextmanager
    def held():
        name = (runtime.visible or "all").replace(",", "_")
        path = Path(tempfile.gettempdir()) / f"kernelpilot-gpu-{name}.lock"
        with open(path, "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    return held()


def time_candidate(
    task: Task,
    code_dir: Path,
    base_dir: Path,
    work: Path,
    runtime: Runtime,
    rng: random.Random,
    servers: dict | None = None,
) -> tuple[list[TimingOutcome], list[CaseOutcome], list[str]]:
    """Interleaved rounds (ABAB, then BABA) of baseline and candidate in two processes; every timed call gets fresh
    inputs; ``checked_calls`` random calls per shape are re-checked against the reference afterwards."""
    perf = task.spec.performance
    env = _env(runtime)
    servers = servers or start_timing_servers(task, code_dir, base_dir, work, runtime)
    timings, reasons, sampled = [], [], []
    try:
        for shape in perf.shapes:
            per = {"baseline": [], "candidate": []}
            host = {"baseline": [], "candidate": []}
            for r in range(perf.rounds + 1):
                order = ["baseline", "candidate"] if r % 2 == 0 else ["candidate", "baseline"]
                for role in order:
                    proc, nonce, _ = servers[role]
                    check = []
                    if role == "candidate" and r >= 1:
                        check = rng.sample(range(perf.calls_per_round), k=1) if r <= perf.checked_calls else []
                    req = {
                        "round": f"{shape.name}-{r}",
                        "shape": shape.name,
                        "params": shape.params,
                        "calls": perf.calls_per_round,
                        "seed_base": rng.randrange(1, 2**60),
                        "check": check,
                    }
                    reply = _ask(proc, nonce, req, timeout=300, role=role)
                    if reply["tampered"]:
                        reasons.append(f"{role} replaced the timer: {', '.join(reply['tampered'])}")
                    if r == 0:
                        continue  # warm-up: compile, caches, clocks
                    # medians of this round's calls (ms: the statistics are unit-free)
                    per[role].append(summarize_times(reply["event_ms"]).median_us)
                    host[role].append(summarize_times(reply["host_ms"]).median_us)
                    if reply["saved"]:
                        sampled.append(reply["saved"])
            t, slow_host = summarize_rounds(
                shape,
                per,
                host,
                rounds=perf.rounds,
                required_speedup=perf.required_speedup,
                seed=rng.randrange(2**32),
            )
            reasons += slow_host
            c = t.candidate_ms
            sol = _sol_ms(task, shape, runtime.name)
            if sol:
                t.sol_ms = sol
                t.fraction_of_sol = sol / c
                if c < 0.95 * sol:
                    t.flags.append(f"faster than the speed-of-light floor {sol:.4f} ms")
                    reasons.append(f"{shape.name}: {c:.4f} ms is below the speed-of-light floor {sol:.4f} ms")
            ref_speedup = next((v for k, v in perf.reference_speedup.items() if k in runtime.name), None)
            if ref_speedup and t.speedup > 3 * ref_speedup:
                t.flags.append(f"speedup {t.speedup:.2f}× is over 3× the reference solution's {ref_speedup:.2f}×")
            timings.append(t)
    except (TimeoutError, RuntimeError) as exc:
        reasons.append(f"timing failed: {exc}")
    finally:
        stop_timing_servers(servers)
    # Re-check the sampled timed calls against the reference, in its own process on regenerated inputs.
    rechecks: list[CaseOutcome] = []
    if sampled and not reasons:
        import torch

        saved = {}
        for path in sampled:
            saved.update(torch.load(path, weights_only=False))
        params = {s.name: s.params for s in perf.shapes}
        cases = [
            {"name": key, "params": params[key.split("@")[0]], "seed": v["seed"], "hidden": False}
            for key, v in saved.items()
        ]
        ref_spec = {**_base_spec(task, code_dir, runtime.device, "reference", work), "cases": cases}
        ref_spec["out"] = str(work / "ref-timed.pt")
        ref, err = _run_check_child(ref_spec, work, env, 600)
        if ref is None:
            reasons.append(f"reference for the timed-call re-check failed: {err}")
        else:
            c = task.spec.correctness
            for key, v in saved.items():
                ok, detail, max_err = compare(ref[key]["out"], v["out"], c.atol, c.rtol)
                rechecks.append(CaseOutcome(case=f"timed:{key}", passed=ok, detail=detail, max_abs_err=max_err))
    return timings, rechecks, reasons


# --- the whole score ------------------------------------------------------------------------------------------


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 1.0


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
    s.changed_files = changed
    work.mkdir(parents=True, exist_ok=True)
    if diff_problems:
        s.diff_ok = False
        s.reasons += diff_problems
    found = static_checks(code_dir, changed, forbidden=spec.forbidden_calls, allow_streams=spec.allow_streams)
    if not static and found:  # controls switch the static gate off to prove the runtime defences on their own
        s.flags += [f"static check (not enforced): {f.name}: {f.detail}" for f in found]
        found = []
    if found:
        s.static_ok = False
        s.checks += found
        s.reasons += [f"static check: {f.name}: {f.detail}" for f in found]
    if not s.diff_ok:
        s.seconds = round(time.perf_counter() - t0, 2)
        return s  # nothing outside the allowlist is ever executed

    kernels, compile_reasons, missing = compile_targets(task, code_dir)
    s.compiled = bool(kernels) and not compile_reasons
    s.reasons += compile_reasons
    if missing:
        s.complete = False
    if s.compiled:
        fixed = spec.performance is not None and not spec.performance.compiler_options_may_change
        vs_baseline = any(c.check in NEEDS_BASELINE for c in spec.isa_checks)
        base_kernels = compile_targets(task, base_dir)[0] if fixed or vs_baseline else []  # cached by content
        checks = run_isa_checks(spec.isa_checks, kernels, base_kernels) + options_unchanged(task, base_kernels, kernels)
        s.checks += checks
        s.isa_ok = all(c.passed for c in checks)
        s.reasons += [f"ISA check failed: {c.name}: {c.detail}" for c in checks if not c.passed]

    import contextlib

    c = spec.correctness
    gpu_phase = contextlib.ExitStack()  # closed before returning: the GPU lock and any unused timing servers
    if runtime.has_gpu:
        gpu_phase.enter_context(gpu_lock(runtime))
    servers = None
    if spec.performance and runtime.has_gpu and c and s.static_ok:
        servers = start_timing_servers(task, code_dir, base_dir, work, runtime)
        gpu_phase.callback(stop_timing_servers, servers)  # a no-op kill when timing already stopped them
    if c and s.static_ok and c.oracle == "llvm-cpu":
        llvm_cpu_oracle(task, code_dir, work, s, rng)  # amd-static: the LLVM IR on the CPU (evals/harness/oracle.py)
    elif c and s.static_ok:
        interpret = not runtime.has_gpu and c.cpu_interpret and spec.language == "triton"
        if runtime.has_gpu or interpret:
            cases = correctness_cases(task, rng)
            outcomes, errs = check_cases(task, code_dir, work, runtime, cases, interpret=interpret, timeout=600)
            s.cases += outcomes
            s.reasons += errs
            s.correct = not errs and bool(outcomes) and all(o.passed for o in outcomes)
            for o in outcomes:
                if not o.passed:
                    s.reasons.append(f"incorrect on {'hidden ' if o.hidden else ''}case {o.case}: {o.detail}")
                    break
        elif spec.track == "amd-static":
            s.flags.append(
                f"correctness not run: {spec.language} needs a ROCm GPU (the amd-static track scores ISA here)"
            )
        else:
            s.complete = False
            s.reasons.append(f"correctness needs a GPU for {spec.language} (none here)")

    elif c is None and spec.track == "amd-static":
        s.flags.append("no output oracle: this task is scored on its compiled ISA only")

    perf = spec.performance
    timed_needed = spec.track == "gpu-runtime" and perf is not None
    if perf and runtime.has_gpu and s.correct and s.static_ok:
        timings, rechecks, reasons = time_candidate(task, code_dir, base_dir, work, runtime, rng, servers)
        s.timings, s.reasons = timings, s.reasons + reasons
        s.cases += rechecks
        bad = [r for r in rechecks if not r.passed]
        if bad:
            s.correct = False
            s.reasons.append(f"a timed call returned a wrong result: {bad[0].case}: {bad[0].detail}")
        if timings and not reasons:
            s.speedup = _geomean([t.speedup for t in timings])
            s.speedup_ci = (_geomean([t.ci_low for t in timings]), _geomean([t.ci_high for t in timings]))
            fr = [t.fraction_of_sol for t in timings if t.fraction_of_sol]
            s.fraction_of_sol = _geomean(fr) if fr else None
            s.flags += [f for t in timings for f in t.flags]
            if s.speedup_ci[0] <= perf.required_speedup:
                s.reasons.append(
                    f"not faster: speedup {s.speedup:.3f}× (95 % CI {s.speedup_ci[0]:.3f}–{s.speedup_ci[1]:.3f}) "
                    f"does not clear {perf.required_speedup}×"
                )
    elif timed_needed and not runtime.has_gpu:
        s.complete = False
        s.reasons.append("timing needs a GPU (none here)")

    gpu_phase.close()
    timed_ok = not timed_needed or (s.speedup_ci is not None and s.speedup_ci[0] > perf.required_speedup)
    s.passed = bool(
        s.diff_ok
        and s.static_ok
        and s.compiled
        and s.isa_ok is not False
        and (c is None or s.correct or (s.correct is None and spec.track == "amd-static" and not runtime.has_gpu))
        and timed_ok
        and s.complete
        and not any("speed-of-light" in r or "timed stream" in r or "replaced the timer" in r for r in s.reasons)
    )
    s.seconds = round(time.perf_counter() - t0, 2)
    return s


def _die_with_parent() -> None:
    """In the scoring process: be killed when the process that started it dies (Linux), never left orphaned."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown still reaps it
        pass


def score_isolated(task: Task, code_dir: Path, base_dir: Path, work: Path, runtime: Runtime, **kwargs) -> TaskScore:
    """``score`` in a fresh interpreter, retried once; a harness failure is an ``infra_error``, never the agent's.

    Why a process: the suite scores tasks from a thread pool, and on CPython 3.11 ``ast.parse`` (the static checks,
    Python 3.11's traceback carets, Triton's JIT) is not thread-safe — two threads converting ASTs at once raise
    ``SystemError: AST constructor recursion depth mismatch``. One interpreter per scoring shares nothing.
    """
    problem = ""
    for _attempt in range(2):
        try:
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(1, mp_context=ctx, initializer=_die_with_parent) as pool:
                return pool.submit(score, task, code_dir, base_dir, work, runtime, **kwargs).result()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # the scorer itself broke (a bug, a killed worker): not the candidate's fault
            problem = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
    s = TaskScore(
        task_id=task.spec.id,
        track=task.spec.track,
        agent=kwargs.get("agent", ""),
        passed=False,
        complete=False,
        device=runtime.name,
        base_commit=kwargs.get("base_commit", ""),
    )
    s.infra_error = f"the scorer failed twice: {problem}"
    s.reasons.append(f"infra_error: {s.infra_error} (not the agent's failure; re-run the task)")
    return s
