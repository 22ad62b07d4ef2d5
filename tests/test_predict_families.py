"""The generated validation corpus: benchmarks/predict_families' families x problems x designs, as
benchmarks/predict_collect.py enumerates, pairs and packs them and benchmarks/predict_validate.py scores them.
The GPU side (compile and check in workers, then timing) runs on the device (benchmarks/predict_device.sh --only
gen.); its H200 data is benchmarks/predict_data/h200-2026-12-02-gen-*.tgz."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import random
import re
import subprocess
import sys
import tarfile
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FAMILIES = REPO / "benchmarks" / "predict_families"
GEN_DATA = sorted((REPO / "benchmarks" / "predict_data").glob("h200-2026-12-02-gen-*.tgz"))


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


pc = _load("predict_collect", REPO / "benchmarks" / "predict_collect.py")
pv = _load("predict_validate", REPO / "benchmarks" / "predict_validate.py")
sys.path.insert(0, str(FAMILIES))
import registry  # noqa: E402


@pytest.fixture(scope="module")
def gen():
    return pc.gen_variants()


def test_the_corpus_has_20_families_500_variants_unique_names_and_two_designs_a_problem(gen):
    names = [v.name for v in gen]
    assert len(names) == len(set(names)) >= 500
    families = {v.spec["family"] for v in gen}
    assert len(families) >= 20
    per_problem = Counter(v.group for v in gen)
    assert min(per_problem.values()) >= 2  # every problem has a pair of designs
    for v in gen:
        assert v.name == f"gen.{v.spec['family']}.{v.spec['problem']}.{v.spec['design']}" and v.kind == "gen"
        assert re.fullmatch(r"[A-Za-z0-9_.]+", v.name), v.name  # a folder name the pack and the device keep
    # design-round-robin: the first len(problems) variants are every problem's first design
    assert len({v.group for v in gen[: len(per_problem)]}) == len(per_problem)


def test_every_two_designs_of_one_problem_are_a_design_pair(gen):
    pairs = [p for p in pc.variant_pairs(gen) if p["kind"] == "design->design"]
    per_problem = Counter(v.group for v in gen)
    assert len(pairs) == sum(n * (n - 1) // 2 for n in per_problem.values())
    group = {v.name: v.group for v in gen}
    assert all(group[p["before"]] == group[p["after"]] and p["before"] != p["after"] for p in pairs)


def test_list_only_selects_generated_variants(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["predict_collect.py", "--list", "--only", "gen.tiny_chain.l16_n4096."])
    assert pc.main() == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == "5 variants, 10 pairs"  # fused 1, 2, 4, 8, 16 steps per launch
    assert all(line.startswith("gen.tiny_chain.l16_n4096.f") for line in out[:-1])


def test_a_cpu_build_is_the_same_launches_on_empty_tensors():
    path = FAMILIES / "fam_tiny_chain.py"
    built = registry.build(path, "l16_n4096", "f4b1024", "cpu", name="t_chain_f4")
    specs = built.specs()
    assert len(specs) == 4 and [s["args"][3] for s in specs] == [0, 4, 8, 12]  # first step of each launch
    assert specs[0]["kwargs"] == {"STEPS": 4, "BLOCK": 1024, "num_warps": 4} and specs[0]["grid"] == (4,)
    assert specs[1]["args"][0] is specs[0]["args"][1]  # ping-pong: a launch reads what the one before wrote


def _fake_variant(data: Path, name: str, kb: int) -> None:
    folder = data / name / "triton" / "h"
    folder.mkdir(parents=True)
    (folder / "k.sass").write_bytes(random.Random(name).randbytes(kb * 1024))  # incompressible: its size counts
    (folder / "k.llir").write_text("x" * 1000)
    (data / name / "meta.json").write_text(json.dumps({"name": name}))


def test_a_pack_over_the_limit_splits_by_family_into_complete_data_sets(tmp_path):
    data = tmp_path / "predict_data"
    names = [f"gen.{f}.p.d{i}" for f in ("a", "b", "c") for i in range(2)]
    for n in names:
        _fake_variant(data, n, 40)
    pairs = [{"before": f"gen.{f}.p.d0", "after": f"gen.{f}.p.d1", "kind": "design->design"} for f in "abc"]
    (data / "manifest.json").write_text(json.dumps({"variants": names, "pairs": pairs, "failed": []}))
    files, stripped = pc.pack_parts(data, tmp_path, limit=120_000)
    assert stripped == [".llir", ".ptx"] and len(files) >= 2
    seen = []
    for f in files:
        with tarfile.open(f) as tar:
            manifest = json.loads(tar.extractfile("predict_data/manifest.json").read())
            members = tar.getnames()
        seen += manifest["variants"]
        families = {pc.pack_key(n) for n in manifest["variants"]}
        assert all(f"predict_data/{n}/meta.json" in members for n in manifest["variants"])
        assert not any(m.endswith(".llir") for m in members)
        assert {pc.pack_key(p["before"]) for p in manifest["pairs"]} <= families  # a family's pairs stay with it
        assert len(manifest["pairs"]) == len(families)
    assert sorted(seen) == sorted(names)


def _row(family, problem, design, measured, predicted, status="validated", low=0.9, high=1.2, bound="hbm_bandwidth"):
    return pv.Row(variant=f"gen.{family}.{problem}.{design}", language="triton", measured_us=measured,
                  predicted_us=predicted, error_pct=(predicted - measured) / measured * 100, bound=bound,
                  band_status=status, band_low=low, band_high=high, family=family, problem=problem, design=design,
                  correct=True)  # fmt: skip


def test_pair_figures_count_ties_as_no_call_and_decided_pairs_apart():
    # (predicted, measured) speedups: right, wrong, a predicted tie, and a measured tie (under 5 %)
    figs = pv._pair_figures([(2.0, 1.5), (0.5, 1.5), (1.0, 2.0), (1.3, 1.01)])
    assert figs["pairs"] == 4 and figs["predicted_ties"] == 1
    assert figs["direction_right"] == 2  # the first and the last
    assert figs["decided"] == 3 and figs["decided_right"] == 1


def test_gen_summary_leaves_incorrect_variants_out_and_scores_each_family():
    rows = [_row("f", "p", "a", 10.0, 10.0), _row("f", "p", "b", 20.0, 15.0), _row("f", "p", "c", 40.0, 41.0)]
    bad = _row("f", "p", "d", 5.0, 50.0)
    bad.correct = False
    g = pv.gen_summary([*rows, bad, _row("h", "q", "a", 9.0, 4.0), _row("h", "q", "b", 4.5, 2.0)])
    assert g["incorrect"] == ["gen.f.p.d"] and g["scored"] == 5
    f = g["families"]["f"]
    assert f["variants"] == 3 and f["pair_pairs"] == 3 and f["pair_direction_right"] == 3
    assert f["median_abs_error_pct"] == pytest.approx(2.5)  # 0 %, 25 %, 2.5 %
    assert f["inside_band"] == 2 and f["with_band"] == 3  # 20 / 15 = 1.33 is over the band's 1.2
    assert g["families"]["h"]["over_2x"] == 2 and g["families"]["h"]["over_2x_uncovered"] == 2


def test_leave_one_family_out_calibrates_each_family_on_the_others_only():
    # family h is measured 2x its prediction everywhere, family f exactly; 8 rows each share one kind
    f = [_row("f", "p", f"d{i}", 10.0 * (i + 1), 10.0 * (i + 1)) for i in range(8)]
    h = [_row("h", "q", f"d{i}", 20.0 * (i + 1), 10.0 * (i + 1)) for i in range(8)]
    lofo = pv.leave_one_family_out(f + h)
    # h, calibrated on f (ratio 1): still 50 % off; f, calibrated on h (ratio 2): 100 % off. Nothing leaks in.
    assert lofo["families"]["h"]["median_abs_error_pct"] == pytest.approx(50.0)
    assert lofo["families"]["f"]["median_abs_error_pct"] == pytest.approx(100.0)
    assert lofo["families"]["f"]["pair_spearman"] == pytest.approx(1.0)  # one factor per kind keeps the order
    assert lofo["overall"]["variants"] == 16


@pytest.mark.slow
def test_one_variant_of_every_family_compiles_for_sm_90(tmp_path, monkeypatch):
    from tools.frontends._triton_jit import compile_example

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    first = {}
    for family, problem, design, path in registry.enumerate_gen():
        first.setdefault(family, (problem, design, path))
    assert len(first) >= 20
    for family, (problem, design, path) in first.items():
        built = registry.build(path, problem, design, "cpu", name=f"t_sm90_{family}")
        compiled, launch = compile_example(built.specs()[0], "sm_90")
        assert compiled.metadata.name == built.specs()[0]["kernel"].__name__, family
        assert b"sm_90" in compiled.asm["cubin"] or "sm_90" in compiled.asm["ptx"], family


INTERPRET = """
import sys
sys.path.insert(0, sys.argv[1])
import gen_common, registry
gen_common.CPU_INPUTS["real"] = True
for path in registry.family_files():
    mod = registry.load(path, "t_interp_" + path.stem)
    if not mod.PROBLEMS:  # a fresh-corpus-only family: tests/test_predict_fresh.py runs it
        continue
    problem, small = next(iter(mod.SMALL.items()))
    design = next(iter(mod.designs(mod.PROBLEMS[problem]).values()))
    built = mod.build(small, design, "cpu")
    assert type(built.specs()[0]["kernel"]).__name__ == "InterpretedFunction", path.stem
    ok, detail = gen_common.check(built)
    print(path.stem, "ok" if ok else "WRONG", detail, flush=True)
