"""The eval suite's data: a task as declared in ``evals/tasks/<id>/task.yaml``, and what scoring one task produced.

Every caller (the CLI, the leaderboard, the tests, the negative controls) reads and writes these models; a task
folder is validated against ``TaskSpec`` when it is loaded, so a typo in a task file is an error that names the field.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools.errors import InputError
from tools.frontends.registry import FrontendName

Track = Literal["amd-static", "gpu-runtime"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ShapeCase(_Strict):
    """One input configuration; ``params`` go to the task's ``make_inputs`` and to the performance formulas."""

    name: str
    params: dict[str, int | float] = Field(default_factory=dict)


class IsaCheck(_Strict):
    """One structural check on the compiled kernel; ``check`` names a function in ``evals.harness.isa_checks.CHECKS``.

    Resource checks (``vgpr_spill_count``, ``waves_per_simd``, any ``Resources`` field) compare with ``op``/``value``;
    pattern checks (``isa_contains``, ``isa_absent``) take a regex in ``pattern`` and search the hot loop when
    ``where`` is ``hot_loop``; loop checks (``loads_carried_ahead``, ``loads_in_flight_at_barrier``) count in the hot
    loop and compare the count with ``op``/``value`` (default ``>= 1``).
    """

    check: str
    op: Literal["==", "!=", "<=", ">=", "<", ">"] = ">="
    value: float | int | None = None
    pattern: str | None = None
    where: Literal["kernel", "hot_loop"] = "kernel"
    kernel: str | None = Field(None, description="substring of the kernel name; default: every kernel compiled")
    archs: list[str] | None = Field(None, description="default: the task's archs")
    description: str = ""
    why: str | None = Field(
        None,
        description="a structural check (a loop shape, an instruction pattern) stays only where the structure is the "
        "point of the task: say why here; budgets (VGPRs, waves, spills) need none",
    )


class CompileTarget(_Strict):
    """A file (relative to the workspace) compiled with dump-ir in file mode."""

    file: str
    archs: list[str] | None = None
    frontend: str | None = None


class CorrectnessSpec(_Strict):
    """How to check outputs: the reference and ``make_inputs`` live in ``reference`` (a workspace file read from the
    task folder, never from the agent's copy); ``entry`` is ``file:function`` in the candidate; ``loader`` is a
    task-side ``file:function`` that builds the callable from the candidate folder (CUDA tasks)."""

    reference: str = "reference.py"
    entry: str = "kernel.py:forward"
    loader: str | None = None
    shapes: list[ShapeCase]
    hidden_shapes: list[ShapeCase] = Field(default_factory=list)
    atol: float = 1e-5
    rtol: float = 1e-5
    seeds_per_shape: int = 2
    cpu_interpret: bool = Field(False, description="Triton kernels may be checked on CPU with TRITON_INTERPRET=1")
    oracle: Literal["reference", "llvm-cpu"] = Field(
        "reference",
        description="llvm-cpu: the reference solution and the candidate run through `kernelpilot check` (their LLVM "
        "IR on the CPU) on every shape; ``reference`` then names the task-side file defining kernelpilot_inputs()",
    )


class PerfSpec(_Strict):
    """How speed is judged. ``bytes``/``flops`` are Python expressions over a shape's params that give the minimum
    traffic and work; with the device's peaks they give the speed-of-light floor."""

    shapes: list[ShapeCase]
    reference_speedup: dict[str, float] = Field(
        default_factory=dict, description="device name -> speedup the reference solution reaches there"
    )
    required_speedup: float = Field(1.0, description="the 95 % CI's lower bound must exceed this")
    compiler_options_may_change: bool = True
    fixed_options: list[str] = Field(
        default_factory=lambda: ["num_warps", "num_stages", "waves_per_eu"],
        description="Triton options compared with the baseline when compiler_options_may_change is false",
    )
    bytes: str | None = None
    flops: str | None = None
    rounds: int = 7
    calls_per_round: int = 10
    checked_calls: int = 3


