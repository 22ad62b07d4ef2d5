"""The second generated corpus (``hold.*``, held out by construction): benchmarks/predict_families'
HOLD_PROBLEMS x hold_designs, disjoint in shapes from the first corpus (``gen.*``, whose names and definitions stay
those of the recorded H200 data), and benchmarks/predict_freeze.py, which predicts it from sm_90 compiles made on this
CPU before any GPU runs it."""

from __future__ import annotations

import json
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FAMILIES = REPO / "benchmarks" / "predict_families"
GEN_DATA = sorted((REPO / "benchmarks" / "predict_data").glob("h200-2026-12-02-gen-*.tgz"))


from tests.test_predict_families import _load  # noqa: E402 - one loader for the benchmark scripts

pc = _load("predict_collect", REPO / "benchmarks" / "predict_collect.py")
sys.path.insert(0, str(FAMILIES))
import registry  # noqa: E402


@pytest.fixture(scope="module")
def hold():
    return pc.gen_variants(corpus="hold")


@pytest.fixture(scope="module")
def modules():
    return [registry.load(p, f"t_hold_{p.stem}") for p in registry.family_files()]


TILES = {"BLOCK", "BM", "BN", "BK", "BD", "BW", "BC", "BLOCK_N", "BLOCK_G", "GP", "MP", "D", "ROWS"}


def _dims(params: dict) -> tuple:
    """A problem's sizes: its integer parameters (dtypes, flags and kinds left out)."""
    return tuple(sorted((k, v) for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool)))


def check_launch_specs(name: str, specs: list[dict], tiles: set[str]) -> None:
    """Each launch of a generated variant: a Triton kernel, a grid the GPU accepts, a legal warp count, and its
    ``tiles`` keyword arguments powers of two (tl.arange)."""
    from triton.runtime.jit import JITFunction

    for s in specs:
        assert isinstance(s["kernel"], JITFunction), name
        grid = s["grid"]
        assert 1 <= len(grid) <= 3 and all(isinstance(g, int) and g >= 1 for g in grid), (name, grid)
        assert grid[0] < 2**31 and all(g < 65536 for g in grid[1:]), (name, grid)
        assert s["kwargs"].get("num_warps", 4) in (1, 2, 4, 8, 16, 32), name
        for k, val in s["kwargs"].items():
            if k in tiles:
                assert isinstance(val, int) and val >= 1 and val & (val - 1) == 0, (name, k, val)


def test_every_hold_problem_has_sizes_no_first_corpus_problem_of_its_family_has(modules):
    families = 0
    for mod in modules:
        hold = getattr(mod, "HOLD_PROBLEMS", {})
        if not hold:
            continue
        families += 1
        assert not set(hold) & set(mod.PROBLEMS), mod.FAMILY  # no problem name reused
        first = {_dims(p) for p in mod.PROBLEMS.values()}
        for name, params in hold.items():
            assert _dims(params) not in first, f"{mod.FAMILY}.{name} has the sizes of a gen problem"
        assert len({_dims(p) for p in hold.values()}) == len(hold), mod.FAMILY
    assert families >= 20


