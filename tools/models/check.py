"""Models of ``kernelpilot check``: does AFTER compute what BEFORE computes, on the same inputs, without a GPU."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field

Verdict = Literal["same", "different", "error", "undetermined"]
# the engines check runs a pair on: the one set, read by `kernelpilot check --engine` and the MCP check tool's engine
CheckEngine = Literal["auto", "llvm", "interpreter"]
ENGINE_CHOICES: tuple[str, ...] = get_args(CheckEngine)


class Mismatch(BaseModel):
    """One element whose value differs between the two kernels."""

    buffer: str
    index: list[int] = Field(description="element index in the buffer (multi-dimensional when the tensor is dense)")
    before: str
    after: str
    before_store: str | None = Field(
        default=None, description="source line (file:line) of the store that last wrote this element in BEFORE"
    )
    after_store: str | None = Field(
        default=None, description="source line (file:line) of the store that last wrote this element in AFTER"
    )


class BufferVerdict(BaseModel):
    """One buffer either kernel wrote, compared element by element."""

    name: str
    dtype: str
    elements: int
    written_by: list[str]
    mismatches: int
    max_abs_diff: float | None = None
    verdict: Literal["same", "different"]


class MemoryEvent(BaseModel):
    """An access the hardware would not serve from the kernel's own data, or a read of LDS nobody wrote."""

    kernel: Literal["before", "after"]
    kind: str = Field(
        description="past-allocation (outside the tensor: error), past-num-records (outside the buffer resource's "
        "range: the hardware returns 0 / drops the store), lds-uninitialised, lds-race (LDS another wave wrote since the "
        "last barrier), lds-out-of-range, private-out-of-range"
    )
    access: str
    workgroup: int
    thread: int
    offset: int = Field(description="byte offset from the start of the buffer (LDS: of the workgroup's LDS)")
    bytes: int
    buffer: str
    line: str = Field(description="source location of the access, with its inlined-at chain")
    user_line: str = Field(description="the outermost call site: the kernel body line that led to the access")
    instruction: str
    count: int = Field(1, description="lanes of this instruction with this kind of event (all, not just shown)")
    max_offset: int | None = Field(
        None, description="the highest byte offset any of those lanes accessed (all of them, not just the one shown)"
    )


class CaseResult(BaseModel):
    """One input set (seed and shape) run through both kernels."""

    seed: int
    shape: dict[str, int | float | str] = Field(default_factory=dict)
    buffers: list[BufferVerdict] = Field(default_factory=list)
    mismatches: list[Mismatch] = Field(default_factory=list, description="the first mismatching elements")
    events: list[MemoryEvent] = Field(default_factory=list)
    verdict: Literal["same", "different", "error", "undetermined"]
    reason: str = ""
    launches: str | None = Field(
        None,
        description="several launches per entry: after which launch the buffers first differ (same sequence on both "
        "sides), or that the sequences differ and only the entry's final outputs were compared",
    )
    seconds: float = 0.0


class CheckReport(BaseModel):
    """``kernelpilot check BEFORE AFTER``: the verdict, per input set, and the limits of the engine that ran."""

    summary: str
    before: str
    after: str
    engine: Literal["llvm", "interpreter"]
    arch: str | None = None
    kernels: list[str] = Field(default_factory=list, description="kernel names run, before → after")
    cases: list[CaseResult] = Field(default_factory=list)
    verdict: Verdict
    reason: str
    limits: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    call: str | None = Field(default=None, description="the --call both files ran, canonical spelling")
    target_note: str | None = Field(
        default=None,
        description="which target the IR that ran was compiled for and why (a Triton file is checked by the llvm "
        "engine whatever its target: compiled for gfx942 when sm_* is asked for)",
    )
    inputs: list[str] = Field(
        default_factory=list,
        description="each input buffer of the first input set and the distribution it was drawn from (floats "
        "standard normal, narrow integers over their dtype's range, wide ones in [0, numel), bools both values)",
    )
