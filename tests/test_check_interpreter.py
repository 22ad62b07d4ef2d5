"""kernelpilot check, interpreter engine: Triton files run through TRITON_INTERPRET=1, BEFORE vs AFTER."""

from __future__ import annotations

import subprocess

import pytest

from tools.check.compare import check

from .conftest import REPO

TASK = REPO / "evals" / "tasks" / "vgpr-spill-row-norm"
# The task's entry gives one fixed launch; check wants inputs per seed and shape: the test adds them (same launch as
# forward(): a persistent grid of min(rows, PROGRAMS) programs).
INPUTS = """

def kernelpilot_inputs(seed, rows=4, N=3000):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, N, generator=g) * 3 + 1
    w = torch.rand(N, generator=g) + 0.5
    out = torch.empty_like(x)
    return {"kernel": row_norm_kernel, "args": (x, w, out, rows, N, 1e-5),
            "kwargs": {"BLOCK": BLOCK, "PROGRAMS": PROGRAMS, **OPTIONS},
            "grid": (min(rows, PROGRAMS),)}
"""


@pytest.fixture
def spill_pair(tmp_path):
    before = tmp_path / "before.py"
    before.write_text((TASK / "workspace" / "kernel.py").read_text() + INPUTS)
    after = tmp_path / "after.py"
    after.write_text((TASK / "workspace" / "kernel.py").read_text())
    subprocess.run(["patch", "-s", str(after), str(TASK / "solution.patch")], check=True)
    after.write_text(after.read_text() + INPUTS)
    return before, after


def test_spill_task_reference_solution_computes_the_same(spill_pair):
    before, after = spill_pair
    rep = check(before, after, engine="interpreter", seeds=[0, 1], shapes=[{"rows": 3, "N": 3000}])
    assert rep.engine == "interpreter" and rep.verdict == "same", rep.reason
    # only out is written: 3 rows x 3000 columns
    assert [(b.name, b.elements) for b in rep.cases[0].buffers] == [("out_ptr", 9000)]
    assert any("num_warps" in line for line in rep.limits)


@pytest.mark.slow
def test_spill_task_missing_mask_is_different(spill_pair, tmp_path):
    before, after = spill_pair
    wrong = tmp_path / "wrong.py"
    # without the mask the 1096 padding columns (x = 0) enter the variance as (0 - mean)^2: every output moves
    wrong.write_text(after.read_text().replace("xc = tl.where(mask, x - mean, 0.0)", "xc = x - mean"))
    rep = check(before, wrong, engine="interpreter", shapes=[{"rows": 2, "N": 3000}])
    assert rep.verdict == "different"
    assert rep.cases[0].buffers[0].mismatches == 6000


@pytest.mark.slow
def test_spill_task_on_the_llvm_engine_differs_only_by_reduction_order(spill_pair, tmp_path):
    before, after = spill_pair
    # 1 warp vs 4 warps sum the row in a different order (DPP within waves, LDS across them): last-bit differences
    exact = check(before, after, engine="llvm", shapes=[{"rows": 2, "N": 3000}])
    buf = exact.cases[0].buffers[0]
    assert exact.verdict == "different" and 0 < buf.max_abs_diff < 1e-6
    assert check(before, after, engine="llvm", shapes=[{"rows": 2, "N": 3000}], atol=1e-6).verdict == "same"
    wrong = tmp_path / "wrong.py"
    wrong.write_text(after.read_text().replace("xc = tl.where(mask, x - mean, 0.0)", "xc = x - mean"))
    assert check(before, wrong, engine="llvm", shapes=[{"rows": 2, "N": 3000}], atol=1e-6).verdict == "different"
