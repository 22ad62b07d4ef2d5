"""prefetch-data-load --verify judges by outcome: correct, then faster (measured, else predicted with its
band); structural findings are notes and warnings that explain the time, never a FAIL on their own.

The kernels are compiled here (tests/data/prefetch/masked_paged_decode*.py: a Triton paged decode and our hand
prefetch of it, whose loads are not all carried: the prefetch detector calls its hot loop exposed-latency). The GPU
figures are the ones recorded for a hand prefetch of a Triton paged-decode loop on an H100 (through
``--verify`` with ``kernelpilot_run``: both correct, 2916.9 → 1150.9 µs, 2.534×, 95 % CI 2.532–2.539), turned into
per-call samples around those medians so the statistics are the real ones (``compare_times``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.models.outcome import Correctness, SpeedOutcome
from tools.models.prefetch import GpuMeasurement, VerifyCheck
from tools.outcome import decide
from tools.prefetch import verify_prefetch
from tools.prefetch.verify import judge_pair, occupancy_check
from tools.profilers.timing import compare_times

DATA = Path(__file__).parent / "data"
MASKED = DATA / "prefetch" / "masked_paged_decode.py"
MASKED_AHEAD = DATA / "prefetch" / "masked_paged_decode_prefetched.py"
PAIR = DATA / "triton_occupancy"
OUTCOME_CHECKS = {"before-correct", "after-correct", "gpu-not-slower", "predicted-not-slower", "outputs-correct"}


def recorded(baseline_us: float, after_us: float, after_ok: bool = True) -> GpuMeasurement:
    """A GPU measurement with the recorded medians (50 calls each, ±0.1 % around the median)."""
    base = [baseline_us * (1 + 0.001 * ((i % 5) - 2)) for i in range(50)]
    cand = [after_us * (1 + 0.001 * ((i % 5) - 2)) for i in range(50)]
    cmp = compare_times(base, cand, device="NVIDIA H100 80GB HBM3")
    ok = VerifyCheck(name="before-correct", ok=True, detail="max error within tolerance")
    after = VerifyCheck(name="after-correct", ok=after_ok, detail="max error within tolerance" if after_ok else
                        "max |out - ref| = 0.75 > tolerance 0.01")  # fmt: skip
    return GpuMeasurement(
        measured=True, note=cmp.summary, device=cmp.device, before_correct=ok, after_correct=after, comparison=cmp
    )


def structural(arch: str):
    """The pair's real analysis (no GPU, no CPU check): both reports, hot loops and the structural checks."""
    rep = verify_prefetch(MASKED, MASKED_AHEAD, arch, gpu=False, check=False)
    hot = [next(lp for lp in r.loops if lp.is_hot) for r in (rep.before, rep.after)]
    checks = [c for c in rep.checks if c.name not in OUTCOME_CHECKS]
    return rep, hot, checks


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
@pytest.mark.slow
def test_measured_correct_and_faster_passes_although_the_loads_are_not_carried(arch):
    rep, (hb, ha), checks = structural(arch)
    feed = next(c for c in checks if c.name == "loads-feed-next-iteration")
    # the structure the old verdict failed on: AFTER's hot loop is not "prefetched"
    assert ha.verdict != "prefetched" and feed.ok and feed.severity == "warning"
    out = judge_pair(rep.before, rep.after, hb, ha, checks, recorded(2916.9, 1150.9), MASKED, MASKED_AHEAD)
    # 2916.9 / 1150.9 = 2.534: the whole CI is above 1, both sides correct on the GPU
    assert out.verdict == "pass" and out.ok, out.summary
    assert out.speed.source == "measured" and round(out.speed.speedup, 3) == 2.534 and out.speed.verdict == "faster"
    assert out.correctness.source == "gpu" and out.correctness.ok
    assert out.summary.startswith(f"PASS: {rep.before.kernel} ({hb.verdict}) → {rep.after.kernel} ({ha.verdict})")
    assert [c.name for c in out.checks if not c.ok] == []


@pytest.mark.slow
def test_measured_slower_fails_on_speed_not_on_shape():
    rep, (hb, ha), checks = structural("gfx942")
    out = judge_pair(rep.before, rep.after, hb, ha, checks, recorded(1150.9, 2916.9), MASKED, MASKED_AHEAD)
    assert out.verdict == "fail" and [c.name for c in out.checks if not c.ok] == ["gpu-not-slower"]
    assert "slower: measured 0.395×" in out.summary  # 1150.9 / 2916.9


@pytest.mark.slow
def test_measured_incorrect_fails_even_when_faster():
    rep, (hb, ha), checks = structural("gfx942")
    out = judge_pair(rep.before, rep.after, hb, ha, checks, recorded(2916.9, 1150.9, False), MASKED, MASKED_AHEAD)
    assert out.verdict == "fail" and [c.name for c in out.checks if not c.ok] == ["after-correct"]
    assert "incorrect: after-correct: max |out - ref| = 0.75" in out.summary


