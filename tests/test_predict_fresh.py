"""The third generated corpus (``fresh.*``, held out by construction): benchmarks/predict_families' FRESH_PROBLEMS x
fresh_designs, shapes neither the first (``gen.*``) nor the second (``hold.*``) corpus has, and families only it has
(their PROBLEMS empty), written without running the speed model on it so that its predictions can be frozen
(benchmarks/predict_freeze.py --corpus fresh) before the GPU times it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FAMILIES = REPO / "benchmarks" / "predict_families"

from tests.test_predict_families import _load  # noqa: E402 - one loader for the benchmark scripts
from tests.test_predict_hold import TILES, _dims, check_launch_specs  # noqa: E402 - the same checks as the second corpus's

pc = _load("predict_collect", REPO / "benchmarks" / "predict_collect.py")
sys.path.insert(0, str(FAMILIES))
import registry  # noqa: E402

# the families only the fresh corpus has
FRESH_ONLY = {"rope", "swiglu", "add_layernorm", "cross_entropy", "int4_gemv", "moe_gemm", "decode_attn", "stencil2d"}


@pytest.fixture(scope="module")
def fresh():
    return pc.gen_variants(corpus="fresh")


@pytest.fixture(scope="module")
def modules():
    return {m.FAMILY: m for m in (registry.load(p, f"t_fresh_{p.stem}") for p in registry.family_files())}


def test_the_fresh_corpus_is_350_to_450_unique_well_formed_names_in_30_families(fresh):
    names = [v.name for v in fresh]
    assert 350 <= len(names) == len(set(names)) <= 450
    families = {v.spec["family"] for v in fresh}
    assert len(families) >= 30 and FRESH_ONLY <= families
    per_problem = Counter(v.group for v in fresh)
    assert min(per_problem.values()) >= 2  # every problem has a pair of designs
    for v in fresh:
        assert v.name == f"fresh.{v.spec['family']}.{v.spec['problem']}.{v.spec['design']}", v.name
        assert v.kind == "gen" and v.spec["corpus"] == "fresh" and v.group.startswith("fresh.")
        assert re.fullmatch(r"[A-Za-z0-9_.]+", v.name), v.name
    assert len(pc.variant_pairs(fresh)) == sum(n * (n - 1) // 2 for n in per_problem.values())
    assert {pc.pack_key(v.name) for v in fresh} == {f"fresh.{v.spec['family']}" for v in fresh}


def test_fresh_only_families_are_in_neither_other_corpus(modules):
    for name in FRESH_ONLY:
        mod = modules[name]
        assert mod.PROBLEMS == {} and not getattr(mod, "HOLD_PROBLEMS", None), name
        assert registry.corpus_of(mod, "gen") == ({}, None) and registry.corpus_of(mod, "hold") == ({}, None)
    assert len(pc.gen_variants()) == 690 and len(pc.gen_variants(corpus="hold")) == 400  # both unchanged
    others = {v.spec["family"] for c in ("gen", "hold") for v in pc.gen_variants(corpus=c)}
    assert not FRESH_ONLY & others


def test_every_fresh_problem_has_sizes_neither_other_corpus_has(modules):
    for mod in modules.values():
        fresh = getattr(mod, "FRESH_PROBLEMS", {})
        seen = {_dims(p) for p in [*mod.PROBLEMS.values(), *getattr(mod, "HOLD_PROBLEMS", {}).values()]}
        assert not set(fresh) & (set(mod.PROBLEMS) | set(getattr(mod, "HOLD_PROBLEMS", {}))), mod.FAMILY
        for name, params in fresh.items():
            assert _dims(params) not in seen, f"{mod.FAMILY}.{name} has the sizes of an earlier problem"
        assert len({_dims(p) for p in fresh.values()}) == len(fresh), mod.FAMILY


def test_only_fresh_selects_the_fresh_corpus(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["predict_collect.py", "--list", "--only", "fresh."])
    assert pc.main() == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert all(line.startswith("fresh.") for line in out[:-1])
    assert len(out) - 1 == len(pc.gen_variants(corpus="fresh"))


def test_every_fresh_variant_builds_its_launches_on_the_cpu(fresh, modules):

    for v in fresh:
        mod = modules[v.spec["family"]]
        p = mod.FRESH_PROBLEMS[v.spec["problem"]]
        built = mod.build(p, registry.corpus_of(mod, "fresh")[1](p)[v.spec["design"]], "cpu")
        specs = built.specs()
        assert specs and built.outputs and built.shape, v.name
        check_launch_specs(v.name, specs, TILES | {"BH", "BHQ", "BHK", "BHALF", "SPLIT"})
        gib = sum(t.numel() * t.element_size() for t in _tensors(specs)) / 2**30
        assert gib <= 4, (v.name, gib)  # inputs and outputs fit the H200 many times over


def _tensors(specs):
    seen = {}
    for s in specs:
        for a in s["args"]:
            if hasattr(a, "data_ptr"):
                seen[id(a)] = a
    return seen.values()


def test_the_tiled_fresh_kernels_divide_their_problems_evenly(fresh, modules):
    # gemm, fp8 gemm, bmm and flash attention load whole tiles without masks; moe_gemm its N and K tiles
    for v in fresh:
        fam = v.spec["family"]
        mod = modules[fam]
        p = mod.FRESH_PROBLEMS[v.spec["problem"]]
        d = registry.corpus_of(mod, "fresh")[1](p)[v.spec["design"]]
        if fam in ("gemm", "gemm_fp8", "bmm"):
            assert p["M"] % d["BM"] == 0 and p["N"] % d["BN"] == 0 and p["K"] % d["BK"] == 0, v.name
        elif fam == "moe_gemm":
            assert p["N"] % d["BN"] == 0 and p["K"] % d["BK"] == 0, v.name
        elif fam == "flash_attn":
            assert p["S"] % d["BM"] == 0 and p["S"] % d["BN"] == 0 and p["D"] & (p["D"] - 1) == 0, v.name
        elif fam in ("gemv", "w8_gemv", "int4_gemv"):
            assert p["K"] % (d["SPLIT"] * d["BK"]) == 0, v.name
        elif fam == "tiny_chain":
            assert p["L"] % d["F"] == 0, v.name
        elif fam == "histogram" and d["kind"] == "local":
            assert p["n"] % d["BLOCK"] == 0, v.name  # the local kernel loads whole blocks, unmasked
        elif fam == "paged_decode":
            assert p["ctx"] % 16 == 0, v.name  # whole pages


def test_expert_sizes_are_fixed_uneven_and_tiled_exactly(modules):
    mod = modules["moe_gemm"]
    counts = mod.expert_counts(64, 4096)
    assert counts == mod.expert_counts(64, 4096) and sum(counts) == 4096  # no random stream
    assert counts[-1] == 0 and len(set(counts)) > 5  # one expert empty, the rest uneven
    experts, starts, ends = mod.tile_map([5, 0, 40], 16)
    assert experts == [0, 2, 2, 2] and starts == [0, 5, 21, 37] and ends == [5, 45, 45, 45]


@pytest.mark.slow
def test_one_design_of_every_fresh_only_family_compiles_for_sm_90(tmp_path, monkeypatch, fresh):
    from tools.frontends._triton_jit import compile_example

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    first = {}
    for v in fresh:
        if v.spec["family"] in FRESH_ONLY:
            first.setdefault(v.spec["family"], v)
    for fam, v in first.items():
        built = registry.build(v.source, v.spec["problem"], v.spec["design"], "cpu", name=f"t_fsm90_{fam}",
                               corpus="fresh")  # fmt: skip
        for s in built.specs():
            compiled, _ = compile_example(s, "sm_90")
            assert "sm_90" in compiled.asm["ptx"] and compiled.metadata.shared <= 232448, fam
        sys.modules.pop(f"t_fsm90_{fam}", None)


@pytest.mark.slow
def test_every_fresh_only_family_is_right_in_tritons_interpreter():
    # shrunk shapes (each family's shrink(), bf16 as fp16), every design, against the torch references
    args = [a for fam in sorted(FRESH_ONLY) for a in ("--family", fam)]
    out = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "predict_hold_interpret.py"), "--corpus", "fresh", "--designs",
         "2", *args],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert lines[-1].endswith(" 0 wrong") and int(lines[-1].split()[0]) >= 2 * 3 * len(FRESH_ONLY)
