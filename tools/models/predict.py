"""Models for ``kernelpilot predict``: a predicted time per launch, what bounds it, the figures it came from.

``None`` means a figure could not be determined (never 0); every prediction carries its error band, which is
``unvalidated`` until benchmarks/RESULTS.md holds a validation on the device (see tools/isa/machines/*.yaml).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Bound = Literal[
    "hbm_bandwidth",
    "l2_bandwidth",
    "block_launch",
    "atomic_contention",
    "memory_latency",
    "issue",
    "valu",
    "mfma",
    "tensor",
    "lds",
    "tail",
    "launch_overhead",
]
TripSource = Literal["check", "loop-bounds", "assumption", "no-loop"]


BandStatus = Literal["validated", "assumed", "undetermined", "unvalidated"]

# The kind of a prediction (issue 31): which validation residuals its band comes from. Read from the model's own
# figures by ``tools.predict.kinds.kind_of`` (the first rule that holds, in this order); the machine file's
# ``kind_bands`` (benchmarks/predict_bands.py) holds one band per kind.
PredictionKind = Literal[
    "atomic",  # global atomics in the launch (their contention modelled, or not)
    "stated_trips",  # the hot loop's trips are stated (--trips, or a task's bytes / FLOP), not read from the code
    "loaded_trips",  # loop bounds loaded from tensors, evaluated on the example tensors' values
    "launch",  # bound by the launch overhead, the block launch rate or the last partial round
    "tensor",  # bound by tensor-core / MFMA time
    "latency",  # bound by memory latency (bytes in flight over the DRAM latency)
    "bandwidth",  # bound by HBM or L2 bandwidth
    "compute",  # bound by instruction issue, VALU or LDS time
]


class Band(BaseModel):
    """The error band of a prediction: measured time / predicted time lies in [low, high] for the validated share
    of kernels. ``validated``: the prediction rests on nothing assumed and the device has a validation (the device's
    band). ``assumed``: it rests on something stated in ``rests_on``; the band is the device's widened by what that
    assumption can cost (``None`` on an open side: no bound). ``undetermined``: the assumption can move the time by
    any amount (an assumed hot-loop trip count): no band. ``unvalidated``: the device has no validation."""

    low: float | None = None
    high: float | None = None
    speedup_low: float | None = Field(
        None, description="10th percentile of measured / predicted speedup over the validation's pairs"
    )
    speedup_high: float | None = Field(None, description="90th percentile of the same ratio")
    status: BandStatus = "unvalidated"
    source: str = Field(description="where the band comes from (a benchmarks/RESULTS.md section), or why none")
    note: str | None = Field(None, description="what the band covers and what it does not (from the machine file)")
    rests_on: list[str] = Field(
        default_factory=list,
        description="what the prediction assumes (an assumed trip count, atomics it cannot count, a table the machine "
        "file lacks, a guessed unroll, a time under the device's own floors), each with what it does to the band",
    )
    kind: PredictionKind | None = Field(
        None, description="the kind of prediction whose validation residuals give the band (tools.predict.kinds)"
    )
    residuals: str | None = Field(
        None,
        description="the validation residuals the band comes from: the kind's (how many, which data) or, with too few, "
        "the device-wide band's",
    )
    widened: tuple[float | None, float | None] = Field(
        (1.0, 1.0),
        description="(low, high) factors the assumptions multiplied the kind's band by (None: that side opened)",
    )


class TripEvidence(BaseModel):
    """How many times the hot loop runs, and where that number came from."""

    source: TripSource = Field(
        description="check: executed on the CPU engine; loop-bounds: scf.for bounds evaluated on the example "
        "arguments; assumption: stated (--trips or a default); no-loop: the kernel has no loop"
    )
    trips: float | None = Field(None, description="hot-loop iterations per program (mean over programs)")
    max_trips: float | None = Field(None, description="the longest program's iterations (sets the critical path)")
    detail: str


class LoopFigures(BaseModel):
    """One loop of the ISA, with its executed count."""

    header: str
    depth: int
    instructions: int = Field(description="instructions in the loop body (one iteration)")
    trips: float | None = None
    executed_instructions: float | None = Field(None, description="instructions x trips, per wave")
    hot: bool = False


class LaunchFigures(BaseModel):
    """The figures a launch's prediction used, so a reader can redo the arithmetic."""

    bytes_moved: float | None = Field(None, description="DRAM bytes the launch moves (loads + stores)")
    bytes_requested: float | None = Field(None, description="bytes the ISA's global loads/stores request in total")
    unique_tensor_bytes: int | None = Field(None, description="bytes of the launch's tensor arguments (each once)")
    bytes_in_flight_per_cu: float | None = Field(
        None, description="resident waves/warps per CU/SM x bytes a wave issues before its first wait"
    )
    bytes_in_flight_per_wave: float | None = None
    resident_waves_per_cu: int | None = Field(None, description="resident waves (AMD) / warps (NVIDIA) per CU/SM")
    resident_blocks_per_cu: int | None = None
    rounds: int | None = Field(None, description="waves of blocks: ceil(programs / (CUs x resident blocks per CU))")
    active_cus: int | None = None
    iteration_cycles: float | None = Field(None, description="issue cycles of one wave's hot-loop iteration")
    trips: float | None = None
    issue_us: float | None = Field(None, description="instruction issue time per CU/SM")
    valu_us: float | None = None
    matrix_us: float | None = Field(None, description="MFMA / tensor-core time per CU/SM")
    lds_us: float | None = None
    hbm_us: float | None = Field(None, description="bytes_moved / achievable HBM bandwidth")
    l2_us: float | None = Field(
        None, description="(bytes_requested + local-memory bytes) / L2 bandwidth (devices whose file states it)"
    )
    local_bytes: float | None = Field(None, description="local-memory (stack, spill) bytes the ISA moves in total")
    latency_us: float | None = Field(None, description="bytes_moved / (CUs x bytes in flight / DRAM latency)")
    tail_us: float | None = Field(None, description="time of the last, partial round of blocks")
    launch_overhead_us: float | None = None
    block_launch_us: float | None = Field(
        None, description="blocks / the GPU's block launch rate (devices whose file states it): a floor on the time"
    )
    atomic_updates_per_address: float | None = Field(
        None, description="the most updates one address takes from the launch's global atomics (programs sharing it)"
    )
    atomic_us: float | None = Field(
        None, description="atomic_updates_per_address x the L2's time per update of one address: a floor on the time"
    )
    achievable_bandwidth_gbs: float | None = Field(
        None, description="min(achievable HBM, CUs x in-flight / latency), GB/s"
    )
    floor_us: float | None = Field(
        None,
        description="the device floor the prediction was raised to (the source's tensor or FP32 work at peak, or the "
        "bytes it must touch at peak HBM bandwidth: tools/predict/floors.py); None when the model's terms were above",
    )


