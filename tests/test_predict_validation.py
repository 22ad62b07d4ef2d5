"""benchmarks/predict_validate.py: the speed model's validation over the H100 data committed in
benchmarks/predict_data/h100-2026-11-25.tgz (71 variants, 44 pairs, collected on an H100 by predict_collect.py).

Structure only: every pair read, every variant predicted or its reason stated, the statistics computed by our own
rank code (checked against hand-computed examples). The error figures themselves are benchmark results
(benchmarks/RESULTS.md), not asserted here.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "benchmarks" / "predict_data" / "h100-2026-11-25.tgz"


def _script():
    spec = importlib.util.spec_from_file_location("predict_validate", REPO / "benchmarks" / "predict_validate.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


pv = _script()


# ---- our rank statistics, against hand computation -----------------------------------------------------------


def test_average_ranks_share_the_mean_rank_of_a_tie():
    # 20 occupies ranks 2 and 3 -> both get 2.5; the input order is kept
    assert pv.average_ranks([30.0, 20.0, 10.0, 20.0]) == [4.0, 2.5, 1.0, 2.5]
    assert pv.average_ranks([7.0, 7.0, 7.0]) == [2.0, 2.0, 2.0]


def test_spearman_with_a_tie_is_pearson_of_average_ranks():
    # x ranks 1..5 (mean 3); y = [5, 6, 7, 8, 7] ranks [1, 2, 3.5, 5, 3.5] (mean 3).
    # dx = [-2,-1,0,1,2], dy = [-2,-1,0.5,2,0.5]: Sxy = 4+1+0+2+1 = 8, Sxx = 10, Syy = 4+1+0.25+4+0.25 = 9.5
    # rho = 8 / sqrt(95) = 0.82078...; the no-tie shortcut 1 - 6*sum(d^2)/(n(n^2-1)) would give 1 - 21/120 = 0.825
    rho = pv.spearman([1.0, 2.0, 3.0, 4.0, 5.0], [5.0, 6.0, 7.0, 8.0, 7.0])
    assert rho == pytest.approx(8 / math.sqrt(95), abs=1e-12)
    assert rho != pytest.approx(0.825, abs=1e-4)


def test_spearman_is_rank_only_and_undefined_when_one_side_is_constant():
    # monotone but non-linear: ranks agree exactly -> 1; reversed -> -1
    assert pv.spearman([1.0, 2.0, 3.0, 4.0], [1.0, 10.0, 100.0, 1000.0]) == pytest.approx(1.0)
    assert pv.spearman([1.0, 2.0, 3.0, 4.0], [9.0, 4.0, 1.0, 0.5]) == pytest.approx(-1.0)
    # every predicted speedup equal (e.g. only noop pairs): no ranking, so no rho
    assert pv.spearman([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]) is None
    assert pv.spearman([1.0], [2.0]) is None


def test_percentile_interpolates_between_closest_ranks():
    # [1,2,3,4]: the 90th percentile sits at position 0.9 * 3 = 2.7 -> 3 + 0.7 * (4 - 3) = 3.7 (numpy's default)
    assert pv.percentile([4.0, 1.0, 3.0, 2.0], 90) == pytest.approx(3.7)
    assert pv.percentile([4.0, 1.0, 3.0, 2.0], 50) == pytest.approx(2.5)
    assert pv.percentile([5.0], 90) == 5.0
    assert pv.percentile([], 90) is None


# ---- the committed H100 data, through the real predictor ------------------------------------------------------


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("validate") / "validation.json"
    assert pv.main([str(DATA), "--json", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def metas(tmp_path_factory):
    """Every variant's meta.json straight from the tgz (not through the script)."""
    import tarfile

    root = tmp_path_factory.mktemp("data")
    with tarfile.open(DATA, "r:gz") as tar:
        tar.extractall(root, filter="data")
    data = root / "predict_data"
    manifest = json.loads((data / "manifest.json").read_text())
    return manifest, {v: json.loads((data / v / "meta.json").read_text()) for v in manifest["variants"]}


def test_every_variant_and_all_44_pairs_are_read(report, metas):
    manifest, meta = metas
    # 16 gpu-runtime tasks x (baseline, reference, noop) + 23 files of the 11 own pairs = 71 variants
    assert [r["variant"] for r in report["variants"]] == manifest["variants"] and len(manifest["variants"]) == 71
    assert len(report["pairs"]) == 44 == report["summary"]["pairs"]
    kinds = sorted(p["kind"] for p in report["pairs"])
    assert kinds.count("baseline->reference") == 16 and kinds.count("baseline->noop") == 16
    assert kinds.count("before->after") == 12  # 11 pairs, rowsum_warps has two "after" files
    assert report["data"]["device"] == "NVIDIA H100 80GB HBM3" and report["data"]["triton"] == "3.6.0"
    for r in report["variants"]:
        assert r["measured_us"] == meta[r["variant"]]["measured_us"]


