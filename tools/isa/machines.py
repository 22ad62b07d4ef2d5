"""Machine models as data: one YAML per device in ``tools/isa/machines/`` (CUs/SMs, clocks, HBM bandwidth and
latency, issue and matrix rates, each instruction class's issue cost and latency, the prediction's error band and its
per-kind bands), each figure with its source.

The analyses read figures by name (``machine("h100").value("dram_latency_cycles")``) and report the source beside
any figure they print; no analysis keeps its own copy of a device constant.

A file is validated when it is read (``MachineFile``: every figure a finite positive number with a non-empty
source, counts whole numbers, the band's factors positive): an edited file with a syntax error, a missing source, a
string, zero, negative, ``.nan`` or infinite figure is an InputError naming the file and the figure. The folder
``$KERNELPILOT_MACHINES_DIR`` (when set) is searched before the shipped one, so an edited copy of a device file, or a
new device, is used without touching the package.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tools.errors import InputError, field_problems
from tools.isa.arch import normalize_arch
from tools.models.predict import PredictionKind

MACHINE_DIR = Path(__file__).with_name("machines")
MACHINES_ENV = "KERNELPILOT_MACHINES_DIR"  # a folder of device files searched before MACHINE_DIR
MAX_MACHINE_BYTES = 1 << 20

# The device each architecture means when none is named (one GCD for MI250X, the SXM parts for NVIDIA).
DEFAULT_DEVICE = {
    "gfx90a": "mi250x",
    "gfx942": "mi300x",
    "gfx950": "mi355x",
    "sm_80": "a100",
    "sm_90": "h100",
}

REQUIRED = (
    "compute_units",
    "issue_units_per_cu",
    "wave_size",
    "max_waves_per_cu",
    "clock_mhz",
    "sustained_clock_mhz",
    "hbm_peak_gbs",
    "hbm_achievable_gbs",
    "l2_bytes",
    "dram_latency_cycles",
    "loaded_dram_latency_cycles",
    "memory_sector_bytes",
    "valu_cycles",
    "lds_bytes_per_cycle",
    "launch_overhead_us",
)


# figures that count something: whole numbers (a CU count of 131.5 is a typing error, not a device)
COUNTS = ("compute_units", "issue_units_per_cu", "wave_size", "max_waves_per_cu", "l2_bytes", "memory_sector_bytes")
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Source = Annotated[str, Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class FigureEntry(_Strict):
    model_config = ConfigDict(strict=True, extra="allow")
    value: Positive
    source: Source


class TableEntry(_Strict):
    model_config = ConfigDict(strict=True, extra="allow")
    value: dict[str, Positive]
    source: Source


class BandEntry(_Strict):
    model_config = ConfigDict(strict=True, extra="allow")
    status: Literal["validated", "unvalidated"]
    low: Positive | None = None
    high: Positive | None = None
    speedup_low: Positive | None = None
    speedup_high: Positive | None = None
    source: str | None = None
    note: str | None = None


class KindBandEntry(_Strict):
    """One kind's band (benchmarks/predict_bands.py): ``validated`` with its quantiles, or ``too_few`` residuals."""

    model_config = ConfigDict(strict=True, extra="allow")
    status: Literal["validated", "too_few"]
    n: Annotated[int, Field(ge=0)]
    low: Positive | None = None
    high: Positive | None = None


class PairBandEntry(_Strict):
    model_config = ConfigDict(strict=True, extra="allow")
    status: Literal["validated", "too_few"]
    n: Annotated[int, Field(ge=0)]
    speedup_low: Positive | None = None
    speedup_high: Positive | None = None


class KindBands(_Strict):
    """The per-kind bands of a device and where they come from (written by benchmarks/predict_bands.py --write)."""

    model_config = ConfigDict(strict=True, extra="allow")
    source: Source
    device: Source
    datasets: list[Source]
    date: Source
    predictor: Source
    min_residuals: Annotated[int, Field(ge=1)]
    device_wide: KindBandEntry | None = None  # every kind's residuals together: what a too-few kind falls back to
    kinds: dict[PredictionKind, KindBandEntry]
    pairs: dict[Literal["same_kind"], PairBandEntry] = Field(default_factory=dict)

    @field_validator("kinds")
    @classmethod
    def _ends(cls, kinds: dict[str, KindBandEntry]) -> dict[str, KindBandEntry]:
        for kind, e in kinds.items():
            if e.status == "validated" and not (e.low and e.high and e.low <= e.high):
                raise ValueError(f"{kind} is validated, so it needs low <= high")
        return kinds