"""


def interpreted(script: str) -> list[str]:
    """``script`` run with the families' folder as its argument in a fresh process under Triton's interpreter (it
    must be chosen before any kernel of the process is compiled); its output lines, after it exited 0."""
    out = subprocess.run(
        [sys.executable, "-c", script, str(FAMILIES)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO)},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()


@pytest.mark.slow
def test_every_family_is_right_on_small_shapes_in_tritons_interpreter():
    # the kernels the GPU checked (all 689 correct on the H200), run here on the CPU by Triton's interpreter on each
    # family's SMALL shapes, first design of its first small problem, against the same torch reference; in a fresh
    # process (the interpreter must be chosen before any kernel of the process is compiled)
    lines = interpreted(INTERPRET)
    first = [p for p in registry.family_files() if registry.load(p, f"t_first_{p.stem}").PROBLEMS]
    assert len(lines) == len(first) >= 20
    assert all(" ok " in line for line in lines), [line for line in lines if " ok " not in line]


@pytest.mark.slow
@pytest.mark.skipif(not GEN_DATA, reason="the H200 data of the generated corpus is not in this checkout")
def test_the_h200_data_of_one_family_is_predicted_and_scored(tmp_path):
    src = tmp_path / "src"
    for tgz in GEN_DATA:
        with tarfile.open(tgz) as tar:
            tar.extractall(src / tgz.stem, filter="data")
    manifests = [json.loads(p.read_text()) for p in src.glob("*/predict_data/manifest.json")]
    assert sum(len(m["variants"]) for m in manifests) == 689
    chain = next(p.parent for p in src.glob("*/predict_data/manifest.json")
                 if any(".tiny_chain." in v for v in json.loads(p.read_text())["variants"]))  # fmt: skip
    data = tmp_path / "predict_data"
    data.mkdir()
    m = json.loads((chain / "manifest.json").read_text())
    keep = [v for v in m["variants"] if ".tiny_chain." in v]
    for v in keep:
        (data / v).symlink_to(chain / v, target_is_directory=True)
    pairs = [p for p in m["pairs"] if p["before"] in keep]
    (data / "manifest.json").write_text(json.dumps(dict(m, variants=keep, pairs=pairs)))
    out = tmp_path / "v.json"
    assert pv.main([str(data), "--device", "h200", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    g = report["gen"]
    assert g["variants"] == len(keep) == 15 and g["scored"] == 15 and list(g["families"]) == ["tiny_chain"]
    rows = [r for r in report["variants"] if r["family"] == "tiny_chain"]
    for r in rows:  # the fields the band calibration reads (benchmarks/predict_bands.py)
        assert r["predicted_us"] > 0 and r["measured_us"] > 0 and r["band_status"] in ("validated", "assumed")
        assert r["bound"] and r["evidence"] and r["correct"] is True and r["design"]
    assert (
        g["families"]["tiny_chain"]["pair_pairs"]
        == len(pairs)
        == sum(math.comb(n, 2) for n in Counter(r["problem"] for r in rows).values())
    )
