"""The speed model (tools/predict) against every real AMD measurement in ../shared/fixtures (issue 22, CPU only).

For each fixture that carries kernel durations or cycles, the predictor is given what the fixture itself holds:

* ATT UI directories (gfx942 CK batched GEMM, gfx950 FlyDSL rmsnorm and softmax): the ISA is code.json's
  instructions (branch offsets turned into labels), the trip counts are ATT's hit counts (executions of each loop
  header per traced wave: measured, not assumed), the residency is the most waves the trace saw on one SIMD
  (occupancy.json). Compared: cycles per wave (filenames.json begin/end) against the predicted round time in
  cycles (a wave's time when the CU is as full as the trace shows).
* rocpd SQLite (151 dispatches on an MI300X): the CK kernel's ISA and trips from the ATT directory of the same run
  (dispatch 2 in both), grid / workgroup / LDS / registers from the database; compared: dispatch duration.
* gfx950 kernel trace / stats CSVs: durations only; no fixture holds these kernels' ISA, so `undetermined`.

Every figure carries its limits (what the fixture lacks). Usage: ``python benchmarks/predict_amd_fixtures.py
[--fixtures DIR] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.isa.amdgcn import find_kernel, parse_isa  # noqa: E402
from tools.isa.arch import amd_occupancy  # noqa: E402
from tools.isa.cfg import build_cfg  # noqa: E402
from tools.isa.machines import device_for  # noqa: E402
from tools.models.dump import CompilerVersions, KernelDump, LaunchInfo, Resources  # noqa: E402
from tools.predict import predict_launch  # noqa: E402
from tools.profilers.att import att_isa_text, read_att_dir  # noqa: E402
from tools.profilers.rocprofv3 import read_kernel_stats_csv, read_kernel_trace_csv, read_rocpd  # noqa: E402

FIXTURES = ROOT.parent / "shared" / "fixtures"
ATT = {
    "rocprofv3_att/gfx942_ck_bmm_ui_output_agent_5600_dispatch_2.tar.gz": ("gfx942", "hip"),
    "rocprofv3_att/gfx950_flydsl_rmsnorm_ui_output_agent_19276_dispatch_18.tar.gz": ("gfx950", "flydsl"),
    "rocprofv3_att/gfx950_flydsl_softmax_ui_output_agent_47920_dispatch_13.tar.gz": ("gfx950", "flydsl"),
}
ATT_STATS = "rocprofv3_att/gfx942_ck_bmm_stats_ui_output_agent_5600_dispatch_2.csv"
ROCPD = "rocprofv3/gfx942_ck_bmm_results.db"
TRACE_CSV = "rocprofv3/gfx950_flash_attn_kernel_trace.csv"
STATS_CSV = "rocprofv3/gfx950_flash_attn_kernel_stats.csv"
HIPCC_ISA = "amdgcn_isa/gfx942_hipcc_batched_gemm.s"


def _row(fixture, kernel, arch, **kw) -> dict:
    base = {"fixture": fixture, "kernel": kernel, "arch": arch, "device": None, "unit": None, "measured": None,
            "predicted": None, "error_pct": None, "bound": None, "trips": None, "terms_us": None, "undetermined": None,
            "limits": []}  # fmt: skip
    base.update(kw)
    return base


def _error(pred: float | None, meas: float | None) -> float | None:
    return None if pred is None or not meas else round(100 * (pred - meas) / meas, 1)


# --- ATT ---------------------------------------------------------------------------------------------------------


def att_executions(isa_text: str, kernel: str, rows: list, waves: int) -> dict:
    """Per ISA loop (build_cfg's order, as tools.predict.amd reads them): executions of its header per traced wave
    (ATT hit counts summed over the traced waves / waves), in the form predict_launch takes as ``executed``."""
    k = find_kernel(parse_isa(isa_text, kernel), kernel)
    if len(k.instructions) != len(rows):
        raise ValueError(f"{len(k.instructions)} parsed instructions for {len(rows)} code.json rows")
    cfg = build_cfg(k)
    loops = [{"depth": lp.depth, "executions": rows[cfg.blocks[lp.header].start].hit / waves} for lp in cfg.loops]
    return {"loops": loops, "workgroups": None, "waves": waves}


def att_wave_cycles(folder: Path) -> list[int]:
    """Each traced wave's duration in shader cycles (filenames.json: [file, begin, end])."""
    doc = json.loads((folder / "filenames.json").read_text())
    out = []

    def walk(node):
        if isinstance(node, list) and len(node) == 3 and isinstance(node[1], int):
            out.append(node[2] - node[1])
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)

    walk(doc.get("wave_filenames") or {})
    return out