class InstructionClassEntry(_Strict):
    """One instruction class's cost: ``issue`` cycles (a number, or the name of a figure such as ``valu_cycles``),
    ``by_shape`` a per-shape table (MFMA: ``mfma_cycles``, ``issue`` then the cost of a shape it does not list),
    ``latency`` the name of the figure whose cycles its result takes (memory), and the source of ``issue``."""

    issue: Positive | Annotated[str, Field(min_length=1)]
    by_shape: Annotated[str, Field(min_length=1)] | None = None
    latency: Annotated[str, Field(min_length=1)] | None = None
    source: Source


class MachineFile(_Strict):
    """What a device file holds; top-level ``{value, source}`` entries beside ``figures`` are figures or tables."""

    model_config = ConfigDict(strict=True, extra="allow")
    name: Annotated[str, Field(min_length=1)]
    product: Annotated[str, Field(min_length=1)]
    arch: Annotated[str, Field(min_length=1)]
    vendor: Literal["amd", "nvidia"]
    figures: dict[str, FigureEntry]
    band: BandEntry | None = None
    kind_bands: KindBands | None = None
    instruction_classes: dict[str, InstructionClassEntry] | None = None

    @field_validator("figures")
    @classmethod
    def _counts(cls, figures: dict[str, FigureEntry]) -> dict[str, FigureEntry]:
        for key in COUNTS:
            if key in figures and not float(figures[key].value).is_integer():
                raise ValueError(f"{key} is {figures[key].value}: a count, so a whole number")
        return figures


def _problems(model: type[BaseModel], data, prefix: tuple) -> list[str]:
    """``figures.compute_units.value: Input should be greater than 0``, one line per error (none: valid)."""
    try:
        model.model_validate(data)
    except ValidationError as exc:
        return field_problems(exc.errors(include_url=False, include_input=False), prefix)
    return []