def test_every_variant_is_predicted_or_says_why_not(report):
    for r in report["variants"]:
        if r["predicted_us"] is None:
            assert r["error_pct"] is None and r["reason"], r
        else:
            assert r["reason"] is None and r["bound"] and r["trips"], r
            assert r["error_pct"] == pytest.approx((r["predicted_us"] - r["measured_us"]) / r["measured_us"] * 100)
    s = report["summary"]
    assert s["predicted"] + len(s["not_predicted"]) == 71
    assert {n["variant"] for n in s["not_predicted"]} == {r["variant"] for r in report["variants"] if r["reason"]}


def test_pair_speedups_are_before_over_after_and_unpredicted_pairs_say_which_side(report, metas):
    _, meta = metas
    rows = {r["variant"]: r for r in report["variants"]}
    for p in report["pairs"]:
        b, a = rows[p["before"]], rows[p["after"]]
        assert p["measured_speedup"] == pytest.approx(
            meta[p["before"]]["measured_us"] / meta[p["after"]]["measured_us"]
        )
        if b["predicted_us"] and a["predicted_us"]:
            assert p["predicted_speedup"] == pytest.approx(b["predicted_us"] / a["predicted_us"])
        else:
            assert p["predicted_speedup"] is None and p["reason"].startswith("not predicted: ")
            assert all(v in p["reason"] for v in (p["before"], p["after"]) if not rows[v]["predicted_us"])


def test_summary_statistics_are_recomputed_exactly_from_the_rows(report):
    s = report["summary"]
    errors = [abs(r["error_pct"]) for r in report["variants"] if r["error_pct"] is not None]
    assert s["median_abs_error_pct"] == statistics.median(errors)
    assert s["p90_abs_error_pct"] == pv.percentile(errors, 90)
    ok = [p for p in report["pairs"] if p["predicted_speedup"] is not None]
    assert s["pairs_predicted"] == len(ok)
    assert s["spearman_speedup"] == pv.spearman(
        [p["predicted_speedup"] for p in ok], [p["measured_speedup"] for p in ok]
    )
    changes = [p for p in ok if p["kind"] != "baseline->noop"]
    assert s["spearman_speedup_without_noop"] == pv.spearman(
        [p["predicted_speedup"] for p in changes], [p["measured_speedup"] for p in changes]
    )
    assert sum(b["variants"] for b in s["by_bound"].values()) == s["predicted"]
    worst = sorted(errors, reverse=True)[: pv.WORST]
    assert [abs(w["error_pct"]) for w in s["worst"]] == worst and all(w["bound"] for w in s["worst"])


def test_the_json_names_the_predictor_commit(report):
    commit = report["predictor"]["predictor"]
    assert commit is None or (len(commit) == 40 and all(c in "0123456789abcdef" for c in commit))


# ---- errors -----------------------------------------------------------------------------------------------------


