"""The learned correction of the speed model (benchmarks/predict_learned.py): its trees, its bounds and the
fifth corpus it is judged on (``cross.*``: designs never timed, on shapes that were). Rows come from a real data pack
of the H200 (benchmarks/predict_data/h200-2026-12-02-gen-2.tgz) re-predicted by this checkout."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.test_predict_families import _load  # noqa: E402 - one loader for the benchmark scripts

REPO = Path(__file__).resolve().parents[1]
FAMILIES = REPO / "benchmarks" / "predict_families"
pl = _load("predict_learned", REPO / "benchmarks" / "predict_learned.py")
pf = _load("predict_features", REPO / "benchmarks" / "predict_features.py")
sys.path.insert(0, str(FAMILIES))
import registry  # noqa: E402

from tools.predict import learned  # noqa: E402


def test_the_trees_learn_a_step_and_a_slope_from_the_features_they_are_given():
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, size=(400, 3))
    y = np.where(x[:, 0] > 0.2, 0.7, -0.3) + 0.5 * x[:, 1]  # the third feature is noise
    got = pl.Trees(rounds=150).fit(x, y).predict(x)
    assert float(np.median(np.abs(got - y))) < 0.08
    probe = np.array([[0.9, 0.0, 0.0], [-0.9, 0.0, 0.0]])
    high, low = pl.Trees(rounds=150).fit(x, y).predict(probe)
    assert high - low == pytest.approx(1.0, abs=0.15)


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("feat") / "gen2.json"
    assert pf.main([str(out), str(REPO / "benchmarks/predict_data/h200-2026-12-02-gen-2.tgz"), "--workers", "1"]) == 0
    return pl.usable(json.loads(out.read_text())["rows"])


@pytest.mark.slow
def test_a_correction_stays_within_its_cap_above_the_floors_and_leaves_table_bound_kinds_alone(rows):
    assert len(rows) > 100
    # an extreme fit (targets x10 slower than predicted): the cap and the floors still hold on every row
    model = pl.Trees(rounds=40)
    x = np.array([pl.featurize(r) for r in rows])
    model.fit(x, np.full(len(rows), math.log(10.0)))
    after = pl.corrected(model, rows)
    for r, c in zip(rows, after, strict=True):
        factor = c / r["predicted_us"]
        if r["bound"] in pl.UNCORRECTED:  # atomics, launch and block-launch rates: their own measured tables
            assert c == r["predicted_us"]
        else:
            assert factor == pytest.approx(pl.CAP, rel=1e-9) or factor == pytest.approx(pl.floor_factor(r), rel=1e-9)
    assert {r["bound"] for r in rows} & pl.UNCORRECTED and {r["bound"] for r in rows} - pl.UNCORRECTED
    # and the other way: a fit that would make every prediction 10x faster stops at 1/CAP or at the hard floors
    model.fit(x, np.full(len(rows), math.log(0.1)))
    for r, c in zip(rows, pl.corrected(model, rows), strict=True):
        if r["bound"] not in pl.UNCORRECTED:
            assert c / r["predicted_us"] == pytest.approx(max(1 / pl.CAP, pl.floor_factor(r)), rel=1e-9)


def test_the_cross_corpus_only_pairs_shapes_with_designs_they_never_had():
    variants = registry.enumerate_gen(corpus="cross")
    assert len(variants) > 300
    per_problem: dict[tuple[str, str], list[str]] = {}
    for family, problem, design, _path in variants:
        per_problem.setdefault((family, problem), []).append(design)
    assert max(len(d) for d in per_problem.values()) <= registry.CROSS_PER_PROBLEM
    mods = {}
    for (family, problem), designs in per_problem.items():
        path = next(p for f, pr, _, p in variants if f == family and pr == problem)
        mod = mods.setdefault(family, registry.load(path, f"t_cross_{path.stem}"))
        source, _, name = problem.partition("_")
        params = registry.corpus_of(mod, source)[0][name]
        had = registry.corpus_of(mod, source)[1](params)  # the designs that shape was timed with
        assert not set(designs) & set(had), (family, problem)


@pytest.mark.slow
def test_the_exported_trees_are_what_the_product_evaluates(rows, tmp_path):
    # the benchmark fits and exports; tools.predict.learned evaluates the file: the same numbers on every real row
    model = pl.Trees(rounds=30).fit(np.array([pl.featurize(r) for r in rows]),
                                    np.array([math.log(r["measured_us"] / r["predicted_us"]) for r in rows]))  # fmt: skip
    out = tmp_path / "h200.correction.json"
    pl.export(model, out, "test rows", "not judged")
    data = json.loads(out.read_text())
    want = model.predict(np.array([pl.featurize(r) for r in rows]))
    got = [learned.evaluate(data, pl.featurize(r)) for r in rows]
    assert np.allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.slow
def test_predict_prints_the_learned_estimate_beside_the_models_time_on_the_h200_only():
    from tools.predict.cli import format_result, predict_file

    kernel = REPO / "benchmarks" / "predict_kernels" / "copy_coalesce__before.py"
    h200 = predict_file(kernel, "sm_90", device="h200")
    got = h200.learned
    assert (
        got.applied
        and 1 / 3 <= got.factor <= 3
        and got.corrected_us == pytest.approx(h200.predicted_us * got.factor, rel=1e-3)
    )
    assert "held out by construction" in got.why and "fitted on" in got.source
    assert got.band[0] < 1 < got.band[1] and "held-out kernels" in got.band_source  # from its judgement, not a guess
    assert h200.predicted_us == predict_file(kernel, "sm_90", device="h200").predicted_us  # the model's time stays
    assert f"learned correction: {got.corrected_us:.1f} us" in format_result(h200)
    assert predict_file(kernel, "sm_90", device="h100").learned is None  # no correction fitted for the H100
    # a launch-bound call is left alone, and says why
    small = predict_file(REPO / "examples" / "triton" / "vector_add.py", "sm_90", device="h200")
    assert small.bound == "launch_overhead" and not small.learned.applied and small.learned.corrected_us is None
    assert "launch_overhead-bound" in small.learned.why