def att_residency(folder: Path) -> tuple[int, int]:
    """(most waves resident on one SIMD, on one CU) at any time in occupancy.json (per shader engine)."""
    doc = json.loads((folder / "occupancy.json").read_text())
    simd_max = cu_max = 0
    for se, events in doc.items():
        if not se.isdigit():
            continue
        simd: dict = {}
        cu: dict = {}
        for _, c, s, _slot, start, _k in sorted(events, key=lambda e: (e[0], -e[4])):
            d = 1 if start else -1
            simd[(c, s)] = simd.get((c, s), 0) + d
            cu[c] = cu.get(c, 0) + d
            simd_max = max(simd_max, simd[(c, s)])
            cu_max = max(cu_max, cu[c])
    return simd_max, cu_max


def att_clock_mhz(folder: Path) -> float | None:
    """Shader clock implied by realtime.json ([gfx_clock, realtime at 100 MHz] pairs per SE), mean over SEs."""
    path = folder / "realtime.json"
    if not path.is_file():
        return None
    doc = json.loads(path.read_text())
    freq = doc.get("metadata", {}).get("frequency") or 1e8
    rates = []
    for se, pairs in doc.items():
        if se.startswith("SE") and len(pairs) >= 2:
            (g0, t0), (g1, t1) = pairs[0], pairs[-1]
            if t1 > t0:
                rates.append((g1 - g0) / ((t1 - t0) / freq) / 1e6)
    return round(statistics.mean(rates), 1) if rates else None


def _dump(name, arch, frontend, isa_path, grid, threads, waves_per_simd, lds=None) -> KernelDump:
    return KernelDump(
        name=name,
        arch=arch,
        frontend=frontend,
        compiler=CompilerVersions(frontend=frontend, versions={}),
        stages=[],
        final_isa=str(isa_path),
        resources=Resources(waves_per_simd=waves_per_simd, lds_bytes=lds, wavefront_size=64),
        launch=LaunchInfo(grid=list(grid), programs=math.prod(grid), block_threads=threads, source="trace"),
    )


def _max_vgpr(rows) -> int:
    import re

    top = 0
    for r in rows:
        for m in re.finditer(r"(?<![\w.])[va](?:(\d+)|\[\d+:(\d+)\])", r.isa):
            top = max(top, int(m.group(1) or m.group(2)) + 1)
    return top


def predict_att(fixtures: Path, rel: str, arch: str, frontend: str, work: Path, ck_launch: dict | None) -> dict:
    """One ATT directory: measured cycles per wave against the predicted round time in cycles."""
    folder = work / Path(rel).name.removesuffix(".tar.gz")
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fixtures / rel) as tar:
        for m in tar.getmembers():
            if m.isfile():
                m.name = Path(m.name).name
                tar.extract(m, folder, filter="data")
    trace = read_att_dir(folder)
    kernel = trace.kernels[0]
    short = kernel if len(kernel) < 40 else kernel[:37] + "..."
    text, rows = att_isa_text(trace, kernel)
    isa_path = folder / "att_code.s"
    isa_path.write_text(text)
    waves = rows[0].hit  # the first instruction runs once per traced wave
    executed = att_executions(text, kernel, rows, waves)
    cycles = att_wave_cycles(folder)
    per_simd, per_cu = att_residency(folder)
    clock = att_clock_mhz(folder)
    m = device_for(arch, None)
    ran = sum(1 for r in rows if r.hit)
    never = (
        "" if ran == len(rows) else f"; the model counts the {len(rows) - ran} never-executed ones outside loops once"
    )
    limits = [
        f"ISA = code.json of this dispatch ({len(rows)} instructions, {ran} executed{never})",
        f"trips = ATT hit counts / {waves} traced waves (measured)",
        f"{len(cycles)} traced wave durations in filenames.json (begin/end); most resident seen: {per_simd} "
        f"wave(s)/SIMD, {per_cu} waves/CU",
        f"clock: ATT realtime.json implies {clock} MHz; the model's terms are in its {m.value('clock_mhz'):g} MHz cycles",
    ]
    if ck_launch:  # the rocpd row of the same dispatch
        grid, threads, wps = ck_launch["grid"], ck_launch["threads"], ck_launch["waves_per_simd"]
        limits.append(
            f"grid {grid} x {threads} threads, {wps} wave/SIMD from the rocpd row of the same dispatch (registers, LDS)"
        )
        limits.append("tensor sizes unknown: DRAM bytes = bytes the ISA requests (no cap by unique bytes)")
    else:
        vg = _max_vgpr(rows)
        wps = per_simd
        threads = 64
        grid = [int(m.value("compute_units")) * per_cu, 1, 1]
        occ = amd_occupancy(arch, vg, workgroup_size=256)
        limits.append(
            f"grid and workgroup size unknown (ATT records neither): predicted as one full round of one-wave groups "
            f"at the traced residency ({per_cu} waves/CU); registers used v/a0..{vg - 1} would allow {occ.value} "
            "waves/SIMD"
        )
        limits.append("tensor sizes unknown: DRAM bytes = bytes the ISA requests")
    p = predict_launch(_dump(kernel, arch, frontend, isa_path, grid, threads, wps), executed=executed)
    measured = round(statistics.mean(cycles)) if cycles else None
    base = dict(device=m.name, unit="cycles/wave", measured=measured, limits=limits)
    if p.predicted_us is None:
        return _row(rel, short, arch, undetermined=p.undetermined, **base)
    rounds = p.figures.rounds or 1
    predicted = round((p.predicted_us - (p.figures.launch_overhead_us or 0)) / rounds * m.value("clock_mhz"))
    hot = next((lp for lp in p.loops if lp.hot), None)
    trips = f"{hot.header}: {hot.trips:g}/wave" if hot else "no loop"
    return _row(rel, short, arch, predicted=predicted, error_pct=_error(predicted, measured), bound=p.bound,
                trips=trips, terms_us=_terms(p), **base)  # fmt: skip