@pytest.mark.slow
def test_measured_within_noise_is_undetermined():
    rep, (hb, ha), checks = structural("gfx942")
    out = judge_pair(rep.before, rep.after, hb, ha, checks, recorded(2916.9, 2916.9), MASKED, MASKED_AHEAD)
    assert out.verdict == "undetermined" and not out.ok
    assert out.undetermined.startswith("neither faster nor slower beyond a GPU run's band: measured 1.000×")


@pytest.mark.slow
def test_budgets_the_user_sets_fail_and_name_the_figures():
    # masked_paged_decode_prefetched on gfx942: 8 waves/SIMD (30-odd VGPRs); budgets below that fail
    rep = verify_prefetch(MASKED, MASKED_AHEAD, "gfx942", gpu=False, check=False, max_vgprs=16, min_waves=9)
    failed = {c.name: c.detail for c in rep.checks if not c.ok}
    assert set(failed) == {"max-vgprs", "min-waves"}
    assert failed["max-vgprs"] == f"AFTER uses {rep.after.registers} VGPRs; budget 16"
    assert failed["min-waves"] == "AFTER holds 8 waves/SIMD; budget 9"
    assert rep.verdict == "fail"
    within = verify_prefetch(MASKED, MASKED_AHEAD, "gfx942", gpu=False, check=False, max_vgprs=64, min_waves=8)
    assert not [c for c in within.checks if not c.ok]


@pytest.mark.slow
def test_occupancy_is_compared_per_cu_at_each_versions_own_grid():
    # BEFORE: rowdot over 256 programs (4 waves/SIMD, one 4-wave workgroup per CU needed on an MI300X's 304 CUs);
    # AFTER: the prefetched rowdot over 8192 programs (3 waves/SIMD: holds 3 of the 27 workgroups per CU it needs).
    # Per block the occupancy dropped 4 → 3; per CU AFTER keeps 3 x 4 = 12 waves resident against BEFORE's 1 x 4.
    rep = verify_prefetch(PAIR / "rowdot.py", PAIR / "rowdot_prefetched_full_grid.py", "gfx942", gpu=False,
                          check=False)  # fmt: skip
    occ = next(c for c in rep.checks if c.name == "occupancy")
    assert occ.ok and occ.severity == "note", occ.detail
    assert "BEFORE's 256 workgroups need 1 per CU at once and it holds 4; AFTER's 8192 need 27" in occ.detail
    assert "4 → 12 resident waves per CU" in occ.detail


@pytest.mark.slow
def test_a_felt_occupancy_drop_is_a_warning_unless_the_user_set_a_budget():
    rep = verify_prefetch(PAIR / "rowdot_full_grid.py", PAIR / "rowdot_prefetched_full_grid.py", "gfx942", gpu=False,
                          check=False)  # fmt: skip
    occ = next(c for c in rep.checks if c.name == "occupancy")
    # 8192 programs need 27 per CU; BEFORE holds 4 four-wave workgroups (16 waves), AFTER 3 (12 waves)
    assert occ.ok and occ.severity == "warning" and "16 → 12 resident waves per CU" in occ.detail
    budget = occupancy_check(rep.before, rep.after, allow_drop=0)
    assert not budget.ok and budget.detail.endswith("more than the 0 waves/SIMD your budget allows")
    assert occupancy_check(rep.before, rep.after, allow_drop=1).ok


def test_decide_reads_only_correctness_speed_and_failures():
    checked = Correctness(checked=True, ok=True, source="check", note="same")
    unchecked = Correctness(checked=False, source="none", note="correctness not checked (--no-check, no GPU run)")
    faster = SpeedOutcome(source="predicted", speedup=1.8, band=(1.4, 2.2), verdict="faster", note="predicted 1.80×")
    slower = SpeedOutcome(source="predicted", speedup=0.6, band=(0.5, 0.8), verdict="slower", note="predicted 0.60×")
    within = SpeedOutcome(source="predicted", speedup=1.1, band=(0.9, 1.3), verdict="within-band", note="1.10×")
    assert decide([], checked, faster) == ("pass", "faster: predicted 1.80×")
    assert decide([], unchecked, faster)[1].endswith("(correctness not checked (--no-check, no GPU run))")
    assert decide([], checked, slower) == ("fail", "slower: predicted 0.60×")
    assert decide(["no-new-spills (spills 0 → 4)"], checked, faster)[0] == "fail"
    assert decide([], checked, within)[0] == "undetermined"
    wrong = Correctness(checked=True, ok=False, source="check", note="different: 3 elements")
    assert decide([], wrong, faster) == ("fail", "incorrect: different: 3 elements")