class PredictionSpec(_Strict):
    """What the predicted speed (``speed_bar``) needs that the compiled code does not give."""

    trips: float | None = Field(
        None,
        gt=0,
        description="the hot loop's iterations at the entry's launch, where the compiler cannot read them (FlyDSL's "
        "runtime loop bounds, e.g. n_blocks)",
    )
    why: str = Field(description="where the figure comes from (the entry's arguments)")


class TrapIsaChecks(_Strict):
    """Which of the task's ISA checks a trap fails on one arch (every other check passes)."""

    arch: str = "gfx942"
    failing: list[str] = Field(description="the failing checks in task order: ``check``, or ``check/pattern``")
    observed: float | int = Field(description="what the last failing check observed")


class TrapScore(_Strict):
    """How the real scorer fails a trap: its stage code and, where the prediction decides, the predicted speedup."""

    code: StageCode = Field(description="the failing stage code of the score (e.g. isa_check_failed, needs_gpu)")
    speedup: float | None = Field(None, description="the predicted speedup over the baseline it must show (±0.01)")


class Trap(_Strict):
    """A wrong or half-done answer kept in ``traps/<file>``, and how the task must fail it."""

    file: str
    why: str = Field(description="what the trap gets wrong, in the figures the checks and the predictor see")
    isa_checks: TrapIsaChecks | None = None
    score: TrapScore | None = None


class PredictedSpeed(_Strict):
    """The predicted speedup of the reference over the baseline on one arch (``tools.outcome.predict_speed``)."""

    arch: str
    speedup: float = Field(description="pinned within ±0.006")
    bound: str = Field(description="the bound the prediction names for the reference (e.g. memory_latency)")
    why: str = ""


class Expected(_Strict):
    """What the tests pin about this task, read from here by generic tests (tests/test_eval_tasks.py,
    tests/test_eval_task_predictions.py): a new task brings its own figures and traps in its folder."""

    reference_speedup: float | None = Field(
        None, description="the scorer's predicted speedup of solution.patch (±0.01), which must pass on outcomes"
    )
    reference_why: str = ""
    predicted: list[PredictedSpeed] = Field(
        default_factory=list,
        description="a task without a speed_bar: its reference predicted no clearly faster than the baseline, the "
        "figures its structural checks' whys rest on",
    )
    traps: list[Trap] = Field(default_factory=list)


class TaskSpec(_Strict):
    """A task folder, top to bottom: ``workspace/`` is what the agent gets, ``solution.patch`` the reference answer."""

    id: str
    track: Track
    language: FrontendName  # the frontends' registry (tools.frontends.registry)
    archs: list[str]
    title: str
    prompt: str = Field(description="the guided prompt: names the transformation and the kernel's structure")
    prompt_plain: str | None = Field(
        None,
        description="the plain prompt: the user's words (e.g. '/prefetch-data-load kernel.py'); leaderboard default",
    )
    difficulty: Literal["easy", "medium", "hard"] = Field(
        "medium", description="hard: a reference of 60+ changed lines, or two coupled transformations"
    )
    editable: list[str] = Field(description="glob patterns (workspace-relative) the agent may change or create")
    baseline: list[str] = Field(description="the files the agent starts from")
    compile: list[CompileTarget] = Field(default_factory=list)
    correctness: CorrectnessSpec | None = None
    performance: PerfSpec | None = None
    isa_checks: list[IsaCheck] = Field(default_factory=list)
    speed_bar: float | None = Field(
        None,
        description="amd-static: the predicted speedup over the baseline (tools.predict, per arch, geometric mean of "
        "the kernels' GPU time without the fixed per-launch overhead) a candidate must reach, e.g. 1.05; unset: the "
        "task is not scored on predicted speed",
    )
    prediction: PredictionSpec | None = None
    forbidden_calls: list[str] = Field(default_factory=list, description="dotted names the candidate may not call")
    allow_streams: bool = False
    time_limit_s: int = 1800
    tags: list[str] = Field(default_factory=list)
    expected: Expected = Field(default_factory=Expected, description="the figures and traps the tests pin")


# --- results --------------------------------------------------------------------------------------------------


class CheckOutcome(BaseModel):
    """One check's verdict, with the figure it saw."""

    name: str
    passed: bool
    detail: str
    arch: str | None = None
    kernel: str | None = None
    observed: float | int | str | None = None


