"""The llvm-cpu output oracle: the reference solution and the candidate run through ``kernelpilot check``.

For amd-static tasks (no AMD GPU here) a task's ``correctness: {oracle: llvm-cpu, ...}`` makes the harness compare
the candidate's outputs with the reference solution's (``solution.patch`` applied to the base workspace): both
kernels' LLVM IR executed lane by lane on the CPU, for every public and hidden shape, ``seeds_per_shape`` seeds
each, on every arch the task compiles for. Inputs come from the task folder's ``reference`` file
(``kernelpilot_inputs(seed, **params)``) when it has one, else from the reference solution's own
``kernelpilot_entry(**params)`` refilled from the seed — never from the candidate's copy.
"""

from __future__ import annotations

import random
from pathlib import Path

from evals.catalog import Task
from evals.harness.workspace import scoring_copy
from evals.models import CaseOutcome, TaskScore
from tools.check.errors import UnsupportedIR
from tools.errors import KernelpilotError


def llvm_cpu_oracle(task: Task, code_dir: Path, work: Path, score: TaskScore, rng: random.Random) -> None:
    """Set ``score.correct``, ``score.cases`` and the first failure's reason from check's verdicts."""
    from tools.check.compare import check

    c = task.spec.correctness
    ref_dir = work / "oracle-reference"
    scoring_copy(task, task.solution.read_text(), ref_dir)
    inputs = task.workspace / c.reference  # task-side kernelpilot_inputs(); else the reference's own entry
    inputs = inputs if inputs.is_file() else None
    targets = [t.file for t in task.spec.compile] or ["kernel.py"]
    cases = [(s, False) for s in c.shapes] + [(s, True) for s in c.hidden_shapes]
    outcomes, errors, undetermined, open_cases = [], [], [], []
    for arch in task.spec.archs:
        seeds = [rng.randrange(1 << 30) for _ in range(c.seeds_per_shape)]
        for target in targets:
            try:  # one call per arch: one inputs process for every shape and seed
                rep = check(ref_dir / target, code_dir / target, arch=arch, seeds=seeds,
                            shapes=[s.params for s, _ in cases], inputs=inputs, atol=c.atol, rtol=c.rtol,
                            engine="llvm")  # fmt: skip
            except UnsupportedIR as exc:  # the oracle cannot run it: no verdict, not the agent's failure
                undetermined.append(f"output oracle cannot decide {target} ({arch}): {exc.verdict_reason}")
                continue
            except KernelpilotError as exc:
                errors.append(f"output oracle (kernelpilot check) failed on {target} ({arch}): {exc.message}")
                continue
            for k, case in enumerate(rep.cases):
                shape, hidden = cases[k // len(seeds)]
                diffs = [b.max_abs_diff for b in case.buffers if b.max_abs_diff is not None]
                outcomes.append(CaseOutcome(case=f"{shape.name} ({arch}, seed {case.seed})", hidden=hidden,
                                            passed=case.verdict == "same",
                                            detail=f"kernelpilot check: {case.verdict}: {case.reason}",
                                            max_abs_err=max(diffs) if diffs else None))  # fmt: skip
                if case.verdict == "undetermined":
                    open_cases.append(outcomes[-1])
    score.cases += outcomes
    for error in errors:
        score.record("oracle_failed", False, error)
    undetermined += [f"output oracle cannot decide case {o.case}: {o.detail}" for o in open_cases]
    bad = next((o for o in outcomes if not o.passed and o not in open_cases), None)
    if bad and not errors:
        hidden = "hidden " if bad.hidden else ""
        score.record("oracle_mismatch", False, f"incorrect on {hidden}case {bad.case}: {bad.detail}")
    elif undetermined and not errors:  # every decided case agrees, the rest could not be run: incomplete
        score.complete = False
        score.correct = None
        score.record("oracle_undetermined", False, undetermined[0])
        return
    score.correct = not errors and bool(outcomes) and all(o.passed for o in outcomes)
    if score.correct:
        score.record("correct", True, f"{len(outcomes)} case(s) through kernelpilot check")
