"""Models of an outcome verdict: is a rewrite correct, and is it faster on the GPU it will run on (measured, else
predicted with the predictor's band)? Shared by ``prefetch-data-load --verify``, ``vgpr-pressure --baseline`` and the
eval's amd-static scoring."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

OutcomeVerdict = Literal["pass", "fail", "undetermined"]


class Correctness(BaseModel):
    """Does AFTER compute what BEFORE computes: on a GPU (``kernelpilot_run``), else on the CPU (``check``)."""

    checked: bool = Field(description="False when nothing compared the outputs (see note)")
    ok: bool | None = Field(None, description="None when not checked or when the comparison could not decide")
    source: Literal["gpu", "check", "none"]
    note: str


class SpeedOutcome(BaseModel):
    """AFTER's speed against BEFORE's: a GPU measurement where there is one, else the predictor's figures."""

    source: Literal["measured", "predicted", "none"]
    speedup: float | None = Field(None, description="BEFORE time / AFTER time; > 1 means AFTER is faster")
    band: tuple[float | None, float | None] | None = Field(
        None, description="measured: the 95 % confidence interval; predicted: the model's error band of the speedup"
    )
    verdict: Literal["faster", "slower", "within-band", "undetermined"] = Field(
        description="faster / slower: the whole band (CI) lies above / below 1; within-band: it straddles 1"
    )
    baseline_us: float | None = None
    after_us: float | None = None
    bound: str | None = Field(None, description="predicted: what bounds AFTER's time (the predictor's 'bound')")
    device: str | None = None
    note: str = Field(description="the figures in one line, or why there are none")