StageCode = Literal[
    "diff_rejected",  # edits outside `editable`, or a change that does not apply
    "static_check",  # timer/library monkeypatching, side streams, forbidden calls, importing the reference
    "toolchain_missing",  # a compiler this task needs is not installed here (incomplete, not the agent's)
    "compile_failed",
    "compiled",
    "isa_check_failed",
    "isa_ok",
    "reference_failed",  # the task's reference (or its re-check) broke: a task bug, not the agent's
    "candidate_crashed",  # the candidate's process failed, timed out or raised at import
    "oracle_mismatch",  # wrong outputs (public, hidden, or a re-checked timed call)
    "correct",
    "needs_gpu",  # a stage needs a GPU that is not here (incomplete, never passed)
    "timer_tampered",
    "side_stream",  # host time far above event time: work outside the timed stream
    "speed_of_light_exceeded",
    "timing_failed",
    "oracle_failed",  # the output oracle (kernelpilot check) could not run on the candidate
    "oracle_undetermined",  # the oracle cannot decide (an instruction check does not run): incomplete, not the agent's
    "timeout",  # a scoring stage of the candidate ran past its deadline (StageOutcome.stage names it)
    "out_of_memory",  # the candidate's scoring processes went over the memory cap (StageOutcome.stage names the stage)
    "slower",  # the speedup's CI lower bound does not clear required_speedup
    "faster",
    "infra_error",  # the harness failed twice; the verdict is not the agent's
]
FAILING_CODES: frozenset[str] = frozenset(
    c for c in StageCode.__args__ if c not in ("compiled", "isa_ok", "correct", "faster")
)
# the host lacked something a stage needs: the score is incomplete, the verdict undecidable here (not the agent's)
INCOMPLETE_CODES: frozenset[str] = frozenset({"toolchain_missing", "needs_gpu", "oracle_undetermined"})


class StageOutcome(BaseModel):
    """One stage's typed result: the verdict is computed from these codes, never from the text of ``detail``."""

    code: StageCode
    passed: bool
    detail: str = ""
    stage: str | None = Field(None, description="for timeout and out_of_memory: the scoring stage that was running")


class CaseOutcome(BaseModel):
    """Correctness of one (shape, seed) case."""

    case: str
    hidden: bool = False
    passed: bool
    detail: str
    max_abs_err: float | None = None


class TimingOutcome(BaseModel):
    """Interleaved baseline/candidate timing of one shape."""

    shape: str
    baseline_ms: float
    candidate_ms: float
    speedup: float
    ci_low: float
    ci_high: float
    rounds: int
    verdict: str | None = Field(
        None, description="tools.profilers.timing.compare_times: faster | slower | inconclusive"
    )
    sol_ms: float | None = None
    fraction_of_sol: float | None = None
    flags: list[str] = Field(default_factory=list)


class AgentOutcome(BaseModel):
    """How the agent's run ended. ``reported`` holds what the agent says (cost, tokens); it is never scored."""

    agent: str
    returncode: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    reported: dict = Field(default_factory=dict)
    log: str | None = None
    leftover_processes: list[str] = Field(
        default_factory=list,
        description="command lines of the processes the agent left running outside its session, killed when it ended",
    )


