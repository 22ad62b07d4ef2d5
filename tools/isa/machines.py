"""Machine models as data: one YAML per device in ``tools/isa/machines/`` (CUs/SMs, clocks, HBM bandwidth and
latency, issue and matrix rates, the prediction's error band), each figure with its source.

The analyses read figures by name (``machine("h100").value("dram_latency_cycles")``) and report the source beside
any figure they print; no analysis keeps its own copy of a device constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from tools.errors import InputError
from tools.isa.arch import normalize_arch

MACHINE_DIR = Path(__file__).with_name("machines")

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


def machine_names() -> list[str]:
    return sorted(p.stem for p in MACHINE_DIR.glob("*.yaml"))


@cache
def machine(name: str) -> Machine:
    """The device model ``name`` (e.g. ``h100``); InputError for an unknown name or a file missing a figure."""
    path = MACHINE_DIR / f"{name.strip().lower()}.yaml"
    if not path.is_file():
        raise InputError(f"unknown device '{name}'", hint=f"use one of: {', '.join(machine_names())}")
    raw = yaml.safe_load(path.read_text())
    figures: dict[str, tuple[float, str]] = {}
    tables: dict[str, tuple[dict[str, float], str]] = {}
    for key, entry in (raw.get("figures") or {}).items():
        figures[key] = (entry["value"], entry["source"])
    for key, entry in raw.items():
        if isinstance(entry, dict) and "value" in entry and "source" in entry:
            if isinstance(entry["value"], dict):
                tables[key] = (dict(entry["value"]), entry["source"])
            else:
                figures[key] = (entry["value"], entry["source"])
    missing = [k for k in REQUIRED if k not in figures]
    if missing:
        raise InputError(
            f"{path} lacks {', '.join(missing)}", hint="every device file names each figure and its source"
        )
    return Machine(
        raw["name"], raw["product"], raw["arch"], raw["vendor"], figures, tables, dict(raw.get("band") or {})
    )


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
