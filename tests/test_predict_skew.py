"""The fourth generated corpus (``skew.*``, held out by construction): skewed histograms with global atomics
(benchmarks/predict_families/fam_hist_skew.py), whose indices are real on the CPU so that the frozen predictions
(benchmarks/predict_freeze.py --corpus skew) see the data the GPU runs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[1]
FAMILIES = REPO / "benchmarks" / "predict_families"

from tests.test_predict_families import _load, interpreted  # noqa: E402 - the benchmark scripts' loader

pc = _load("predict_collect", REPO / "benchmarks" / "predict_collect.py")
sys.path.insert(0, str(FAMILIES))
import registry  # noqa: E402

SKEW = registry.load(FAMILIES / "fam_hist_skew.py", "t_skew_fam")


def test_the_skew_corpus_is_its_own_family_only_and_every_problem_has_four_designs():
    variants = pc.gen_variants(corpus="skew")
    assert len(variants) == len({v.name for v in variants}) == 120
    assert {v.spec["family"] for v in variants} == {"hist_skew"}
    assert all(v.name.startswith("skew.hist_skew.") for v in variants)
    for corpus in ("gen", "hold", "fresh"):  # in no other corpus
        assert not [v for v in pc.gen_variants(corpus=corpus) if v.spec["family"] == "hist_skew"]


@pytest.mark.parametrize("dist", ["uniform", "zipf", "hot50", "hot2", "sorted"])
def test_each_distribution_is_what_its_name_says(dist):
    n, bins = 1 << 16, 1000
    idx = SKEW.indices(n, bins, dist).long()
    counts = torch.bincount(idx, minlength=bins)
    assert idx.dtype == torch.int64 and 0 <= int(idx.min()) and int(idx.max()) < bins
    share = counts.max().item() / n
    if dist in ("uniform", "sorted"):
        assert share < 3 / bins
    elif dist == "hot50":
        assert 0.49 < share < 0.52 and counts.argmax() == 0
    elif dist == "hot2":
        assert 0.44 < counts[0] / n < 0.46 and 0.44 < counts[100] / n < 0.46
    else:  # zipf: bin k in proportion to 1 / (k + 1), so bin 0 holds 1 / H(1000) of them
        assert 0.12 < share < 0.15 and counts[0] > counts[1] > counts[3]
    if dist == "sorted":
        assert bool((idx[1:] >= idx[:-1]).all())
    assert torch.equal(SKEW.indices(n, bins, dist), SKEW.indices(n, bins, dist))  # seeded: the GPU draws the same


def test_a_cpu_build_holds_the_real_indices_and_the_collector_records_their_skew():
    built = SKEW.build(SKEW.SKEW_PROBLEMS["n1m_b64_hot50"], SKEW.skew_designs({})["i32b1024w4"], "cpu")
    (s,) = built.specs()
    idx = s["args"][0]
    rec = pc.describe_value("idx_ptr", idx)
    assert rec["hottest"]["1"] == int(torch.bincount(idx.long()).max()) > (1 << 20) // 2  # bin 0: half and its share


INTERPRET = """
import sys
sys.path.insert(0, sys.argv[1])
import gen_common, registry
gen_common.CPU_INPUTS["real"] = True
mod = registry.load(registry.DIR / "fam_hist_skew.py", "t_interp_skew")
for problem, small in mod.SMALL.items():
    for name, design in mod.skew_designs(small).items():
        built = mod.build(small, design, "cpu")
        assert type(built.specs()[0]["kernel"]).__name__ == "InterpretedFunction"
        ok, detail = gen_common.check(built)
        print(name, "ok" if ok else "WRONG", detail, flush=True)
"""


@pytest.mark.slow
def test_every_skew_design_is_right_in_tritons_interpreter():
    lines = interpreted(INTERPRET)
    assert len(lines) == 4 and all(" ok " in line for line in lines), lines
