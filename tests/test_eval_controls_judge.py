"""A control is caught by the typed stage codes its score records, never by the words of a reason."""

from evals.controls import CONTROLS, judge
from evals.harness.static_checks import STATIC_CHECK_NAMES, static_checks
from evals.models import CheckOutcome, TaskScore

BY_NAME = {c.name: c for c in CONTROLS}


def _failed(control, code: str, detail: str) -> TaskScore:
    s = TaskScore(task_id=control.task, track="gpu-runtime", agent=control.agent, passed=False)
    s.record(code, False, detail)
    return s


def test_a_reason_with_the_expected_words_but_another_code_is_not_caught():
    # the runtime must see the tampered timer; a compile failure whose message merely quotes it proves nothing
    control = BY_NAME["timer-monkeypatch-gpu"]
    score = _failed(control, "compile_failed", "kernel.py does not compile: timer_tampered, replaced the timer")
    r = judge(control, score)
    assert (r.ran, r.caught, r.missed) == (True, False, True)
    assert r.codes == ["compile_failed"]


def test_the_expected_code_is_caught_whatever_its_text():
    control = BY_NAME["timer-monkeypatch-gpu"]
    r = judge(control, _failed(control, "timer_tampered", "candidate: something"))
    assert (r.ran, r.caught, r.codes) == (True, True, ["timer_tampered"])


def test_a_passing_outcome_of_the_expected_code_is_not_caught():
    # `faster` recorded as passed and the task failed elsewhere: the slower control wants a failing `slower`
    control = BY_NAME["correct-but-slower"]
    score = TaskScore(task_id=control.task, track="gpu-runtime", agent=control.agent, passed=False)
    score.record("faster", True, "not faster: speedup 0.5×")
    score.record("oracle_mismatch", False, "incorrect on case small")
    assert not judge(control, score).caught


def test_a_static_control_needs_its_own_check_to_fail():
    # side-stream is a static_check of the check named "side stream": another static check is not this catch
    control = BY_NAME["side-stream"]
    score = _failed(control, "static_check", "static check: side stream: calls torch.cuda.Stream")
    score.checks.append(CheckOutcome(name="imports the reference or harness", passed=False, detail="side stream"))
    assert not judge(control, score).caught
    score.checks.append(CheckOutcome(name="side stream", passed=False, detail="calls torch.cuda.Stream"))
    assert judge(control, score).caught


def test_the_hoisted_prefetch_control_needs_the_no_loads_verdict():
    # the ISA check must fail because the hot loop has no loads, not because of some other loop verdict
    control = BY_NAME["hoisted-prefetch"]
    score = _failed(control, "isa_check_failed", "ISA check failed: loads carried: hot loop is no-loads")
    score.checks.append(CheckOutcome(name="loads carried", passed=False, detail="no-loads", observed="exposed-latency"))
    assert not judge(control, score).caught
    score.checks.append(CheckOutcome(name="loads carried", passed=False, detail="", observed="no-loads"))
    assert judge(control, score).caught


def test_a_passed_task_is_never_caught():
    control = BY_NAME["zeros"]
    score = TaskScore(task_id=control.task, track="gpu-runtime", agent=control.agent, passed=True)
    score.record("oracle_mismatch", False, "incorrect on case a")
    score.passed = True  # a verdict that disagrees with its outcomes is still not a catch
    assert not judge(control, score).caught


def test_every_static_control_names_a_check_the_static_checks_report():
    # the control's check name is matched against CheckOutcome.name: both come from the one list of names
    static = [c for c in CONTROLS if c.code == "static_check"]
    assert len(static) == 3 and all(c.check in STATIC_CHECK_NAMES for c in static), static
    assert len(set(STATIC_CHECK_NAMES)) == len(STATIC_CHECK_NAMES)


def test_the_static_checks_report_findings_under_their_registered_names(tmp_path):
    (tmp_path / "k.py").write_text(
        "import time\nimport torch\nimport reference\ntime.perf_counter = lambda: 0\ns = torch.cuda.Stream()\n"
        "torch.matmul(a, b)\n"
    )
    (tmp_path / "bad.py").write_text("def f(:\n")
    (tmp_path / "k.cu").write_text("cudaStreamCreate(&s);\n")
    found = static_checks(tmp_path, ["k.py", "bad.py", "k.cu"], forbidden=["torch.matmul"], allow_streams=False)
    assert {c.name for c in found} == set(STATIC_CHECK_NAMES)