def _read_machine(path: Path) -> tuple[dict, dict[str, tuple[float, str]], dict[str, tuple[dict[str, float], str]]]:
    """The file's top level, figures and tables, validated; an InputError naming the file and the figure."""
    shipped = MACHINE_DIR / path.name
    hint = 'each figure is {value: <a positive number>, source: "<where it comes from>"}; compare with ' + str(
        shipped if shipped.is_file() and shipped != path else MACHINE_DIR / "h100.yaml"
    )
    if path.stat().st_size > MAX_MACHINE_BYTES:
        raise InputError(f"{path} is larger than {MAX_MACHINE_BYTES:,} bytes: not a device file", hint=hint)
    try:
        raw = yaml.safe_load(path.read_text(errors="replace"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        what = getattr(exc, "problem", None) or type(exc).__name__
        raise InputError(f"{path} is not valid YAML{where}: {what}", hint=hint) from None
    if not isinstance(raw, dict):
        what = "empty" if raw is None else f"a YAML {type(raw).__name__}, not a mapping"
        raise InputError(f"{path} is {what}", hint=hint)
    # beside figures: top-level {value, source} entries, a figure or (value a mapping) a table; others are not read
    extra = {k: v for k, v in raw.items() if k not in MachineFile.model_fields and isinstance(v, dict) and "value" in v}
    tables = [k for k, v in extra.items() if isinstance(v["value"], dict)]
    problems = _problems(MachineFile, raw, ())
    for k, v in extra.items():  # named by their key, as the figures are
        problems += _problems(TableEntry if k in tables else FigureEntry, v, (k,))
    if problems:
        raise InputError(f"{path}: " + "; ".join(problems[:3]), hint=hint)
    figures = {k: (e["value"], e["source"]) for k, e in raw["figures"].items()}
    figures.update({k: (v["value"], v["source"]) for k, v in extra.items() if k not in tables})
    return raw, figures, {k: (dict(extra[k]["value"]), extra[k]["source"]) for k in tables}


@dataclass(frozen=True)
class ClassCost:
    """One class's cost with the figures it names resolved: ``issue`` cycles and its source, ``by_shape`` (substring
    of the mnemonic, cycles) tried first, ``latency`` cycles and its figure's source (None: not a memory class)."""

    name: str
    issue: float
    source: str
    by_shape: tuple[tuple[str, float], ...] = ()
    by_shape_source: str | None = None
    latency: float | None = None
    latency_source: str | None = None


def _instruction_classes(path: Path, raw: dict, figures: dict, tables: dict) -> dict[str, ClassCost]:
    """The file's ``instruction_classes`` with every figure and table they name looked up; an InputError naming the
    file, the class and the missing name."""
    out = {}
    for name, e in (raw.get("instruction_classes") or {}).items():
        named = [("issue", e["issue"], figures)] if isinstance(e["issue"], str) else []
        named += [(k, e[k], tables if k == "by_shape" else figures) for k in ("by_shape", "latency") if e.get(k)]
        for key, ref, where in named:
            if ref not in where:
                raise InputError(
                    f"{path}: instruction_classes.{name}.{key} names '{ref}', which the file does not define",
                    hint=f"{key} names a {'table' if key == 'by_shape' else 'figure'} of the same file; compare "
                    f"with {MACHINE_DIR / path.name if (MACHINE_DIR / path.name).is_file() else MACHINE_DIR}",
                )
        issue = e["issue"]
        shape = tables[e["by_shape"]][0] if e.get("by_shape") else {}
        lat = e.get("latency")
        out[name] = ClassCost(
            name,
            float(figures[issue][0] if isinstance(issue, str) else issue),
            figures[issue][1] if isinstance(issue, str) else e["source"],
            tuple(shape.items()),
            tables[e["by_shape"]][1] if e.get("by_shape") else None,
            float(figures[lat][0]) if lat else None,
            figures[lat][1] if lat else None,
        )
    return out


@dataclass(frozen=True)
class Machine:
    """One device: ``figures`` maps a name to (value, source); ``tables`` holds the per-dtype / per-shape rates."""

    name: str
    product: str
    arch: str
    vendor: str
    figures: dict[str, tuple[float, str]]
    tables: dict[str, tuple[dict[str, float], str]]
    band: dict
    kind_bands: dict = field(default_factory=dict)  # per-kind bands (tools.predict.kinds), {} where none
    # issue cost and latency per instruction class (tools.isa.costs.cost reads them), {} where the file has none
    instruction_classes: dict[str, ClassCost] = field(default_factory=dict)
    path: str = ""  # the file it was read from (errors name it)

    def value(self, key: str) -> float:
        return self.figures[key][0]

    def source(self, key: str) -> str:
        if key in self.figures:
            return self.figures[key][1]
        return self.tables[key][1]

    def table(self, key: str) -> dict[str, float]:
        return self.tables.get(key, ({}, ""))[0]

    @property
    def clock_hz(self) -> float:
        """The clock under load (what a time in cycles converts with)."""
        return self.value("sustained_clock_mhz") * 1e6


def machine_dirs() -> list[Path]:
    """Where device files are looked up, the first holding ``<name>.yaml`` wins: ``$KERNELPILOT_MACHINES_DIR``, then
    the shipped ``tools/isa/machines``."""
    extra = os.environ.get(MACHINES_ENV, "").strip()
    return [Path(extra).expanduser(), MACHINE_DIR] if extra else [MACHINE_DIR]


def machine_names() -> list[str]:
    return sorted({p.stem for d in machine_dirs() if d.is_dir() for p in d.glob("*.yaml")})


def machine(name: str) -> Machine:
    """The device model ``name`` (e.g. ``h100``); InputError for an unknown name or a damaged file, naming the file
    and the figure."""
    key = name.strip().lower()
    path = next((d / f"{key}.yaml" for d in machine_dirs() if key in machine_names() and (d / f"{key}.yaml").is_file()),
                None)  # fmt: skip
    if path is None:
        raise InputError(f"unknown device '{name}'", hint=f"use one of: {', '.join(machine_names())}")
    st = path.stat()
    return _machine(path, st.st_mtime_ns, st.st_size)


@cache
def _machine(path: Path, mtime_ns: int, size: int) -> Machine:
    """One file's model, read once per content (an edited file is read again)."""
    raw, figures, tables = _read_machine(path)
    missing = [k for k in REQUIRED if k not in figures]
    if missing:
        raise InputError(
            f"{path} lacks {', '.join(missing)}", hint="every device file names each figure and its source"
        )
    return Machine(
        raw["name"], raw["product"], raw["arch"], raw["vendor"], figures, tables, dict(raw.get("band") or {}),
        dict(raw.get("kind_bands") or {}), _instruction_classes(path, raw, figures, tables), str(path),
    )  # fmt: skip


def device_for(arch: str, device: str | None = None) -> Machine:
    """The device a prediction for ``arch`` assumes: ``device`` when given (it must be of that arch), else the
    architecture's default (gfx942 → MI300X, sm_90 → H100, ...)."""
    arch = normalize_arch(arch)
    if device is None:
        if arch not in DEFAULT_DEVICE:
            raise InputError(f"no device model for {arch}", hint=f"use one of: {', '.join(DEFAULT_DEVICE)}")
        return machine(DEFAULT_DEVICE[arch])
    m = machine(device)
    if m.arch != arch:
        same = [n for n in machine_names() if machine(n).arch == arch]
        raise InputError(
            f"device '{device}' is {m.arch}, not {arch}", hint=f"devices of {arch}: {', '.join(same) or 'none'}"
        )
    return m