def _terms(p) -> dict:
    """The model's terms (us, summed over rounds): which one the time came from, and how far the others were."""
    f = p.figures
    return {k: round(v, 2) for k, v in (("latency", f.latency_us), ("hbm", f.hbm_us), ("issue", f.issue_us),
                                         ("valu", f.valu_us), ("matrix", f.matrix_us), ("lds", f.lds_us)) if v}  # fmt: skip


# --- rocpd / CSV ---------------------------------------------------------------------------------------------------


def ck_launch_of(fixtures: Path) -> tuple[dict, list]:
    """The CK kernel's launch (dispatch 2 of the rocpd db, the ATT'd dispatch) and all its dispatches."""
    trace = read_rocpd(fixtures / ROCPD)
    ck = [d for d in trace.dispatches if "BatchedGemmKernel" in d.name]
    d2 = next(d for d in ck if d.dispatch_id == 2)
    wg = d2.workgroup
    groups = [math.ceil(g / w) for g, w in zip(d2.grid, wg, strict=True)]
    threads = math.prod(wg)
    vgprs = (d2.vgpr_count or 0) + (d2.accum_vgpr_count or 0)  # TOOL_OUTPUT_FORMATS pitfall 2: only the sum is right
    occ = amd_occupancy("gfx942", vgprs, lds_bytes=d2.lds_bytes, workgroup_size=threads)
    return {"grid": groups, "threads": threads, "waves_per_simd": occ.value, "lds": d2.lds_bytes,
            "vgprs": vgprs, "dispatch": d2}, ck  # fmt: skip


def predict_rocpd(fixtures: Path, ck_launch: dict, ck: list, att_folder: Path) -> list[dict]:
    trace = read_rocpd(fixtures / ROCPD)
    out = []
    m = device_for("gfx942", None)
    durations = [d.duration_ns / 1e3 for d in ck]
    isa = att_folder / "att_code.s"
    kernel = ck[0].symbol or ck[0].name
    att = read_att_dir(att_folder)
    name = att.kernels[0]
    text, rows = att_isa_text(att, name)
    executed = att_executions(text, name, rows, rows[0].hit)
    k = _dump(name, "gfx942", "hip", isa, ck_launch["grid"], ck_launch["threads"], ck_launch["waves_per_simd"],
              ck_launch["lds"])  # fmt: skip
    p = predict_launch(k, executed=executed)
    measured = round(statistics.median(durations), 2)
    hot = next((lp for lp in p.loops if lp.hot), None)
    limits = [
        f"{len(ck)} dispatches, all grid {ck_launch['dispatch'].grid} workgroup {ck_launch['dispatch'].workgroup}; "
        f"measured = median {measured} us (min {min(durations):.2f}, max {max(durations):.2f}; dispatch 2: "
        f"{ck_launch['dispatch'].duration_ns / 1e3:.2f} us)",
        f"ISA and trips from the ATT of dispatch 2 of the same run (code.json), not from {HIPCC_ISA} (its two kernels "
        "are batched_matrix_multiplication_naive / _matrix_core_64x64x4, not this CK kernel)",
        f"occupancy from the rocpd row: VGPR {ck_launch['vgprs']} (arch + accum), LDS {ck_launch['lds']} B -> "
        f"{ck_launch['waves_per_simd']} wave/SIMD",
        "tensor sizes unknown (rocpd records no kernel arguments): DRAM bytes = bytes the ISA requests",
        f"clock unknown per dispatch; model uses {m.value('clock_mhz'):g} MHz (the ATT of dispatch 2 implies ~1884)",
        "trips measured on dispatch 2 only; the other 149 dispatches have the same grid (same problem assumed)",
    ]
    out.append(_row(ROCPD, kernel[:37] + "...", "gfx942", device=m.name, unit="us/dispatch", measured=measured,
                    predicted=p.predicted_us, error_pct=_error(p.predicted_us, measured), bound=p.bound,
                    trips=f"{hot.header}: {hot.trips:g}/wave" if hot else "no loop", limits=limits, terms_us=_terms(p),
                    undetermined=p.undetermined))  # fmt: skip
    for d in trace.dispatches:
        if "BatchedGemmKernel" not in d.name:
            out.append(_row(ROCPD, d.name, "gfx942", device=m.name, unit="us/dispatch", measured=d.duration_ns / 1e3,
                            undetermined="no ISA for this runtime kernel in the fixtures",
                            limits=["ROCm's own fill kernel; its code object is not in the fixtures"]))  # fmt: skip
    return out


