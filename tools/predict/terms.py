"""The predictor's terms as a table: each named term a launch's time can be bound by, the figure of the launch that
holds its time, how it is computed, and the machine-file figures it reads (each with the source the file gives it).
``predict --explain`` prints it per launch with every term's share of the launch's time, as llvm-mca's bottleneck
view names each cause: a reader sees which term decided the time, by how much, and on which device figures it rests.

The terms are those ``tools.predict.model.predict`` computes (its round terms, ``_ROUND_TERMS``, and the overrides
``_bound`` applies after them); the formulas here describe that code and must change with it
(tests/test_predict_terms.py checks each bound the model can print has a row, and each figure named is one the
machine files hold or says it is optional)."""

from __future__ import annotations

from dataclasses import dataclass

from tools.isa.machines import Machine
from tools.models.predict import LaunchPrediction


@dataclass(frozen=True)
class Term:
    name: str  # the bound predict prints when this term is the largest
    field: str  # the LaunchFigures field holding its time in us
    formula: str
    figures: tuple[str, ...]  # machine-file figures it reads
    kind: str = "term"  # "term": a round's term, summed over rounds; "override": a floor applied after the terms


TERMS: tuple[Term, ...] = (
    Term("memory_latency", "latency_us",
         "one wave's chain per round: per hot-loop trip, (load bytes / bytes in flight) windows of the loaded DRAM "
         "latency (longer when the round's warps keep more in flight than the L2 serves: Little's law) + dependent "
         "waits + the issue chain the loads do not hide; x trips, once per round",
         ("loaded_dram_latency_cycles", "dram_latency_cycles", "l2_bytes_per_cycle", "sustained_clock_mhz")),
    Term("hbm_bandwidth", "hbm_us",
         "bytes moved (requested, capped by the tensors' unique bytes, times the strided-access factor, plus spill "
         "lines evicted from the L2) / achievable HBM bandwidth; overlapped with the chain by closed queueing",
         ("hbm_achievable_gbs", "l2_bytes")),
    Term("l2_bandwidth", "l2_us", "bytes crossing the L2 (requests less L1 hits, plus local memory) / L2 bytes per "
         "clock", ("l2_bytes_per_cycle", "sustained_clock_mhz")),
    Term("issue", "issue_us", "warps per SM x issue cycles per warp / issue units per SM",
         ("issue_units_per_cu", "sustained_clock_mhz")),
    Term("valu", "valu_us", "warps per SM x vector-ALU cycles per warp / issue units per SM",
         ("issue_units_per_cu", "sustained_clock_mhz")),
    Term("matrix", "matrix_us", "warps per SM x matrix-unit cycles per warp (MFMA / wgmma / HMMA from the tables) / "
         "issue units per SM", ("issue_units_per_cu", "sustained_clock_mhz")),
    Term("lds", "lds_us", "LDS / shared-memory bytes per SM / LDS bytes per clock", ("lds_bytes_per_cycle", "sustained_clock_mhz")),
    Term("tail", "tail_us", "the last, partial round's time when it is 30 % or more of the launch (the grid's "
         "remainder on a few SMs)", ("compute_units",), "override"),
    Term("block_launch", "block_launch_us", "blocks launched / the rate the GPU starts blocks at",
         ("block_launch_per_cycle", "sustained_clock_mhz"), "override"),
    Term("atomic_contention", "atomic_us", "updates of one address (or 128-byte line / L2 sector) applied one after "
         "another, at the measured per-update time", ("same_address_atomic_ns",), "override"),
    Term("device_floor", "floor_us", "the device's own floor where the terms above came out below it: the bytes "
         "that must move at peak HBM bandwidth, the tensor or FP32 FLOP at peak (tools/predict/floors.py); the time "
         "is raised to it and the bound is the floor's", ("hbm_peak_gbs", "tensor_flops_per_cycle",
         "fp32_flops_per_cycle"), "override"),
    Term("launch_overhead", "launch_overhead_us", "the fixed GPU time of a launch, added to the total",
         ("launch_overhead_us",), "override"),
)  # fmt: skip
BY_NAME = {t.name: t for t in TERMS}
# bounds predict prints that name the unit a matrix term ran on (model._bound: bound = work.matrix_unit)
MATRIX_UNITS = ("mfma", "tensor", "wgmma")


def _figure(m: Machine, key: str) -> tuple[str, str]:
    """(value, source) of a machine figure or table as the file states it; missing ones say so."""
    if key in m.figures:
        return f"{m.value(key):g}", m.source(key)
    if key in m.tables:
        return "table", m.tables[key][1]
    return "absent", f"not in {m.name}.yaml: the term is left out (0) on this device"


def explain(launch: LaunchPrediction, m: Machine) -> list[dict]:
    """Every term of ``launch`` with its time, its share of the launch's predicted time, whether it decided the time,
    its formula and the figures it read (value, source)."""
    total = launch.predicted_us or 0.0
    bound = "matrix" if launch.bound in MATRIX_UNITS else launch.bound
    if launch.figures.floor_us is not None:  # a floor raised the time: it decided, whatever bound it names
        bound = "device_floor"
    rows = []
    for t in TERMS:
        us = getattr(launch.figures, t.field, None)
        rows.append(
            {
                "term": t.name,
                "kind": t.kind,
                "us": us,
                "share": (us / total) if us is not None and total > 0 else None,
                "decides": t.name == bound,
                "formula": t.formula,
                "figures": [{"key": k, "value": v, "source": s} for k in t.figures for v, s in [_figure(m, k)]],
            }
        )
    return rows


def format_explain(launch: LaunchPrediction, m: Machine) -> list[str]:
    """The term table of one launch as text lines: the deciding term marked, each term's us and share, then its
    formula and figures."""
    lines = [f"  terms of {launch.name} on {m.name} ({launch.predicted_us or 0:.1f} us, bound: {launch.bound}):"]
    for row in explain(launch, m):
        us = "-" if row["us"] is None else f"{row['us']:.2f} us"
        share = "" if row["share"] is None else f" ({row['share'] * 100:.0f} %)"
        mark = "=>" if row["decides"] else "  "
        lines.append(f"  {mark} {row['term']:<18} {us:>12}{share}  [{row['kind']}] {row['formula']}")
        for f in row["figures"]:
            lines.append(f"        {f['key']} = {f['value']}  ({f['source']})")
    return lines
