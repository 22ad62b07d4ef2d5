"""Typed stage outcomes: the verdict is computed from StageOutcome codes, never from the reasons' text,
and the metrics leave tasks the harness failed on (infra_error) out of every rate, counting them apart."""

from __future__ import annotations

from evals.harness.scoring import verdict
from evals.metrics import run_metrics
from evals.models import StageOutcome, TaskScore


def _score(*outcomes: tuple[str, bool, str], **kw) -> TaskScore:
    s = TaskScore(task_id="t", track="gpu-runtime", agent="a", passed=False, **kw)
    for code, passed, detail in outcomes:
        s.record(code, passed, detail)
    return s


GPU_STAGES = {"compiled", "correct", "faster"}
ALL_OK = (("compiled", True, "1 kernel(s)"), ("correct", True, "3 case(s)"), ("faster", True, "2.0×"))


def test_every_required_stage_passed_is_a_pass():
    assert verdict(_score(*ALL_OK), GPU_STAGES) == (True, None)


def test_a_failing_code_fails_whatever_its_text_says():
    # the detail names none of the phrases the old verdict searched for ("speed-of-light", "replaced the timer")
    s = _score(*ALL_OK, ("timer_tampered", False, "candidate: torch.cuda.Event.record differs"))
    assert verdict(s, GPU_STAGES) == (False, "timer_tampered")


def test_a_passing_stage_whose_text_mentions_speed_of_light_still_passes():
    s = _score(*ALL_OK[:2], ("faster", True, "1.5×, 40 % of speed-of-light; nobody replaced the timer"))
    assert verdict(s, GPU_STAGES) == (True, None)


def test_a_required_stage_that_never_ran_fails_with_its_code():
    # correct but never timed on a GPU host: 'faster' is required and missing, which reads as slower
    assert verdict(_score(*ALL_OK[:2]), GPU_STAGES) == (False, "slower")


def test_the_first_failing_stage_is_the_code():
    s = _score(("compile_failed", False, "kernel.py does not compile"), ("oracle_mismatch", False, "mismatch"))
    assert verdict(s, GPU_STAGES) == (False, "compile_failed")


def test_an_incomplete_scoring_never_passes():
    assert verdict(_score(*ALL_OK, complete=False), GPU_STAGES) == (False, "needs_gpu")


def test_record_keeps_the_reason_text_for_failures_only():
    s = _score(("compiled", True, "1 kernel(s)"), ("slower", False, "not faster: 1.01×"))
    assert s.reasons == ["not faster: 1.01×"]
    assert [o.code for o in s.outcomes] == ["compiled", "slower"]
    assert StageOutcome.model_validate(s.outcomes[1].model_dump()).passed is False


def test_infra_errors_are_left_out_of_the_rates_and_counted_apart():
    ok = _score(*ALL_OK, speedup=2.0, correct=True, compiled=True)
    ok.passed = True
    bad = _score(("slower", False, "not faster"), compiled=True, correct=True, speedup=1.0)
    broken = TaskScore(task_id="u", track="gpu-runtime", agent="a", passed=False, complete=False)
    broken.record_infra_error("the scorer failed twice: OSError")
    m = run_metrics("a", [ok, bad, broken])
    # 2 tasks scored (1 passed): the harness's failure is neither a pass nor a fail of the agent
    assert (m.tasks, m.passed, m.infra_errors) == (2, 1, 1)
    assert m.fast_p["fast_1"] == 1 / 2 and m.compile_rate == 1.0
    assert broken.code == "infra_error" and broken.reasons[0].startswith("infra_error: the scorer failed twice")