def predict_gfx950_csvs(fixtures: Path) -> list[dict]:
    out = []
    m = device_for("gfx950", None)
    trace = read_kernel_trace_csv(fixtures / TRACE_CSV)
    by_name: dict[str, list] = {}
    for d in trace.dispatches:
        by_name.setdefault(d.name, []).append(d)
    why = "no ISA for this kernel in the fixtures (only the trace's names, grids and register counts)"
    for name, ds in by_name.items():
        dur = statistics.median(d.duration_ns for d in ds) / 1e3
        out.append(_row(TRACE_CSV, name if len(name) < 40 else name[:37] + "...", "gfx950", device=m.name,
                        unit="us/dispatch", measured=round(dur, 2), undetermined=why,
                        limits=[f"{len(ds)} dispatch(es), grid {ds[0].grid} workgroup {ds[0].workgroup}; "
                                "VGPR_Count is half the allocation on gfx950 (pitfall 2)"]))  # fmt: skip
    stats = read_kernel_stats_csv(fixtures / STATS_CSV)
    for s in stats.stats:
        out.append(_row(STATS_CSV, s.name if len(s.name) < 40 else s.name[:37] + "...", "gfx950", device=m.name,
                        unit="us/dispatch", measured=round(s.avg_ns / 1e3, 2), undetermined=why,
                        limits=[f"aggregate of {s.calls} call(s) (no grid in kernel_stats.csv)"]))  # fmt: skip
    return out


def collect(fixtures: Path = FIXTURES) -> list[dict]:
    """Every fixture measurement with durations or cycles, with a prediction or the reason there is none."""
    rows = []
    ck_launch, ck = ck_launch_of(fixtures)
    with tempfile.TemporaryDirectory(prefix="kp-amdval-") as tmp:
        work = Path(tmp)
        for rel, (arch, frontend) in ATT.items():
            rows.append(predict_att(fixtures, rel, arch, frontend, work, ck_launch if arch == "gfx942" else None))
        ck_dir = work / Path(next(iter(ATT))).name.removesuffix(".tar.gz")
        rows.extend(predict_rocpd(fixtures, ck_launch, ck, ck_dir))
    rows.append(_row(ATT_STATS, "(CK kernel, dispatch 2)", "gfx942", unit="cycles (per instruction)",
                     undetermined="the same dispatch's per-instruction figures as the ATT directory above (no wave "
                     "begin/end times in the CSV): compared there",
                     limits=["per-instruction Hitcount/Latency/Stall only"]))  # fmt: skip
    rows.extend(predict_gfx950_csvs(fixtures))
    return rows


def table(rows: list[dict]) -> str:
    head = "| fixture | kernel | device | unit | measured | predicted | error | bound | trips (hot loop) | terms (us) |"
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        pred = r["predicted"] if r["predicted"] is not None else f"undetermined: {r['undetermined']}"
        err = f"{r['error_pct']:+.1f} %" if r["error_pct"] is not None else "-"
        terms = ", ".join(f"{k} {v:g}" for k, v in (r["terms_us"] or {}).items()) or "-"
        lines.append(f"| {Path(r['fixture']).name} | {r['kernel']} | {r['device']} | {r['unit']} | {r['measured']} "
                     f"| {pred} | {err} | {r['bound'] or '-'} | {r['trips'] or '-'} | {terms} |")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fixtures", type=Path, default=FIXTURES)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = collect(args.fixtures)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(table(rows))
    print("\nLIMITS (per predicted row):")
    for r in rows:
        if r["predicted"] is not None:
            print(f"- {Path(r['fixture']).name} / {r['kernel']}:")
            for lim in r["limits"]:
                print(f"    - {lim}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
