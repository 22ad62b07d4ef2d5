"""A variant folder's ``meta.json`` (benchmarks/predict_data/FORMAT.md), read and validated before anything uses it.

The fields the predictor reads are declared here with their types and bounds (a grid dimension 1..2**31-1, a block
of at most 1024 threads, at most ``MAX_LAUNCHES`` launches, names of at most ``MAX_NAME`` characters, finite
numbers only); the fields it does not read (timings, clocks) pass unchecked. A cut-off, forged or damaged file is an
``InputError`` naming the file and the field, never a traceback or a prediction from made-up figures.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tools.errors import InputError, field_problems

MAX_META_BYTES = 8 << 20  # the validation's files are under 10 kB
MAX_LAUNCHES = 1024  # a recorded call's GPU ops (the validation's most: 4)
MAX_ARGS = 1024
MAX_NAME = 4096  # characters of a kernel or argument name (the longest demangled CUDA name recorded: 267)
MAX_GRID_DIM = 2**31 - 1  # the largest grid dimension a launch may have (CUDA's x; HIP's)
MAX_BLOCK_THREADS = 1024
FORMAT_HINT = "see benchmarks/predict_data/FORMAT.md for each field; record the variant again (benchmarks/predict_collect.py) or fix that field"

Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME)]
Text = Annotated[str, Field(max_length=MAX_NAME)]
GridDim = Annotated[int, Field(ge=1, le=MAX_GRID_DIM)]
BlockDim = Annotated[int, Field(ge=1, le=MAX_BLOCK_THREADS)]


class _Strict(BaseModel):
    # strict: "64" is no grid dimension; extra fields (timings, clocks, hashes) are the validation's, not read here
    model_config = ConfigDict(strict=True, extra="allow")


class ArgumentMeta(_Strict):
    name: Name
    kind: Literal["tensor", "scalar", "other"]
    dtype: Text | None = None
    shape: Annotated[list[Annotated[int, Field(ge=0, le=2**48)]], Field(max_length=16)] | None = None
    nbytes: Annotated[int, Field(ge=1, le=2**50)] | None = None
    value: Any = None

    @field_validator("value")
    @classmethod
    def _plain(cls, v):
        items = v if isinstance(v, list) and len(v) <= 64 else [v]
        for x in items:
            if isinstance(x, float) and not math.isfinite(x) or not isinstance(x, bool | int | float | str | None):
                raise ValueError("should be a finite number, a string, true/false, null or a short list of them")
            if isinstance(x, str) and len(x) > MAX_NAME:
                raise ValueError(f"is a string of {len(x):,} characters (at most {MAX_NAME})")
        return v


class LaunchMeta(_Strict):
    op: Literal["kernel", "memset", "memcpy"] = "kernel"
    kernel: Name | None = None
    grid: Annotated[list[GridDim], Field(min_length=1, max_length=3)] | None = None
    block: Annotated[list[BlockDim], Field(min_length=1, max_length=3)] | None = None
    num_warps: Annotated[int, Field(ge=1, le=32)] | None = None
    num_stages: Annotated[int, Field(ge=0, le=32)] | None = None
    shared: Annotated[int, Field(ge=0, le=1 << 20)] | None = None
    registers: Annotated[int, Field(ge=1, le=512)] | None = None
    args: Annotated[list[ArgumentMeta], Field(max_length=MAX_ARGS)] | None = None
    constexprs: Annotated[dict[Name, Any], Field(max_length=MAX_ARGS)] | None = None
    files: dict[Literal["ttir", "ttgir", "llir", "ptx", "cubin", "sass", "json"], Text] = Field(default_factory=dict)
    notes: Annotated[list[Text], Field(max_length=256)] | None = None

    @model_validator(mode="after")
    def _threads(self) -> LaunchMeta:
        threads = 1
        for d in self.block or []:
            threads *= d
        if threads > MAX_BLOCK_THREADS:
            raise ValueError(f"block {self.block} is {threads} threads; a block has at most {MAX_BLOCK_THREADS}")
        for k, v in (self.constexprs or {}).items():
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"constexpr {k[:64]} is {v}: not a finite number")
        return self


class VariantMeta(_Strict):
    name: Name | None = None  # the folder's name, by FORMAT.md; a folder written by hand may leave it out
    language: Literal["triton", "cuda"] | None = None
    triton: Text | None = None
    device: Text | None = None
    launches: Annotated[list[LaunchMeta], Field(max_length=MAX_LAUNCHES)]


def load_meta(folder: Path) -> dict:
    """The folder's meta.json, validated against ``VariantMeta``, as the dict it holds (only the fields it gives)."""
    path = folder / "meta.json"
    if not path.is_file():
        raise InputError(f"{path} is not a regular file", hint=FORMAT_HINT)
    size = path.stat().st_size
    if size > MAX_META_BYTES:
        raise InputError(
            f"{path} is {size:,} bytes; a variant's meta.json is at most {MAX_META_BYTES:,}", hint=FORMAT_HINT
        )
    try:
        data = json.loads(path.read_bytes())
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                         hint=FORMAT_HINT + " (the file is cut off or damaged)") from None  # fmt: skip
    except (UnicodeDecodeError, RecursionError) as exc:
        raise InputError(f"{path} is not readable JSON ({type(exc).__name__})", hint=FORMAT_HINT) from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: the top level is a JSON {type(data).__name__}, not an object", hint=FORMAT_HINT)
    try:
        VariantMeta.model_validate(data)
    except ValidationError as exc:
        lines = field_problems(exc.errors(include_url=False, include_input=False))
        more = f" (and {len(lines) - 3} more)" if len(lines) > 3 else ""
        raise InputError(f"{path}: " + "; ".join(lines[:3]) + more, hint=FORMAT_HINT) from None
    return data