class TaskScore(BaseModel):
    """Everything scoring one (task, agent) produced; ``passed`` is the verdict and ``reasons`` say why."""

    task_id: str
    track: Track
    agent: str
    passed: bool
    complete: bool = Field(True, description="False when a required stage could not run here (e.g. no GPU)")
    reasons: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list, description="audit notes that did not change the verdict")
    base_commit: str = ""
    changed_files: list[str] = Field(default_factory=list)
    diff_ok: bool = True
    static_ok: bool = True
    compiled: bool = False
    isa_ok: bool | None = None
    correct: bool | None = None
    speedup: float | None = Field(None, description="geomean over perf shapes; None when not timed")
    speedup_ci: tuple[float, float] | None = None
    fraction_of_sol: float | None = None
    sol_defined: bool = Field(
        False, description="the task states a speed-of-light (bytes/flops or a prediction): it enters the SOL score"
    )
    checks: list[CheckOutcome] = Field(default_factory=list)
    cases: list[CaseOutcome] = Field(default_factory=list)
    timings: list[TimingOutcome] = Field(default_factory=list)
    agent_outcome: AgentOutcome | None = None
    device: str = "cpu"
    seconds: float = 0.0
    stage_seconds: dict[str, float] = Field(
        default_factory=dict,
        description='wall seconds of each scoring stage in order ("starting": the scoring process\'s start and imports; '
        '"waiting for the GPU": another scoring held this GPU or its quiet lock), summed over repeats',
    )
    infra_error: str | None = Field(
        None, description="the harness (not the agent) failed twice on this task; the verdict is not the agent's"
    )
    outcomes: list[StageOutcome] = Field(
        default_factory=list, description="each stage's typed result; `passed` is computed from their codes"
    )
    code: StageCode | None = Field(None, description="the first failing stage's code; None when passed")

    def record(self, code: StageCode, passed: bool, detail: str) -> None:
        """One stage's outcome; a failing one's detail is also a reason (the text people read: the verdict reads
        the codes, never this text)."""
        self.outcomes.append(StageOutcome(code=code, passed=passed, detail=detail))
        if not passed:
            self.reasons.append(detail)

    def record_infra_error(self, why: str) -> None:
        """The harness, not the agent, failed on this task: recorded apart, left out of every rate."""
        self.infra_error = why
        self.code = "infra_error"
        self.outcomes.append(StageOutcome(code="infra_error", passed=False, detail=why))
        self.reasons.append(f"infra_error: {why} (not the agent's failure; re-run the task)")

    prompt_level: Literal["plain", "guided"] = Field(
        "guided", description="the prompt the agent got (plain falls back to guided when the task has no plain one)"
    )


class RunMetrics(BaseModel):
    """Suite-level figures for one agent over one set of tasks."""

    agent: str
    tasks: int = Field(description="tasks scored: every task of the run but those with an infra_error")
    passed: int
    sol_score: float | None = Field(
        None,
        description="the ranking score: geometric mean over tasks of the fraction of speed-of-light (a failed task "
        "scores 0, floored at 1 % in the mean; incomplete tasks and passes without a SOL figure left out)",
    )
    sol_score_ci: tuple[float, float] | None = Field(None, description="95 % bootstrap CI of sol_score over tasks")
    sol_scored_tasks: int = Field(0, description="tasks that entered sol_score")
    pass_rate: float = 0.0
    compile_rate: float
    correct_rate: float
    isa_pass_rate: float
    fast_p: dict[str, float] = Field(description="share of ALL tasks correct and faster than p×")
    geomean_speedup: float = Field(description="over all tasks; a failed or untimed task counts as 1.0×")
    mean_fraction_of_sol: float | None = None
    incomplete: int = 0
    infra_errors: int = Field(
        0, description="tasks the harness failed on (infra_error): left out of every rate, counted here"
    )
    undetermined: int = Field(
        0,
        description="tasks whose output oracle could not decide (oracle_undetermined: an instruction kernelpilot "
        "check does not run): left out of every rate, counted here, never against the agent",
    )
    mean_agent_seconds: float | None = None
    scoring_stage_seconds: dict[str, float] = Field(
        default_factory=dict, description="each scoring stage's wall seconds summed over the run's tasks"
    )
    mean_agent_cost_usd: float | None = None
    devices: list[str] = Field(default_factory=list)
    prompt_levels: dict[str, int] = Field(default_factory=dict, description="tasks run per prompt level")


def read_score(path: Path) -> TaskScore:
    """The TaskScore stored in ``path``; InputError saying why when it cannot be read back (cut off by a crash or a
    full disk, edited by hand, not a regular file), naming the file and the first field or JSON position at fault."""
    try:
        mode = path.stat().st_mode
        if stat.S_ISREG(mode):
            return TaskScore.model_validate_json(path.read_bytes())
        # a FIFO would block the reader
        why = "a folder" if stat.S_ISDIR(mode) else "not a regular file: a FIFO, a device or a socket"
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        why = f"{where}: {first['msg']}" if where else first["msg"]
    raise InputError(f"{path} is not a readable result ({why[:200]})", hint="score the task again: `eval run` does")