def _run(script: Path, *args: str, pythonpath: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def test_without_the_predictor_it_exits_2_and_says_so(tmp_path):
    # a checkout whose tools/ has no predict package: the script's own root is what it imports
    shutil.copytree(REPO / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("predict", "__pycache__"))
    (tmp_path / "benchmarks").mkdir()
    script = tmp_path / "benchmarks" / "predict_validate.py"
    shutil.copy(REPO / "benchmarks" / "predict_validate.py", script)
    proc = _run(script, str(DATA), pythonpath=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: no predictor to validate: tools.predict is not in this checkout")
    assert "\nhint: " in proc.stderr and "Traceback" not in proc.stderr


def test_a_folder_without_manifest_exits_2_with_a_hint(tmp_path):
    proc = _run(REPO / "benchmarks" / "predict_validate.py", str(tmp_path), pythonpath=REPO)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {tmp_path}: no manifest.json") and "\nhint: " in proc.stderr


# ---- two data sets: the CUDA tasks collected again replace the first set's empty-cubin variants ----------------

CUDA_DATA = REPO / "benchmarks" / "predict_data" / "h100-2026-11-25-cuda.tgz"
CUDA_TASKS = ("axpby-loads-in-flight", "fir-local-memory", "gemv-warp-per-row", "histogram-privatize",
              "sgemm-register-tiling", "transpose-smem")  # fmt: skip


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = tmp_path_factory.mktemp("validate2") / "validation.json"
    assert pv.main([str(DATA), str(CUDA_DATA), "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_a_second_data_set_replaces_the_variants_of_the_same_name(both):
    # the CUDA set's 18 variants (6 tasks x 3) replace the first set's 18 of the same names: still 71 and 44 pairs
    assert [h["variants"] for h in both["datasets"]] == [71, 18]
    assert len(both["variants"]) == 71 and len(both["pairs"]) == 44
    rows = {r["variant"]: r for r in both["variants"]}
    for task in CUDA_TASKS:
        for role in ("baseline", "reference", "noop"):
            r = rows[f"task.{task}.{role}"]
            # the first set's SASS held no function ("among 0 in the listing"); the second's holds the kernel
            assert r["predicted_us"] is not None and r["reason"] is None, r


def test_cuda_trips_are_stated_from_the_tasks_own_bytes(both):
    # axpby baseline: a grid-stride loop over n = 2^26 floats, task.yaml bytes 12*n = 805306368 B
    row = next(r for r in both["variants"] if r["variant"] == "task.axpby-loads-in-flight.baseline")
    (launch,) = row["launches"]
    assert launch["trips"] == "assumption" and "12*n" in launch["trips_detail"]
    assert "stated 8.053e+08 B" in launch["trips_detail"]  # 805306368 at 4 significant digits


def test_the_torch_fill_before_the_histogram_kernel_is_named_and_left_out(both):
    for role in ("baseline", "reference", "noop"):
        row = next(r for r in both["variants"] if r["variant"] == f"task.histogram-privatize.{role}")
        fill, user = row["launches"][0], row["launches"][-1]
        assert "FillFunctor" in fill["kernel"] and fill["not_modelled"].startswith("a PyTorch (ATen) op")
        assert user["kernel"].startswith("histogram_kernel") and user["predicted_us"] is not None
        # the total is the user's kernels only; the fill's profiled 1 us is stated beside it
        modelled = sum(lp["predicted_us"] for lp in row["launches"] if not lp["not_modelled"])
        assert row["predicted_us"] == pytest.approx(modelled, abs=1e-3)
        assert len(row["not_modelled"]) == 1 and "profiled 1.02" in row["not_modelled"][0]


OPEN_NV = REPO / "benchmarks" / "predict_data" / "h100-2026-11-26-open-nv.tgz"


def test_task_expressions_take_floor_division():
    # open-nv-decode-gqa-paged states its bytes with S//3 on B=8, HQ=32, HKV=8, S=8192, D=128:
    # 4*8*(8192 - 2730)*8*128 + 6*8*32*128 = 178978816 + 196608
    bytes_, how = pv.task_bytes("open-nv-decode-gqa-paged")
    assert bytes_ == 179175424 and "S//3" in how
    assert pv.task_bytes("open-nv-decode-gqa-paged", key="flops")[0] == 4 * 8 * 5462 * 32 * 128


def test_a_triton_loop_bounded_by_loaded_data_takes_the_tasks_stated_flop(tmp_path):
    # the paged decode's loop runs to a sequence length read from a tensor: no evidence, so the predictor would assume
    # 1 trip (5.6 us against 1212.6 us measured); the validation states the trips the task's FLOP imply, and says so
    out = tmp_path / "v.json"
    assert pv.main([str(OPEN_NV), "--json", str(out)]) == 0
    rows = {r["variant"]: r for r in json.loads(out.read_text())["variants"]}
    (launch,) = rows["task.open-nv-decode-gqa-paged.baseline"]["launches"]
    assert launch["trips"] == "assumption"
    assert (
        "its loop bounds come from loaded data" in launch["trips_detail"] and "7.159e+08 FLOP" in launch["trips_detail"]
    )
    assert launch["predicted_us"] > 100
    # a Triton task whose loops have evidence keeps it
    (scan,) = rows["task.open-nv-linear-scan.baseline"]["launches"]
    assert scan["trips"] == "loop-bounds"


@pytest.mark.slow
def test_family_keeps_only_the_named_generated_families_and_their_pairs():
    # the generated corpus's first part (benchmarks/predict_data/h200-2026-12-02-gen-1.tgz): names only, nothing predicted
    assert pv.gen_family("gen.argmax.f32_8192x4096.row_w2") == "argmax" and pv.gen_family("task.x.baseline") is None
    assert pv.kept("task.x.baseline", {"argmax"}) and not pv.kept("gen.colsum.p.d", {"argmax"})
    with pv.open_data(REPO / "benchmarks" / "predict_data" / "h200-2026-12-02-gen-1.tgz") as data:
        every, every_pairs, _, _ = pv.merged([data])
        folders, pairs, _, failed = pv.merged([data], {"colsum", "rmsnorm_fwd"})
    fams = {pv.gen_family(n) for n in folders}
    assert fams == {"colsum", "rmsnorm_fwd"} and len(every) > len(folders) > 0
    assert pairs and all({pv.gen_family(p["before"]), pv.gen_family(p["after"])} <= fams for p in pairs)
    assert len(pairs) < len(every_pairs)
    assert all(pv.gen_family(f.get("variant", "")) in fams | {None} for f in failed)
