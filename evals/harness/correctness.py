"""Correctness on fresh inputs: the reference and the candidate each in its own process (``evals.harness.child``),
on the same cases drawn from a secret per-run seed, public and hidden shapes; outputs compared here.

The processes are serving ones (``child serve``): started before the scorer holds the GPU so that their torch
import overlaps the compile and other tasks' GPU phases, and the reference's process lives on to re-check the
timed calls afterwards (no second import, no second CUDA context).
"""

from __future__ import annotations

import json
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from evals.catalog import Task
from evals.harness.devices import Runtime
from evals.models import CaseOutcome
from tools.profilers.gpu_runner import SideProcess

CHILD = [sys.executable, "-m", "evals.harness.child"]
_REPO_ROOT = str(Path(__file__).resolve().parents[2])


def child_env(runtime: Runtime, work: Path, role: str, interpret: bool = False) -> dict[str, str]:
    """The environment of one kernel process. Triton's cache is per role (the candidate's check and timing
    processes share one, so the timing server's warm-up finds the check's kernels compiled), never shared between
    the candidate and the baseline: a candidate cannot plant a slower kernel in the baseline's cache."""
    import os

    extra = os.environ.get("PYTHONPATH")
    env = {"PYTHONPATH": _REPO_ROOT + (os.pathsep + extra if extra else ""), "PYTHONDONTWRITEBYTECODE": "1"}
    env["TRITON_CACHE_DIR"] = str(work / f"triton-cache-{role}{'-interpret' if interpret else ''}")
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    if runtime.visible is not None:  # the worker's GPU: every kernel process runs on it, not on device 0 of the host
        env["CUDA_VISIBLE_DEVICES"] = env["HIP_VISIBLE_DEVICES"] = runtime.visible
    return env


def base_spec(task: Task, code_dir: Path, device: str, role: str, work: Path) -> dict:
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


class KernelProcess(SideProcess):
    """One serving child (``child serve`` or ``child time``), started at once and held: GPU work only after
    ``go()`` (``tools.profilers.gpu_runner.SideProcess``, the one parent end of a kernel process)."""

    def __init__(self, mode: str, spec: dict, work: Path, env: dict[str, str]) -> None:
        role = spec["role"]
        spec_file = work / f"{mode}-{role}.json"
        spec_file.write_text(json.dumps(spec))
        argv = [*CHILD, mode, str(spec_file)]
        super().__init__(role, argv, env=env, cwd=work, stderr_path=work / f"{mode}-{role}.stderr", hold=True)


def start_check_processes(
    task: Task, code_dir: Path, work: Path, runtime: Runtime, *, interpret: bool
) -> dict[str, KernelProcess]:
    """The reference's and the candidate's correctness processes (the candidate's in the interpreter when asked)."""
    work.mkdir(parents=True, exist_ok=True)
    return {
        role: KernelProcess(
            "serve",
            base_spec(task, code_dir, runtime.device, role, work),
            work,
            child_env(runtime, work, role, interpret and role == "candidate"),
        )
        for role in ("reference", "candidate")
    }


def run_cases(proc: KernelProcess, cases: list[dict], out: Path, timeout: float):
    """(outputs by case name, "") from one process, or (None, why it failed)."""
    import torch

    try:
        proc.ask({"cases": cases, "out": str(out)}, timeout)
    except TimeoutError:
        return None, f"{proc.role} timed out after {timeout:.0f} s"
    except RuntimeError as exc:
        return None, f"{proc.role} process failed: {exc}"
    if not out.exists():
        return None, f"{proc.role} process wrote no outputs: {proc.server.stderr_tail()}"
    return torch.load(out, weights_only=False), ""


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


def check_cases(
    task: Task,
    code_dir: Path,
    work: Path,
    runtime: Runtime,
    cases: list[dict],
    *,
    interpret: bool,
    timeout: float,
    procs: dict[str, KernelProcess] | None = None,
) -> tuple[list[CaseOutcome], list[tuple[str, str]]]:
    """Reference and candidate, each in its own process, on the same inputs; compare every case. Returns the
    outcomes and the failures that stopped the comparison as (code, reason). The candidate's process is closed
    here; the reference's stays for the timed-call re-check when ``procs`` was given (the caller closes it)."""
    c = task.spec.correctness
    own = procs is None
    procs = procs or start_check_processes(task, code_dir, work, runtime, interpret=interpret)
    try:
        with ThreadPoolExecutor(2) as pool:  # two independent processes on the same inputs: at once
            ref_job = pool.submit(run_cases, procs["reference"], cases, work / "ref.pt", timeout)
            cand_job = pool.submit(run_cases, procs["candidate"], cases, work / "cand.pt", timeout)
            (ref, ref_err), (cand, err) = ref_job.result(), cand_job.result()
    finally:
        procs["candidate"].close()
        if own:
            procs["reference"].close()
    if ref is None:
        return [], [("reference_failed", f"the reference failed (a task bug, not the agent's): {ref_err}")]
    if cand is None:
        return [], [("candidate_crashed", f"candidate: {err}")]
    if "__load_error__" in cand:
        last = cand["__load_error__"].strip().splitlines()[-1]
        return [], [("candidate_crashed", "candidate module failed to load: " + last)]
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