def test_the_hold_corpus_is_300_to_450_unique_well_formed_names_in_20_families(hold):
    names = [v.name for v in hold]
    assert 300 <= len(names) == len(set(names)) <= 450
    assert len({v.spec["family"] for v in hold}) >= 20
    per_problem = Counter(v.group for v in hold)
    assert min(per_problem.values()) >= 2  # every problem has a pair of designs
    for v in hold:
        assert v.name == f"hold.{v.spec['family']}.{v.spec['problem']}.{v.spec['design']}", v.name
        assert v.kind == "gen" and v.spec["corpus"] == "hold" and v.group.startswith("hold.")
        assert re.fullmatch(r"[A-Za-z0-9_.]+", v.name) and "gen." not in v.name, v.name
    pairs = pc.variant_pairs(hold)
    assert len(pairs) == sum(n * (n - 1) // 2 for n in per_problem.values())
    assert {pc.pack_key(v.name) for v in hold} == {f"hold.{v.spec['family']}" for v in hold}


@pytest.mark.skipif(not GEN_DATA, reason="the H200 data of the first corpus is not in this checkout")
def test_the_first_corpus_is_still_exactly_the_recorded_one():
    recorded = set()
    for tgz in GEN_DATA:
        with tarfile.open(tgz) as tar:
            first = tar.next()  # the pack writes its manifest first
            assert first.name == "predict_data/manifest.json"
            m = json.loads(tar.extractfile(first).read())
        recorded |= set(m["variants"]) | {f["variant"] for f in m["failed"]}
    gen = pc.gen_variants()
    assert {v.name for v in gen} == recorded and len(gen) == 690
    assert all("corpus" not in v.spec and v.group.count(".") == 1 for v in gen)  # its meta.json fields unchanged


def test_only_selects_one_corpus(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["predict_collect.py", "--list", "--only", "hold."])
    assert pc.main() == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert all(line.startswith("hold.") for line in out[:-1]) and len(out) - 1 == len(pc.gen_variants(corpus="hold"))
    monkeypatch.setattr(sys, "argv", ["predict_collect.py", "--list", "--only", "gen."])
    assert pc.main() == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert all(line.startswith("gen.") for line in out[:-1]) and len(out) - 1 == 690


def test_every_hold_variant_builds_its_launches_on_the_cpu(hold, modules):

    by_family = {m.FAMILY: m for m in modules}
    seen = set()
    for v in hold:
        fam, problem, design = v.spec["family"], v.spec["problem"], v.spec["design"]
        if fam not in seen:  # once per family through the registry, as the collector builds it
            seen.add(fam)
            built = registry.build(v.source, problem, design, "cpu", name="t_hold_build", corpus="hold")
        else:
            mod = by_family[fam]
            p = mod.HOLD_PROBLEMS[problem]
            built = mod.build(p, mod.hold_designs(p)[design], "cpu")
        specs = built.specs()
        assert specs and built.outputs and built.shape, v.name
        check_launch_specs(v.name, specs, TILES)
    sys.modules.pop("t_hold_build", None)


def test_the_tiled_hold_kernels_divide_their_problems_evenly(hold, modules):
    # gemm, fp8 gemm, bmm and flash attention load whole tiles without masks: a problem must split into them
    by_family = {m.FAMILY: m for m in modules}
    for v in hold:
        fam = v.spec["family"]
        mod = by_family[fam]
        p = mod.HOLD_PROBLEMS[v.spec["problem"]]
        d = mod.hold_designs(p)[v.spec["design"]]
        if fam in ("gemm", "gemm_fp8", "bmm"):
            assert p["M"] % d["BM"] == 0 and p["N"] % d["BN"] == 0 and p["K"] % d["BK"] == 0, v.name
        elif fam == "flash_attn":
            assert p["S"] % d["BM"] == 0 and p["S"] % d["BN"] == 0 and p["D"] & (p["D"] - 1) == 0, v.name
        elif fam in ("gemv", "w8_gemv"):
            assert p["K"] % (d["SPLIT"] * d["BK"]) == 0, v.name
        elif fam == "tiny_chain":
            assert p["L"] % d["F"] == 0, v.name


def test_spread_lengths_are_fixed_values_in_range():
    mod = registry.load(FAMILIES / "fam_paged_decode.py", "t_hold_paged")
    a = mod.spread_lens(48, 6000, "cpu").tolist()
    assert a == mod.spread_lens(48, 6000, "cpu").tolist()  # no random stream: the CPU sees what the GPU runs
    assert min(a) >= 750 and max(a) <= 6000 and len(set(a)) > 40
    p = mod.HOLD_PROBLEMS["b48_spread6000_g4"]
    built = mod.build(p, mod.hold_designs(p)["n32w4s3"], "cpu")
    assert built.specs()[0]["args"][4].tolist() == a  # the lengths the kernel loads
    first = mod.build(mod.PROBLEMS["b64_ragged8192_g8"], {"BN": 32, "warps": 4, "stages": 2}, "cpu")
    assert first.shape.endswith("ragged lengths (loaded)")  # the first corpus's ragged problem: still the random one


@pytest.mark.slow
def test_freeze_predicts_a_hold_problem_from_sm_90_cpu_compiles(tmp_path):
    pf = _load("predict_freeze", REPO / "benchmarks" / "predict_freeze.py")
    out = tmp_path / "frozen.json"
    rc = pf.main(["--only", "hold.argmax.f32_512x30000.", "--out", str(out), "--keep", str(tmp_path / "v")])
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["variants"] == data["predicted"] == 4 and not data["errors"]
    assert data["arch"] == "sm_90" and data["predictor"]["predictor"]
    for r in data["rows"]:
        assert r["variant"].startswith("hold.argmax.f32_512x30000.") and r["predicted_us"] > 0
        assert r["band"]["status"] in ("validated", "assumed") and r["band_kind"] and r["bound"]
        assert isinstance(r["rests_on"], list) and r["over_shared"] is False
        meta = json.loads((tmp_path / "v" / r["variant"] / "meta.json").read_text())
        assert meta["measured_us"] is None and meta["launches"][0]["files"]["sass"]  # compiled here, not measured