class LaunchPrediction(BaseModel):
    """The predicted time of one kernel launch on one device."""

    name: str
    arch: str
    device: str
    grid: list[int] | None = None
    programs: int | None = None
    block_threads: int | None = None
    predicted_us: float | None
    bound: Bound | None
    band: Band
    figures: LaunchFigures
    trips: TripEvidence
    loops: list[LoopFigures] = Field(default_factory=list)
    undetermined: str | None = Field(None, description="why there is no prediction")
    not_modelled: str | None = Field(
        None,
        description="set on a library op the artifacts hold no ISA for (e.g. a PyTorch fill kernel): why it is left "
        "out of the call's total",
    )
    notes: list[str] = Field(default_factory=list)


class LearnedEstimate(BaseModel):
    """A learned, bounded correction of the model's time (tools.predict.learned), printed beside it, never instead."""

    corrected_us: float | None = Field(description="the model's time x the learned factor; None where not applied")
    factor: float | None = Field(None, description="corrected / the model's time (capped; never below the floors)")
    applied: bool
    source: str = Field(description="what the correction was fitted on (the device's <name>.correction.json)")
    why: str = Field(description="the held-out figures it was judged by, or why it does not apply here")
    band: tuple[float, float] | None = Field(
        None, description="measured / corrected between these on 80 % of the held-out kernels it was judged on"
    )
    band_source: str | None = None


class PredictResult(BaseModel):
    """``kernelpilot predict``: every launch in order, the total, and with --baseline the predicted speedup."""

    summary: str
    source: str
    arch: str
    device: str
    launches: list[LaunchPrediction]
    predicted_us: float | None
    bound: Bound | None = Field(None, description="the bound of the launch that takes longest")
    band: Band
    baseline: str | None = None
    baseline_launches: list[LaunchPrediction] = Field(default_factory=list)
    baseline_predicted_us: float | None = None
    learned: LearnedEstimate | None = Field(
        None, description="a learned correction of predicted_us where the device has one (H200), with its evidence"
    )
    baseline_learned: LearnedEstimate | None = None
    predicted_speedup: float | None = Field(None, description="baseline_predicted_us / predicted_us")
    speedup_band: list[float | None] | None = Field(
        None, description="[low, high] of the speedup; null while unvalidated or undetermined; a side null where open"
    )
    notes: list[str] = Field(default_factory=list)


class PairPrediction(BaseModel):
    """Before/after prediction for the verdicts (``tools.predict.predict_pair``)."""

    baseline_predicted_us: float | None = None
    predicted_us: float | None = None
    predicted_speedup: float | None = None
    speedup_band: tuple[float | None, float | None] | None = Field(
        None,
        description="(low, high); None while unvalidated or undetermined; a side None where an assumption opens it",
    )
    bound: str | None = None
    undetermined: str | None = Field(None, description="why there is no prediction")
    notes: list[str] = Field(default_factory=list)
